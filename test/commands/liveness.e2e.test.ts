import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, uniqueName } from "../harness/engine-pod.js";
import { engineBlind, requirePodEngine } from "../harness/engine.js";

// livenessProbe while `podrun up --wait` waits, on the real engines: an exec probe that starts
// failing once the container removes its file is killed (Unhealthy, Killing) and made anew,
// `ps` counts the restart, `events` keeps the story; under restartPolicy Never the killed
// container ends the wait with exit 1. The timings: lib/pod/readiness/liveness.ts, unit-tested in
// test/pod/readiness/liveness.test.ts.

interface KubeEvent {
  type: string;
  reason: string;
  message: string;
  involvedObject: { fieldPath?: string };
}

interface PodList {
  items: { metadata: { name: string }; status: { containerStatuses: { name: string; restartCount: number }[] } }[];
}

// The first run marks the emptyDir (which outlives the container, as on a node), is alive for
// 3 s, then fails its liveness probe; the new container finds the mark and is alive and ready.
const podYaml = (name: string, restartPolicy: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: ${restartPolicy}
  terminationGracePeriodSeconds: 30
  volumes:
    - name: marks
      emptyDir: {}
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sh", "-c", "if [ -f /marks/ran ]; then touch /tmp/alive /tmp/ready; exec sleep 3600; fi; touch /marks/ran /tmp/alive; sleep 3; rm /tmp/alive; exec sleep 3600"]
      volumeMounts:
        - name: marks
          mountPath: /marks
      livenessProbe:
        exec:
          command: ["cat", "/tmp/alive"]
        periodSeconds: 1
        # An exec through a busy engine can take over the default 1 s: a timeout is a failure.
        timeoutSeconds: 5
        failureThreshold: 2
        terminationGracePeriodSeconds: 1
      readinessProbe:
        exec:
          command: ["cat", "/tmp/ready"]
        periodSeconds: 1
`;

async function setup(t: Test, runtime: RuntimeName, prefix: string) {
  if (!(await requirePodEngine(t, runtime))) return undefined;
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-e2e-state-"));
  const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-"));
  const name = uniqueName(prefix);
  const file = join(dir, `${name}.yaml`);
  const env = { PODRUN_STATE_DIR: stateDir };
  const podrun = (...args: string[]) => runCli([args[0]!, "--runtime", runtime, ...args.slice(1)], { env });
  t.teardown(async () => {
    await podrun("down", "--grace-period", "0", file); // its emptyDir volume and pod directory too
    await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
    await Promise.all([stateDir, dir].map((path) => rm(path, { recursive: true, force: true })));
  });
  return { name, file, stateDir, podrun, write: (yaml: string) => writeFile(file, yaml) };
}

t.jobs = 2;
for (const runtime of engineBlind("podman"))
  t.test(runtime, { buffered: true }, async (t) => {
    t.test(
      `${runtime}: a failing liveness probe kills the container and a new one takes its place; ps counts the restart`,
      async (t) => {
        const env = await setup(t, runtime, "restart");
        if (!env) return;
        await env.write(podYaml(env.name, "Always"));
        const started = Date.now();
        const up = await env.podrun("up", "--wait", "--timeout", "90s", "--json", env.file);
        t.equal(up.exitCode, 0, up.stderr);
        // The probe's terminationGracePeriodSeconds (1, so the kubelet's 2 s) over the pod's 30: a
        // `sleep` as PID 1 ignores SIGTERM and waits out whichever applies.
        t.ok(
          Date.now() - started < 25_000,
          `up --wait took ${Date.now() - started} ms: not the pod's 30 s grace period`,
        );
        t.match(
          up.stderr,
          /Warning: spec\.containers\[0\]\.livenessProbe: probed only while `podrun up --wait` waits .*not probed once podrun returns/,
          "the one Warning line about liveness",
        );
        const events = up.stdout
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as KubeEvent);
        const app = events.filter((e) => e.involvedObject.fieldPath === "spec.containers{app}");
        const order = app.map((e) => e.reason);
        const unhealthy = app.filter((e) => e.reason === "Unhealthy" && e.message.startsWith("Liveness"));
        t.ok(unhealthy.length >= 2, "failureThreshold Unhealthy events");
        t.match(unhealthy[0], {
          type: "Warning",
          message:
            /^Liveness probe failed: command "cat \/tmp\/alive" exited with 1: cat: can't open '\/tmp\/alive': No such file or directory$/,
        });
        const killing = app.findIndex((e) => e.reason === "Killing");
        t.same(app[killing], {
          ...app[killing],
          type: "Normal",
          message: "Container app failed liveness probe, will be restarted",
        });
        t.ok(killing > order.indexOf("Unhealthy"), "Killing after Unhealthy");
        t.ok(
          order.indexOf("Created", killing) > killing &&
            order.indexOf("Started", killing) > order.indexOf("Created", killing),
          `a new container: Created, Started after Killing (${order.join(" ")})`,
        );

        const ps = await env.podrun("ps", "--json");
        t.equal(ps.exitCode, 0, ps.stderr);
        const pod = (JSON.parse(ps.stdout) as PodList).items.find((p) => p.metadata.name === env.name);
        t.ok(
          (pod?.status.containerStatuses[0]?.restartCount ?? 0) >= 1,
          `ps: restartCount ${pod?.status.containerStatuses[0]?.restartCount}`,
        );
        const table = await env.podrun("ps");
        const row = table.stdout.split("\n").find((line) => line.startsWith(`${env.name} `)) ?? "";
        t.match(row, /^\S+\s+1\/1\s+Running\s+[1-9]/, `ps RESTARTS ≥ 1: ${row}`);

        const listed = await runCli(["events", "--json"], { env: { PODRUN_STATE_DIR: env.stateDir } });
        t.equal(listed.exitCode, 0, listed.stderr);
        const kept = listed.stdout
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as KubeEvent & { involvedObject: { name: string } });
        const mine = kept.filter((e) => e.involvedObject.name === env.name);
        t.ok(
          mine.some((e) => e.reason === "Unhealthy" && e.message.startsWith("Liveness probe failed: ")),
          "events: Unhealthy",
        );
        t.ok(
          mine.some(
            (e) => e.reason === "Killing" && e.message === "Container app failed liveness probe, will be restarted",
          ),
          "events: Killing",
        );

        // The kubelet's new container: a fresh root filesystem (the mark is in the emptyDir), alive.
        const alive = await runCommand(runtime, ["exec", `default_${env.name}_app`, "ls", "/tmp/alive", "/marks/ran"], {
          reject: false,
        });
        t.equal(alive.exitCode, 0, alive.stderr);

        // The new container is the manifest's container: `up` again keeps it, restart count included.
        const id = async () =>
          (await runCommand(runtime, ["inspect", "-f", "{{.Id}}", `default_${env.name}_app`])).stdout.trim();
        const before = await id();
        const again = await env.podrun("up", env.file);
        t.equal(again.exitCode, 0, again.stderr);
        t.equal(await id(), before, "kept");
      },
    );

    t.test(`${runtime}: restartPolicy Never: Killing without a restart, and up --wait fails with exit 1`, async (t) => {
      const env = await setup(t, runtime, "never");
      if (!env) return;
      await env.write(podYaml(env.name, "Never"));
      const up = await env.podrun("up", "--wait", "--timeout", "90s", "--json", env.file);
      t.equal(up.exitCode, 1, up.stderr);
      t.match(
        up.stderr,
        /Error: ContainerTerminated: .*container app exited with code \d+ and restartPolicy Never does not restart it/,
      );
      const events = up.stdout
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as KubeEvent);
      t.ok(
        events.some((e) => e.reason === "Killing" && e.message === "Container app failed liveness probe"),
        "Killing, without `will be restarted`",
      );
      t.equal(events.filter((e) => e.reason === "Started").length, 1, "no new container");
      const ps = await env.podrun("ps", "--json");
      const pod = (JSON.parse(ps.stdout) as PodList).items.find((p) => p.metadata.name === env.name);
      t.equal(pod?.status.containerStatuses[0]?.restartCount, 0);
    });
  });
