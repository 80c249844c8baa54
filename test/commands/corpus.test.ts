import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import t from "tap";
import { ExitCode } from "../../lib/errors.js";
import { createCommandWorld } from "../harness/command-io.js";
import { CORPUS_DIR, ROOT, loadSeedManifests } from "../harness/manifest-fuzzer.js";
import { validateAndDryRun } from "../harness/manifest-outcome.js";

// The real-world manifests of test/fixtures/corpus/ (the fuzzing tests' seeds), each as it is:
// `podrun validate` and `podrun up --dry-run` end as the corpus README records, exit 0, or exit 2
// with one `file:line:col: field: reason` line per error on exactly the fields recorded here, and
// keep every property the fuzzing test checks (test/harness/manifest-outcome.ts). A file added to
// the corpus fails here until it is recorded in REFUSED (or found valid) and in the README.

/**
 * The files podrun refuses, and the fields it names (each line's text up to its first ": ").
 * Why each is refused is in the README; every other corpus file must be valid.
 */
const REFUSED: Record<string, string[]> = {
  // apiVersions a v1.36 API server no longer serves: kubectl's "no matches for kind".
  "k8s-cronjob-v1beta1.yaml": ["apiVersion"],
  "k8s-example-ingress-v1beta1.yaml": ["apiVersion"],
  "k8s-example-psp.yaml": ["apiVersion"],
  // spec.ipFamily, replaced by ipFamilies in v1.20: an unknown field to strict validation.
  "k8s-dual-stack-ipv6-svc.yaml": ["spec"],
  // The Gt operator needs TaintTolerationComparisonOperators, alpha and off by default in v1.36.
  "k8s-pod-with-numeric-toleration.yaml": ["spec.tolerations[0].operator"],
  // fsGroup is a pod-level field only: an API server's strict field validation refuses it here too.
  "podman/podman-bats-hostpath-selinux.yaml": ["spec.containers[0].securityContext"],
  // podman plays Deployments; podrun runs Pods.
  "podman/podman-deployment-startup-probe.yaml": ["spec.template.spec.restartPolicy"],
  // Protocols are case-sensitive to an API server; podman lowercases them.
  "podman/podman-host-port-udp.yaml": ["spec.containers[0].ports[0].protocol"],
  // Written to make `kube play` fail: tab indentation is not YAML.
  "podman/podman-tab-indented.yaml": ["YAML syntax error"],
  // podman's test template: names with capitals, numbers where strings go, the pull policy
  // "missing", an empty containerPort, `readonly` for readOnly.
  "podman/podman-template-env-from-configmap.yaml": [
    "data[MY_ENV_VAR]",
    "metadata.name",
    "spec.containers[0].args[1]",
    "spec.containers[0].env[1].value",
    "spec.containers[0].imagePullPolicy",
    "spec.containers[0].name",
    "spec.containers[0].ports[0].containerPort",
  ],
  "podman/podman-template-hostpath-subpath.yaml": [
    "spec.containers[0].args[1]",
    "spec.containers[0].imagePullPolicy",
    "spec.containers[0].ports[0].containerPort",
    "spec.containers[0].volumeMounts[0]",
    "spec.volumes[0].name",
  ],
  "podman/podman-template-init-container.yaml": [
    "metadata.name",
    "spec.containers[0].args[1]",
    "spec.containers[0].imagePullPolicy",
    "spec.containers[0].name",
    "spec.containers[0].ports[0].containerPort",
  ],
};

/**
 * Files an API server accepts and a node's kubelet then fails on: `validate` warns on the fields
 * named (exit 0), `up --dry-run` refuses them there (exit 2).
 */
const KUBELET_FAILS: Record<string, string[]> = {
  // The ConfigMap it mounts is another example's, not in the file: podrun reads only the files given.
  "k8s-pod-configmap-volume.yaml": ["spec.volumes[0].configMap.name"],
  // The image names a placeholder, `gcr.io/<project>/job-wq-1`: the kubelet's InvalidImageName.
  "k8s-job-wq-1.yaml": ["spec.template.spec.containers[0].image"],
  // Claims that no file defines (podman makes them as named volumes).
  "podman/podman-subpath-named-volume.yaml": ["spec.volumes[0].persistentVolumeClaim.claimName"],
  "podman/podman-volumes-from.yaml": ["spec.volumes[0].persistentVolumeClaim.claimName"],
};

/** Valid files with no Pod in them (a ConfigMap, a Secret): `up` has nothing to run and says so. */
const NO_POD = ["k8s-example-redis-config.yaml", "k8s-secret.yaml"];

const corpus = loadSeedManifests().filter((seed) => seed.name.startsWith(`${CORPUS_DIR}/`));
const readme = readFileSync(join(ROOT, CORPUS_DIR, "README.md"), "utf8");

t.test("the corpus holds the Kubernetes examples and podman's kube play manifests, each in the README", async (t) => {
  const names = corpus.map((seed) => relative(CORPUS_DIR, seed.name));
  t.ok(names.filter((name) => name.startsWith("podman/")).length >= 10, `${names.length} corpus files`);
  t.same(
    names.filter((name) => !readme.includes(`\`${name}\``)),
    [],
    "every corpus file has a row in the README",
  );
  t.same(
    [...Object.keys(REFUSED), ...Object.keys(KUBELET_FAILS), ...NO_POD].filter((name) => !names.includes(name)),
    [],
    "every file recorded here is in the corpus",
  );
});

t.test("each corpus manifest, unmutated: valid, or refused on the fields recorded, one line per error", async (t) => {
  const world = await createCommandWorld(t);
  for (const seed of corpus) {
    const name = relative(CORPUS_DIR, seed.name);
    const path = join(ROOT, seed.name);
    const { checked, started, problems } = await validateAndDryRun(world, path);
    t.same(problems, [], `${name}: exit 0 or 2, no stack trace, no engine touched when refused`);
    if (NO_POD.includes(name)) {
      t.equal(started.code, ExitCode.Usage, `${name}: up --dry-run refuses a file without a Pod`);
      t.same(
        started.stderr,
        [`error: ${path}: no Pod to run (the file holds only ConfigMaps or Secrets)`],
        `${name}: up --dry-run says there is no Pod`,
      );
    } else if (KUBELET_FAILS[name]) {
      t.equal(started.code, ExitCode.Usage, `${name}: up --dry-run refuses what a kubelet would fail on`);
      const refused = started.stderr.filter((line) => !line.startsWith("hint: ")).map(fieldOf(path));
      t.same([...new Set(refused)].sort(), [...KUBELET_FAILS[name]].sort(), `${name}: up names those fields`);
    } else {
      t.equal(started.code, checked.code, `${name}: up --dry-run ends as validate does`);
    }
    // Every line, errors and Warnings, names the place in the file; a hint follows them once.
    const lines = checked.stderr.filter((line) => !line.startsWith("hint: "));
    const unlocated = lines.filter((line) => !LOCATED.test(line.slice(path.length + 1)));
    t.same(unlocated, [], `${name}: every stderr line is file:line:col`);
    const fields = [...new Set(lines.filter((line) => !line.includes(": Warning: ")).map(fieldOf(path)))].sort();
    const expected = REFUSED[name];
    if (expected) {
      t.equal(checked.code, ExitCode.Usage, `${name}: refused (exit 2)`);
      t.same(fields, [...expected].sort(), `${name}: the errors name ${expected.join(", ")}`);
    } else {
      t.equal(checked.code, ExitCode.Ok, `${name}: valid (exit 0)`);
      t.same(fields, [], `${name}: no error line`);
    }
  }
});

const LOCATED = /^(\d+):(\d+): /;

/** The field an error line names: its text after `file:line:col: ` up to the first ": ". */
const fieldOf = (path: string) => (line: string) =>
  line
    .slice(path.length + 1)
    .replace(LOCATED, "")
    .split(": ")[0]!;
