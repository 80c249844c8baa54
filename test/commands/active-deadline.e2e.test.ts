import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { parseEngineTime } from "../../lib/pod/active-deadline.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, uniqueName } from "../harness/engine-pod.js";
import { engineBlind, requirePodEngine } from "../harness/engine.js";

// spec.activeDeadlineSeconds on the real engines: `up --wait` fails the pod when its deadline
// passes (the kubelet's DeadlineExceeded event and message, the containers stopped and kept), and
// a pod left running past its deadline shows as DeadlineExceeded in `ps`; an `up` of it then
// fails it as a node would. The arithmetic and the status: test/pod/active-deadline.test.ts.

interface KubeEvent {
  type: string;
  reason: string;
  message: string;
  involvedObject: { fieldPath?: string };
}

const events = (stdout: string): KubeEvent[] =>
  stdout
    .trim()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as KubeEvent);
const lastLine = (text: string) => text.trimEnd().split("\n").at(-1) ?? "";

// The container ends on the stop signal at once, so that the kill takes no grace period to speak of.
const podYaml = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  activeDeadlineSeconds: 2
  terminationGracePeriodSeconds: 10
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sh", "-c", "trap 'exit 0' TERM; echo started; while true; do sleep 0.2; done"]
      readinessProbe:
        exec:
          command: ["false"]
        periodSeconds: 1
`;

async function setup(t: Test, runtime: RuntimeName, prefix: string) {
  if (!(await requirePodEngine(t, runtime))) return undefined;
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-deadline-state-"));
  const dir = await mkdtemp(join(tmpdir(), "podrun-deadline-"));
  const name = uniqueName(prefix);
  t.teardown(async () => {
    await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
    await Promise.all([stateDir, dir].map((path) => rm(path, { recursive: true, force: true })));
  });
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, podYaml(name));
  const env = { PODRUN_STATE_DIR: stateDir };
  return {
    name,
    file,
    podrun: (args: string[]) => runCli([...args, "--runtime", runtime], { env }),
    /** The pod's start (its infra container's creation) and the app container's exit, from the engine (ms). */
    times: async () => {
      const inspect = async (container: string) =>
        (
          JSON.parse((await runCommand(runtime, ["inspect", `default_${name}_${container}`])).stdout) as {
            Created: string;
            State: { FinishedAt: string };
          }[]
        )[0]!;
      const [infra, app] = await Promise.all([inspect("POD"), inspect("app")]);
      return { startMs: parseEngineTime(infra.Created)!, stoppedMs: parseEngineTime(app.State.FinishedAt)! };
    },
    /** The app container's engine state: running, exited… ("" when it is gone). */
    appState: async () =>
      (
        await runCommand(runtime, ["inspect", "--format", "{{.State.Status}}", `default_${name}_app`], {
          reject: false,
        })
      ).stdout.trim(),
  };
}

t.jobs = 2;
for (const runtime of engineBlind("docker"))
  t.test(runtime, { buffered: true }, async (t) => {
    t.test(
      `${runtime}: up --wait fails at the deadline with DeadlineExceeded, the containers stopped and kept`,
      async (t) => {
        const env = await setup(t, runtime, "deadline-wait");
        if (!env) return;
        const began = Date.now();
        const r = await env.podrun(["up", "--wait", "--json", env.file]);
        const seconds = (Date.now() - began) / 1000;
        t.equal(r.exitCode, 1, r.stderr);
        t.equal(
          lastLine(r.stderr),
          `Error: DeadlineExceeded: pod/${env.name}: Pod was active on the node longer than the specified deadline (activeDeadlineSeconds: 2)`,
        );
        // Counted from the pod's start, as the kubelet counts; the kill is quick (the container ends on
        // SIGTERM). Past 2 s only by what it took to start the pod when the engine is slow.
        const { startMs, stoppedMs } = await env.times();
        const active = (stoppedMs - startMs) / 1000;
        t.ok(
          active >= 2 && active < 15,
          `stopped ${active.toFixed(2)} s after the pod started (up took ${seconds.toFixed(1)} s)`,
        );
        t.ok(seconds < 60, "long before the wait's own timeout (5m)");
        const list = events(r.stdout);
        const deadline = list.findIndex((e) => e.reason === "DeadlineExceeded");
        t.match(
          list[deadline],
          { type: "Normal", message: "Pod was active on the node longer than the specified deadline" },
          "the kubelet's event, on the pod",
        );
        t.equal(list[deadline]?.involvedObject.fieldPath, undefined);
        const killing = list.findIndex((e) => e.reason === "Killing");
        t.ok(killing > deadline, "then Killing");
        t.match(list[killing], {
          type: "Normal",
          message: "Stopping container app",
          involvedObject: { fieldPath: "spec.containers{app}" },
        });
        t.match(await env.appState(), /^(exited|stopped)$/, "stopped, not removed");

        const ps = await env.podrun(["ps", env.name]);
        t.equal(ps.exitCode, 0, ps.stderr);
        t.match(ps.stdout, new RegExp(`^${env.name} +0/1 +DeadlineExceeded +0 `, "m"));
        const json = await env.podrun(["ps", "--json", env.name]);
        t.match(JSON.parse(json.stdout), {
          items: [
            {
              status: {
                phase: "Failed",
                reason: "DeadlineExceeded",
                message: "Pod was active on the node longer than the specified deadline",
              },
            },
          ],
        });
        const logs = await env.podrun(["logs", env.name]);
        t.match(logs.stdout, /started/, "its logs are still there");
        const down = await env.podrun(["down", env.file]);
        t.equal(down.exitCode, 0, down.stderr);
        t.equal(await env.appState(), "", "down removes it");
      },
    );

    t.test(
      `${runtime}: without --wait: a Warning, ps shows DeadlineExceeded once it passed, and up then fails the pod`,
      async (t) => {
        const env = await setup(t, runtime, "deadline-ps");
        if (!env) return;
        const r = await env.podrun(["up", env.file]);
        t.equal(r.exitCode, 0, r.stderr);
        t.match(
          r.stderr,
          `Warning: spec.activeDeadlineSeconds: enforced only while podrun up --wait waits: nothing stops pod/${env.name} when its 2s pass; podrun ps then shows it as DeadlineExceeded`,
        );
        await new Promise((resolve) => setTimeout(resolve, 2500));
        const after = await env.podrun(["ps", env.name]);
        t.match(after.stdout, new RegExp(`^${env.name} +0/1 +DeadlineExceeded `, "m"));
        t.equal(await env.appState(), "running", "nothing stopped it: podrun was not running");

        const again = await env.podrun(["up", "--json", env.file]);
        t.equal(again.exitCode, 1, again.stderr);
        t.match(lastLine(again.stderr), /^Error: DeadlineExceeded: /);
        t.match(again.stderr, `left stopped (podrun down ${env.file} removes it; up --replace runs it anew)`);
        t.same(
          events(again.stdout).map((e) => e.reason),
          ["DeadlineExceeded", "Killing"],
          "failed as a node fails it: nothing started",
        );
        t.match(await env.appState(), /^(exited|stopped)$/);
      },
    );
  });
