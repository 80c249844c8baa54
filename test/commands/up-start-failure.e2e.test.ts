import t from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { BUSYBOX, setupEnginePod, testPodHeader, uniqueName } from "../harness/engine-pod.js";
import { removeManagedContainers } from "../harness/cleanup.js";

// A container the engine makes but cannot start (its command does not exist in the image): the
// kubelet's RunContainerError, after Created. Two paths reach it: a container made while the
// sandbox starts, then started (an app container of a pod without init containers), and one made
// and started by a single `run` once the sandbox runs (an init container). Both must report the
// same events and leave nothing behind. And a pod whose containers all go through `run` works.

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: a container that cannot start`, async (t) => {
    const env = await setupEnginePod(t, runtime);
    if (!env) return;

    for (const kind of ["app", "init"] as const) {
      t.test(`${kind} container: Created, then Failed with RunContainerError; exit 1; nothing left`, async (t) => {
        const name = uniqueName(`nostart-${kind}`);
        t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
        const broken = `    - name: broken\n      image: ${BUSYBOX}\n      command: ["/no/such/binary"]\n`;
        const app = `    - name: app\n      image: ${BUSYBOX}\n      command: ["sleep", "60"]\n`;
        const yaml =
          testPodHeader(name) +
          (kind === "init" ? `  initContainers:\n${broken}  containers:\n${app}` : `  containers:\n${broken}`);
        const r = await env.up(name, yaml);
        t.equal(r.exitCode, 1, r.stderr);
        const lines = r.stdout.split("\n");
        const created = lines.findIndex((line) =>
          /Normal\s+Created\s+pod\/\S+\[broken\]\s+Created container: broken/.test(line),
        );
        const failed = lines.findIndex((line) =>
          /Warning\s+Failed\s+pod\/\S+\[broken\]\s+Error: .*no\/such\/binary/.test(line),
        );
        t.ok(created >= 0 && failed > created, `Created, then Failed:\n${r.stdout}`);
        t.notMatch(r.stdout, /Started\s+pod\/\S+\[broken\]/, "never Started");
        t.match(
          r.stderr.trimEnd().split("\n").at(-1),
          /^Error: RunContainerError: pod\/\S+: container broken: .*no\/such\/binary/,
        );
        const left = await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${name}`]);
        t.equal(left.stdout.trim(), "", "no container of the pod is left");
      });
    }

    t.test(
      "init containers and a sidecar made and started in one call each: the pod runs, events in the kubelet's order",
      async (t) => {
        const name = uniqueName("run-path");
        t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
        const yaml =
          testPodHeader(name) +
          `  initContainers:\n` +
          `    - name: first\n      image: ${BUSYBOX}\n      command: ["sh", "-c", "echo one > /work/first"]\n      volumeMounts: [{name: work, mountPath: /work}]\n` +
          `    - name: side\n      image: ${BUSYBOX}\n      restartPolicy: Always\n      command: ["sleep", "60"]\n` +
          `  containers:\n` +
          `    - name: app\n      image: ${BUSYBOX}\n      command: ["sleep", "60"]\n      volumeMounts: [{name: work, mountPath: /work}]\n` +
          `  volumes:\n    - name: work\n      emptyDir: {}\n`;
        const r = await env.up(name, yaml);
        t.equal(r.exitCode, 0, r.stderr);
        const steps = r.stdout
          .split("\n")
          .map((line) => /(Created|Started)\s+pod\/\S+\[(\w+)\]/.exec(line))
          .filter((m): m is RegExpExecArray => m !== null)
          .map((m) => `${m[1]} ${m[2]}`);
        t.same(steps.slice(0, 4), ["Created first", "Started first", "Created side", "Started side"]);
        t.same(steps.slice(4).sort(), ["Created app", "Started app"]);
        t.equal(
          (await env.exec(name, "app", ["cat", "/work/first"])).trim(),
          "one",
          "the init container ran before the app",
        );
        t.equal((await env.exec(name, "side", ["true"])).trim(), "", "the sidecar runs");
      },
    );
  });
}
