import t from "tap";
import { UsageError } from "../../lib/errors.js";
import {
  overrideImage,
  overridePodSpecImages,
  parseImageOverride,
  parseImageOverrides,
} from "../../lib/manifest/image-overrides.js";

const SHA = `sha256:${"a".repeat(64)}`;

t.test("kustomize's images: semantics, as a table", async (t) => {
  const cases: [string, string, string][] = [
    // [flag, image as written, image run]
    ["ghcr.io/org/app=app", "ghcr.io/org/app:1.4.2", "app:1.4.2"],
    ["ghcr.io/org/app=app:ci-1", "ghcr.io/org/app:1.4.2", "app:ci-1"],
    ["ghcr.io/org/app=app:ci-1", "ghcr.io/org/app", "app:ci-1"],
    ["ghcr.io/org/app=app:ci-1", `ghcr.io/org/app:1.4.2@${SHA}`, "app:ci-1"],
    [`ghcr.io/org/app=app@${SHA}`, "ghcr.io/org/app:1.4.2", `app@${SHA}`],
    ["ghcr.io/org/app=:ci-1", "ghcr.io/org/app:1.4.2", "ghcr.io/org/app:ci-1"],
    [`ghcr.io/org/app=@${SHA}`, "ghcr.io/org/app", `ghcr.io/org/app@${SHA}`],
    ["localhost:5000/app=localhost:5000/app:new", "localhost:5000/app", "localhost:5000/app:new"],
    // The repository as written: another spelling of the same image is another name, as in kustomize.
    ["nginx=nginx:ci", "docker.io/library/nginx:1.27", "docker.io/library/nginx:1.27"],
    ["ghcr.io/org/app=app:ci", "ghcr.io/org/app-worker:1", "ghcr.io/org/app-worker:1"],
  ];
  for (const [flag, image, expected] of cases)
    t.equal(overrideImage(image, [parseImageOverride(flag)]).image, expected, `${flag} on ${image}`);
});

t.test("a bad --image is a usage error naming the flag", async (t) => {
  const bad: [string, RegExp][] = [
    ["app", /invalid --image "app": expected NAME=REF/],
    ["=app:1", /expected NAME=REF/],
    ["app=", /expected NAME=REF/],
    ["app:1=app:2", /NAME must be a repository, without tag, digest or spaces/],
    [`app@${SHA}=app:2`, /NAME must be a repository, without tag, digest or spaces/],
    ["app=:bad tag", /REF: invalid reference format: character " "/],
    ["app=@sha256:abc", /REF: invalid reference format/],
  ];
  for (const [flag, message] of bad) t.throws(() => parseImageOverride(flag), message, flag);
  t.throws(() => parseImageOverride("app"), UsageError);
});

t.test("$PODRUN_IMAGES adds a comma list; a flag wins over it for the same NAME", async (t) => {
  const overrides = parseImageOverrides(["app=app:flag"], " app=app:env , db=db:env ,");
  t.same(
    overrides.map((o) => o.flag),
    ["app=app:flag", "db=db:env"],
  );
});

t.test("every container of a pod spec; the overrides that matched", async (t) => {
  const spec = {
    initContainers: [{ name: "init", image: "ghcr.io/org/app:1" }],
    containers: [
      { name: "app", image: "ghcr.io/org/app:1" },
      { name: "side", image: "busybox:1.36" },
    ],
  };
  const app = parseImageOverride("ghcr.io/org/app=app:ci");
  const unused = parseImageOverride("ghcr.io/org/db=db:ci");
  const used = overridePodSpecImages(spec, [app, unused]);
  t.same(
    [...spec.initContainers, ...spec.containers].map((c) => c.image),
    ["app:ci", "app:ci", "busybox:1.36"],
  );
  t.same([...used], [app]);
});

t.test(
  "applied before the manifests' rules: the image that will run is the one checked; an unused one warns",
  async (t) => {
    const { checkManifests } = await import("../../lib/kinds/read-manifests.js");
    const text =
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: wq}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: 'gcr.io/<project>/job-wq-1'}]\n";
    const manifest = checkManifests([{ name: "job.yaml", text }], {
      images: [parseImageOverride("gcr.io/<project>/job-wq-1=job-wq-1:ci"), parseImageOverride("db=db:ci")],
    });
    const pod = manifest.items[0]!.pods[0]!;
    t.equal(pod.spec!.containers[0]!.image, "job-wq-1:ci", "the placeholder replaced: no InvalidImageName");
    t.equal(pod.spec!.containers[0]!.imagePullPolicy, "IfNotPresent", "defaulted from the new tag");
    t.same(manifest.warnings, ["Warning: --image db=db:ci: no container image of the files read is db"]);
  },
);
