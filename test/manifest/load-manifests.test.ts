import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import t from "tap";
import { loadManifests } from "../../lib/kinds/read-manifests.js";
import { objectsOf, podSourcesOf, podsOf } from "../../lib/kinds/views.js";
import { manifestRejectionLines } from "../harness/manifest-errors.js";

// Several files as one set, as `kubectl apply -f cm.yaml -f pod.yaml` (or `-f dir/`) sends them:
// real files in a temporary directory, errors named by file, line and column.

const configMap = (name: string, extra = "") =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}data:\n  GREETING: hello\n`;
const secret = (name: string) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\nstringData:\n  password: s3cret\n`;
// The envFrom name sits at line 11, column 19; the configMapKeyRef name at 16:19, its key at 17:18.
const podUsing = (
  name: string,
  configMapName: string,
  options: { key?: string; optional?: boolean } = {},
) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
    - name: app
      image: busybox
      envFrom:
        - configMapRef:
            name: ${configMapName}${options.optional ? "\n            optional: true" : ""}
      env:
        - name: ONE
          valueFrom:
            configMapKeyRef:
              name: ${configMapName}
              key: ${options.key ?? "GREETING"}
`;
const plainPod = (name: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n    - {name: app, image: busybox}\n`;

const roots: string[] = [];
t.teardown(() => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))));

async function files(contents: Record<string, string>): Promise<(name: string) => string> {
  const root = await mkdtemp(join(tmpdir(), "podrun-load-"));
  roots.push(root);
  for (const [path, text] of Object.entries(contents)) {
    await mkdir(join(root, path, ".."), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return (name: string) => join(root, name);
}

t.test("the documentation's split: a ConfigMap in one file, the Pod using it in another", async (t) => {
  const at = await files({ "cm.yaml": configMap("app-config"), "pod.yaml": podUsing("web", "app-config") });
  const manifest = await loadManifests([at("cm.yaml"), at("pod.yaml")]);
  t.same(manifest.sources, [at("cm.yaml"), at("pod.yaml")]);
  t.equal(manifest.source, `${at("cm.yaml")}, ${at("pod.yaml")}`);
  t.same(
    podsOf(manifest).map((p) => p.metadata!.name),
    ["web"],
  );
  t.equal(podSourcesOf(manifest).get(podsOf(manifest)[0]!), at("pod.yaml"));
  t.same(
    manifest.configMaps.map((c) => c.metadata!.name),
    ["app-config"],
  );
  t.same(
    manifest.files.map((f) => [
      f.source,
      podsOf(f).length,
      objectsOf(f, "ConfigMap").length,
      objectsOf(f, "Secret").length,
    ]),
    [
      [at("cm.yaml"), 0, 1, 0],
      [at("pod.yaml"), 1, 0, 0],
    ],
  );
  // The order of the files does not matter to references.
  t.equal(podsOf(await loadManifests([at("pod.yaml"), at("cm.yaml")])).length, 1);
});

t.test("a directory: every manifest in it, one set", async (t) => {
  const at = await files({
    "k8s/1-cm.yaml": configMap("app-config"),
    "k8s/2-pod.yaml": podUsing("web", "app-config"),
    "k8s/3-secret.json": JSON.stringify({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "creds" },
      stringData: { a: "b" },
    }),
  });
  const manifest = await loadManifests([at("k8s")]);
  t.same(
    manifest.sources,
    ["1-cm.yaml", "2-pod.yaml", "3-secret.json"].map((f) => at(`k8s/${f}`)),
  );
  t.equal(manifest.secrets.length, 1);
  t.equal(podSourcesOf(manifest).get(podsOf(manifest)[0]!), at("k8s/2-pod.yaml"));
  const again = await loadManifests([at("k8s"), at("k8s/2-pod.yaml")]);
  t.equal(podsOf(again).length, 1, "a file named twice is read once, not a duplicate of itself");
});

t.test("a reference to an object in none of the files names the reference and the files read", async (t) => {
  const at = await files({ "cm.yaml": configMap("other-config"), "pod.yaml": podUsing("web", "app-config") });
  const read = `(${at("cm.yaml")}, ${at("pod.yaml")})`;
  t.same(await manifestRejectionLines(loadManifests([at("cm.yaml"), at("pod.yaml")])), [
    `${at("pod.yaml")}:11:19: spec.containers[0].envFrom[0].configMapRef.name: Not found: "app-config": no ConfigMap "app-config" in namespace "default" in the 2 files read ${read} (the kubelet's CreateContainerConfigError)`,
    `${at("pod.yaml")}:16:21: spec.containers[0].env[0].valueFrom.configMapKeyRef.name: Not found: "app-config": no ConfigMap "app-config" in namespace "default" in the 2 files read ${read} (the kubelet's CreateContainerConfigError)`,
    "hint: podrun reads only the files given: pass the file that defines each ConfigMap and Secret, or mark a reference that may be absent `optional: true`",
  ]);
});

t.test("optional: true tolerates an absent object", async (t) => {
  const at = await files({
    "pod.yaml": podUsing("web", "app-config", { optional: true }).replace(
      "key: GREETING",
      "key: GREETING\n              optional: true",
    ),
  });
  t.equal(podsOf(await loadManifests([at("pod.yaml")])).length, 1);
});

t.test("a key the object of another file lacks: where that object is defined", async (t) => {
  const at = await files({
    "cm.yaml": configMap("app-config"),
    "pod.yaml": podUsing("web", "app-config", { key: "COLOR" }),
  });
  t.same(await manifestRejectionLines(loadManifests([at("cm.yaml"), at("pod.yaml")])), [
    `${at("pod.yaml")}:17:20: spec.containers[0].env[0].valueFrom.configMapKeyRef.key: Not found: "COLOR": ConfigMap "app-config" (${at("cm.yaml")}:4:9) has no key "COLOR" (the kubelet's CreateContainerConfigError)`,
  ]);
});

t.test("an object of that name in another namespace is pointed at", async (t) => {
  const at = await files({
    "cm.yaml": configMap("app-config").replace("  name: app-config\n", "  name: app-config\n  namespace: ci\n"),
    "pod.yaml": podUsing("web", "app-config"),
  });
  const lines = await manifestRejectionLines(loadManifests([at("cm.yaml"), at("pod.yaml")]));
  t.match(lines[0], `; ${at("cm.yaml")}:4:9 defines one in namespace "ci"`);
});

t.test("the same object defined twice: an error at the second, naming the first", async (t) => {
  const at = await files({
    "a.yaml": `${configMap("app-config")}---\n${plainPod("web")}`,
    "b.yaml": `${plainPod("web")}---\n${configMap("app-config")}`,
    "c.yaml": `${secret("app-config")}---\n${plainPod("web").replace("  name: web\n", "  name: web\n  namespace: ci\n")}`,
  });
  t.same(
    await manifestRejectionLines(loadManifests([at("a.yaml"), at("b.yaml"), at("c.yaml")])),
    [
      `${at("b.yaml")}:4:9: metadata.name: Duplicate value: "web": Pod "web" in namespace "default" is also defined at ${at("a.yaml")}:11:9`,
      `${at("b.yaml")}:12:9: metadata.name: Duplicate value: "app-config": ConfigMap "app-config" in namespace "default" is also defined at ${at("a.yaml")}:4:9`,
    ],
    "a Secret of a ConfigMap's name, and a Pod of the same name in another namespace, are other objects",
  );
});

t.test("two objects of one name in one file, and in a List", async (t) => {
  const list = `apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n`;
  const at = await files({ "list.yaml": list });
  t.same(await manifestRejectionLines(loadManifests([at("list.yaml")])), [
    `${at("list.yaml")}:5:56: items[1].metadata.name: Duplicate value: "x": ConfigMap "x" in namespace "default" is also defined at ${at("list.yaml")}:4:56`,
  ]);
});

t.test(
  "every file's errors at once, each line naming its file; unreadable files and empty directories in one line",
  async (t) => {
    const at = await files({
      "bad1.yaml": plainPod("one").replace("image: busybox", "image: Busybox"),
      "bad2.yaml": plainPod("two").replace("{name: app, image: busybox}", "{name: app}"),
      "empty/readme.md": "",
    });
    const lines = await manifestRejectionLines(
      loadManifests([at("bad1.yaml"), at("missing.yaml"), at("empty"), at("bad2.yaml")]),
    );
    t.same(lines, [
      `${at("empty")}: no manifest in this directory (no *.yaml, *.yml, *.json file)`,
      `${at("missing.yaml")}: cannot read: no such file`,
      `${at("bad1.yaml")}:7:26: spec.containers[0].image: Invalid value: "Busybox": invalid reference format: repository name (library/Busybox) must be lowercase (the kubelet's InvalidImageName)`,
      `${at("bad2.yaml")}:7:7: spec.containers[0].image: Required value`,
    ]);
  },
);

t.test("checkReferences: false (down) loads a pod without its ConfigMaps", async (t) => {
  const at = await files({ "pod.yaml": podUsing("web", "app-config") });
  t.equal(podsOf(await loadManifests([at("pod.yaml")], { checkReferences: false })).length, 1);
});

t.test("many files: the message names the first three", async (t) => {
  const contents: Record<string, string> = { "d/pod.yaml": podUsing("web", "app-config") };
  for (let i = 0; i < 7; i++) contents[`d/cm${i}.yaml`] = configMap(`c${i}`);
  const at = await files(contents);
  const lines = await manifestRejectionLines(loadManifests([at("d")]));
  const named = [0, 1, 2].map((i) => at(`d/cm${i}.yaml`)).join(", ");
  t.match(lines[0], `in the 8 files read (${named}, 5 more)`);
});

t.test("standard input is one file of the set; warnings come file by file", async (t) => {
  const at = await files({ "cm.yaml": configMap("app-config") });
  const stdin = Readable.from([
    Buffer.from(podUsing("web", "app-config").replace("spec:\n", "spec:\n  nodeSelector: {disk: ssd}\n")),
  ]);
  const manifest = await loadManifests(["-", at("cm.yaml")], { stdin });
  t.same(manifest.sources, ["<stdin>", at("cm.yaml")]);
  t.equal(podSourcesOf(manifest).get(podsOf(manifest)[0]!), "<stdin>");
  t.match(manifest.warnings[0], /^<stdin>:6:3: Warning: spec\.nodeSelector: /);
});
