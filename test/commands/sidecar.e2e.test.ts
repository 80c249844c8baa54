import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { engineBlind, BUSYBOX, requirePodEngine } from "../harness/engine.js";

// Native sidecars (init containers with `restartPolicy: Always`) end to end on the real engines,
// checked from inside the containers and from the engine's own event stream: the sidecar serves
// HTTP on the pod's localhost before the next init container runs (which reaches it), the app
// reaches it too, `up --wait` honours its readiness probe and returns, `ps` counts it, `up` again
// keeps it, and `down` (by name: labels only) runs its preStop hook and stops it after the app.

interface KubeEvent {
  reason: string;
  message: string;
  involvedObject: { fieldPath?: string };
}

/** One engine event, whatever the engine: the container's runtime name, the action, when (ns). */
interface EngineEvent {
  name: string;
  action: string;
  nanos: bigint;
}

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;

// The sidecar writes its page, serves it (httpd forks into the background), and is ready 8 s
// later (long enough that its readiness probe fails at least once after its startup probe has
// passed, even when the suite's load makes each exec probe take a second or two); its shell exits on SIGTERM so that `down` is quick. The init container after it fails
// unless it reaches the sidecar on localhost; so does the app.
const podYaml = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  initContainers:
    - name: proxy
      image: ${BUSYBOX}
      restartPolicy: Always
      command: ["sh", "-c", "mkdir -p /www && echo sidecar-ok > /www/index.html && httpd -p 8081 -h /www; (sleep 8; touch /www/ready) & trap 'exit 0' TERM; while true; do sleep 1; done"]
      startupProbe:
        exec:
          command: ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8081/"]
        periodSeconds: 1
        failureThreshold: 10
      readinessProbe:
        exec:
          command: ["cat", "/www/ready"]
        periodSeconds: 1
      lifecycle:
        preStop:
          exec:
            command: ["sh", "-c", "echo draining"]
    - name: check
      image: ${BUSYBOX}
      command: ["wget", "-q", "-O-", "http://127.0.0.1:8081/"]
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sh", "-c", "wget -q -O- http://127.0.0.1:8081/ || exit 1; trap 'exit 0' TERM; while true; do sleep 1; done"]
`;

/** The pod's engine events since `sinceSeconds`, from the engine's own log (docker and podman). */
async function engineEvents(runtime: RuntimeName, pod: string, sinceSeconds: number): Promise<EngineEvent[]> {
  const filter = `label=io.kubernetes.pod.name=${pod}`;
  const args =
    runtime === "docker"
      ? [
          "events",
          "--since",
          String(sinceSeconds),
          "--until",
          (Date.now() / 1000).toFixed(3),
          "--filter",
          filter,
          "--format",
          "{{json .}}",
        ]
      : ["events", "--stream=false", "--since", String(sinceSeconds), "--filter", filter, "--format", "{{json .}}"];
  const { stdout } = await runCommand(runtime, args);
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .map((raw) => {
      if (runtime === "docker") {
        const actor = raw["Actor"] as { Attributes: Record<string, string> };
        return {
          name: actor.Attributes["name"] ?? "",
          action: String(raw["Action"]),
          nanos: BigInt(raw["timeNano"] as number),
        };
      }
      return { name: String(raw["Name"]), action: String(raw["Status"]), nanos: toNanos(String(raw["Time"])) };
    });
}

// RFC 3339 with up to nine fraction digits, as podman prints it.
function toNanos(time: string): bigint {
  const fraction = /\.(\d+)/.exec(time)?.[1] ?? "";
  const seconds = Math.floor(Date.parse(time.replace(/\.\d+/, "")) / 1000);
  return BigInt(seconds) * 1_000_000_000n + BigInt(fraction.padEnd(9, "0").slice(0, 9) || "0");
}

t.jobs = 2;
for (const runtime of engineBlind("docker")) {
  t.test(
    `${runtime}: a native sidecar runs beside the pod from its place in init order, and goes after the app`,
    async (t) => {
      if (!(await requirePodEngine(t, runtime))) return;
      const name = unique("sidecar");
      const dir = await mkdtemp(join(tmpdir(), "podrun-sidecar-"));
      const env = { PODRUN_STATE_DIR: await mkdtemp(join(tmpdir(), "podrun-sidecar-state-")) };
      t.teardown(() =>
        Promise.all([dir, env.PODRUN_STATE_DIR].map((path) => rm(path, { recursive: true, force: true }))),
      );
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const file = join(dir, "pod.yaml");
      await writeFile(file, podYaml(name));
      const runtimeName = (container: string) => `default_${name}_${container}`;

      // A sidecar that fails its startup probe fails `up` as a failing init container does, and
      // what the run made is removed: the init container after it never ran.
      const failing = unique("sidecar-fail");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": failing }));
      const failingFile = join(dir, "failing.yaml");
      await writeFile(
        failingFile,
        podYaml(failing)
          .replace('command: ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8081/"]', 'command: ["false"]')
          .replace("failureThreshold: 10", "failureThreshold: 1"),
      );
      const failed = await runCli(["up", "--runtime", runtime, failingFile], { env, timeoutMs: 60_000 });
      t.equal(failed.exitCode, 1, failed.stderr);
      t.match(
        failed.stderr,
        /Error: StartupProbeFailed: pod\/sidecar-fail-\w+: container proxy failed its startup probe/,
      );
      t.same(
        (await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${failing}`])).stdout.trim(),
        "",
        "undone",
      );

      const up = await runCli(["up", "--runtime", runtime, "--wait", "--timeout", "60s", "--json", file], {
        env,
        timeoutMs: 90_000,
      });
      t.equal(up.exitCode, 0, up.stderr);
      t.notMatch(up.stderr, /not supported/, "no warning: restartPolicy, probes and hooks of the sidecar are honoured");
      const events = up.stdout
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as KubeEvent);
      const of = (container: string, reason: string) =>
        events.findIndex(
          (e) => e.involvedObject.fieldPath === `spec.initContainers{${container}}` && e.reason === reason,
        );
      t.ok(
        of("proxy", "Started") >= 0 && of("proxy", "Started") < of("check", "Created"),
        "the sidecar starts before the next init container is created",
      );
      t.ok(
        events.some(
          (e) =>
            e.involvedObject.fieldPath === "spec.initContainers{proxy}" &&
            e.reason === "Unhealthy" &&
            e.message.startsWith("Readiness probe failed"),
        ),
        "--wait waited for the sidecar's readiness probe",
      );

      // From inside: the init container and the app reached the sidecar over the pod's localhost.
      t.equal((await runCommand(runtime, ["logs", runtimeName("check")])).stdout.trim(), "sidecar-ok");
      t.equal((await runCommand(runtime, ["logs", runtimeName("app")])).stdout.trim(), "sidecar-ok");
      const inspected = JSON.parse((await runCommand(runtime, ["inspect", runtimeName("proxy")])).stdout) as {
        State: { Running: boolean };
        HostConfig: { RestartPolicy: { Name: string } };
      }[];
      t.equal(inspected[0]!.State.Running, true, "the sidecar keeps running beside the app");
      t.equal(
        inspected[0]!.HostConfig.RestartPolicy.Name,
        "always",
        "restarted always, whatever the pod's restartPolicy",
      );

      const ps = await runCli(["ps", "--runtime", runtime, name], { env });
      t.equal(ps.exitCode, 0, ps.stderr);
      t.match(
        ps.stdout.split("\n")[1] ?? "",
        new RegExp(`^${name}\\s+2/2\\s+Running\\s`),
        "READY counts the sidecar; STATUS Running",
      );

      // `up` again: the pod is kept whole, the running sidecar with it (same container).
      const proxyId = (
        await runCommand(runtime, ["inspect", "--format", "{{.Id}}", runtimeName("proxy")])
      ).stdout.trim();
      const again = await runCli(["up", "--runtime", runtime, file], { env });
      t.equal(again.exitCode, 0, again.stderr);
      t.match(again.stdout, /unchanged/);
      t.equal(
        (await runCommand(runtime, ["inspect", "--format", "{{.Id}}", runtimeName("proxy")])).stdout.trim(),
        proxyId,
        "the sidecar is kept",
      );

      // `down` by name: no manifest, the labels say which container is the sidecar and hold its hook.
      const downStart = BigInt(Date.now()) * 1_000_000n;
      const down = await runCli(["down", "--runtime", runtime, name], { env });
      t.equal(down.exitCode, 0, down.stderr);
      const engine = await engineEvents(runtime, name, Math.floor(Date.now() / 1000) - 60);
      const died = (container: string) =>
        engine.find(
          (e) =>
            e.name === runtimeName(container) && (e.action === "die" || e.action === "died") && e.nanos >= downStart,
        )?.nanos;
      const appDied = died("app");
      const proxyDied = died("proxy");
      t.ok(
        appDied !== undefined && proxyDied !== undefined,
        `the engine saw both exit: ${JSON.stringify(engine.filter((e) => e.nanos >= downStart).map((e) => `${e.name} ${e.action}`))}`,
      );
      t.ok(appDied! < proxyDied!, "the app container exited before the sidecar (engine timestamps)");
      const hook = engine.find(
        (e) =>
          e.name === runtimeName("proxy") &&
          (e.action.startsWith("exec_start") || e.action === "exec") &&
          e.nanos >= downStart,
      );
      t.ok(hook !== undefined && hook.nanos < proxyDied!, "the sidecar's preStop hook ran in it before it was stopped");
      t.same(
        (await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${name}`])).stdout.trim(),
        "",
        "nothing left",
      );
    },
  );
}
