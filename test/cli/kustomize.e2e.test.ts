import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { engineBlind, missing, requirePodEngine } from "../harness/engine.js";
import { BUSYBOX, uniqueName } from "../harness/engine-pod.js";

// `-k DIR` on validate, up and down, as `kubectl apply -k`: the kustomization rendered by the
// kustomize (or kubectl) on PATH, a real one (scripts/test-env.sh installs Debian's kubectl when
// the machine has neither). What podrun does with the rendered objects is what it does with any
// manifest, so one engine runs the pod.

/**
 * A base (a Pod, a ConfigMap generated from a literal) and an overlay adding a namespace, a name
 * prefix and a label, in the fields both the kustomize of Debian's old kubectl (v2) and a current
 * one (v5, which warns that they are deprecated) read.
 */
async function writeKustomization(dir: string, ns: string): Promise<string> {
  await mkdir(join(dir, "base"), { recursive: true });
  await mkdir(join(dir, "overlays", "ci"), { recursive: true });
  await writeFile(
    join(dir, "base", "pod.yaml"),
    `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: app
    image: ${BUSYBOX}
    command: [sh, -c, 'echo "greeting=$GREETING"; exec sleep 600']
    envFrom: [{configMapRef: {name: settings}}]
`,
  );
  await writeFile(
    join(dir, "base", "kustomization.yaml"),
    `resources: [pod.yaml]
configMapGenerator:
- name: settings
  literals: [GREETING=hello]
`,
  );
  await writeFile(
    join(dir, "overlays", "ci", "kustomization.yaml"),
    `namespace: ${ns}
namePrefix: ci-
commonLabels: {stage: ci}
bases: [../../base]
`,
  );
  return join(dir, "overlays", "ci");
}

t.test("validate -k: the rendered objects, checked as one set", async (t) => {
  if (!(await hasRenderer())) return void missing(t, "kustomize or kubectl on PATH");
  const dir = await mkdtemp(join(tmpdir(), "podrun-kustomize-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const overlay = await writeKustomization(dir, "kz");
  const checked = await runCli(["validate", "-k", overlay]);
  t.equal(checked.exitCode, 0, checked.stderr);
  t.match(checked.stdout, /Pod ci-web/, "the overlay's name prefix");
  const json = JSON.parse((await runCli(["validate", "-k", overlay, "--json"])).stdout) as {
    items: { kind: string; metadata: { name: string; namespace: string; labels?: Record<string, string> } }[];
  };
  const pod = json.items.find((item) => item.kind === "Pod")!;
  t.same([pod.metadata.namespace, pod.metadata.labels], ["kz", { stage: "ci" }], "its namespace and label");
  t.match(
    json.items.find((item) => item.kind === "ConfigMap")!.metadata.name,
    /^ci-settings-[a-z0-9]+$/,
    "the generated ConfigMap, hashed as kustomize names it",
  );

  const both = await runCli(["validate", "-k", overlay, join(dir, "base", "pod.yaml")]);
  t.equal(both.exitCode, 2);
  t.equal(both.stderr, "error: only one of -f or -k can be specified\n");
  await writeFile(join(dir, "overlays", "ci", "kustomization.yaml"), "resources: [../../nowhere]\n");
  const broken = await runCli(["validate", "-k", overlay]);
  t.equal(broken.exitCode, 2, "a kustomization that does not build: exit 2");
  t.match(broken.stderr, new RegExp(`^${overlay}: (kustomize build|kubectl kustomize) ${overlay} failed: `));
  t.equal(broken.stderr.split("\n").filter(Boolean).length, 1, "one line");
  const none = await runCli(["validate", "-k", overlay], { env: { PATH: "/nonexistent" } });
  t.equal(none.exitCode, 2);
  t.equal(
    none.stderr,
    `error: -k ${overlay}: neither kustomize nor kubectl is on PATH: install one (kubectl kustomize renders -k)\n`,
  );
});

for (const runtime of engineBlind("docker")) {
  t.test(`${runtime}: up -k runs the overlay's pod with its generated ConfigMap; down -k removes it`, async (t) => {
    if (!(await hasRenderer())) return void missing(t, "kustomize or kubectl on PATH");
    if (!(await requirePodEngine(t, runtime))) return;
    const dir = await mkdtemp(join(tmpdir(), "podrun-kustomize-"));
    const ns = uniqueName("kz");
    const env = { PODRUN_STATE_DIR: join(dir, "state") };
    t.teardown(async () => {
      await removeManagedContainers(runtime, { "io.kubernetes.pod.namespace": ns });
      await rm(dir, { recursive: true, force: true });
    });
    const overlay = await writeKustomization(dir, ns);
    const up = await runCli(["up", "-k", overlay, "--wait", "--runtime", runtime], { env });
    t.equal(up.exitCode, 0, up.stderr);
    const logs = await runCli(["logs", "ci-web", "-n", ns, "--runtime", runtime], { env });
    t.equal(logs.stdout, "greeting=hello\n", "the generated ConfigMap's value, in the pod");
    const down = await runCli(["down", "-k", overlay, "--runtime", runtime], { env });
    t.equal(down.exitCode, 0, down.stderr);
    const left = await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.namespace=${ns}`]);
    t.equal(left.stdout.trim(), "", "nothing of the pod is left");
  });
}

async function hasRenderer(): Promise<boolean> {
  for (const binary of ["kustomize", "kubectl"]) {
    const found = await runCommand("sh", ["-c", `command -v ${binary}`], { reject: false });
    if (found.exitCode === 0) return true;
  }
  return false;
}
