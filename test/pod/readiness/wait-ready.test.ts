import type { Container, Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { PodrunError } from "../../../lib/errors.js";
import type { InvolvedObject } from "../../../lib/events/types.js";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import type { PodIdentity } from "../../../lib/pod/identity.js";
import { isAbortError } from "../../../lib/process/abort.js";
import { resolveProbeAddress } from "../../../lib/pod/readiness/pod-address.js";
import type { ContainerProgress } from "../../../lib/pod/readiness/prober-types.js";
import { waitForPodReady } from "../../../lib/pod/readiness/wait-ready.js";
import type { ContainerState, ExecResult } from "../../../lib/runtime/types.js";
import { FakeRuntime } from "../../harness/fake-runtime.js";
import { after, FakeClock, T0 } from "../../harness/fake-clock.js";

// The kubelet's probe timing and threshold arithmetic, as timelines on a fake clock: the shared
// fake engine answers `inspect` and `exec` from the clock's time, so each case says at which second
// each probe ran and when the pod became ready. Real probes against real engines are in
// test/commands/up-wait.e2e.test.ts.

const identity: PodIdentity = { name: "web", namespace: "default", uid: "u-1" };

interface Script {
  /** The container's state at a time (seconds since T0); default: running since T0. */
  state?: (name: string, second: number) => Partial<ContainerState>;
  /** The exec probe's answer for `command[0]` at a time. */
  exec?: (name: string, command: readonly string[], second: number) => ExecResult;
}

function harness(containers: Container[], script: Script = {}, podSpec: Partial<Pod["spec"]> = {}) {
  const clock = new FakeClock();
  const pod = defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: { containers, ...podSpec },
  });
  const events: string[] = [];
  const execs: string[] = [];
  const progress: ContainerProgress[][] = [];
  const runtime = new FakeRuntime({ clock: () => clock.now() });
  const names = [...(pod.spec!.initContainers ?? []).filter((c) => c.restartPolicy === "Always"), ...containers].map(
    (c) => c.name,
  );
  const running: Partial<ContainerState> = {
    status: "running",
    running: true,
    exitCode: 0,
    startedAt: new Date(T0).toISOString(),
    finishedAt: "",
    restartCount: 0,
  };
  for (const name of names) {
    runtime.addContainer({
      id: `id-${name}`,
      name: `default_web_${name}`,
      labels: { "io.kubernetes.container.name": name },
      image: "busybox",
      startedAt: new Date(T0).toISOString(),
      logs: [`${name} line 1`, `${name} line 2`],
    });
    runtime.script(name, {
      exec: (command) => script.exec?.(name, command, clock.seconds) ?? { exitCode: 0, stdout: "", stderr: "" },
    });
  }
  // The engine reports each container as the script says it is at the fake clock's time.
  runtime.on("inspectContainers", () => {
    for (const name of names) runtime.setState(`id-${name}`, { ...running, ...script.state?.(name, clock.seconds) });
  });
  runtime.on("execInContainer", (call) => {
    const [id, command, options] = call.args as [string, readonly string[], { timeoutMs?: number } | undefined];
    execs.push(`${clock.seconds}s ${id.replace(/^id-/, "")} ${command.join(" ")} timeout=${options?.timeoutMs}`);
  });
  const recorder = {
    event: (object: InvolvedObject, type: string, reason: string, message: string) => {
      events.push(`${clock.seconds}s ${object.fieldPath} ${type} ${reason}: ${message}`);
      return undefined as never;
    },
  };
  const wait = (options: { timeoutMs?: number; signal?: AbortSignal } = {}) => {
    const promise = waitForPodReady({
      runtime,
      recorder,
      pod,
      identity,
      containers: [
        ...(pod.spec!.initContainers ?? [])
          .filter((c) => c.restartPolicy === "Always")
          .map((c) => ({ name: c.name, id: `id-${c.name}`, kind: "sidecar" as const })),
        ...containers.map((c) => ({ name: c.name, id: `id-${c.name}`, kind: "app" as const })),
      ],
      podIP: "10.0.0.5",
      timeoutMs: options.timeoutMs ?? 300_000,
      clock,
      onProgress: (p) => progress.push([...p]),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    promise.catch(() => undefined);
    return promise;
  };
  return { clock, events, execs, progress, wait };
}

const container = (name: string, extra: Partial<Container> = {}): Container => ({ name, image: "busybox", ...extra });
const execProbe = (command: string, timing: Record<string, number> = {}) => ({
  exec: { command: [command] },
  ...timing,
});
const ok: ExecResult = { exitCode: 0, stdout: "", stderr: "" };
const fail = (stdout = "not yet"): ExecResult => ({ exitCode: 1, stdout, stderr: "" });

t.test("no probe: ready as soon as the engine says it runs", async (t) => {
  const h = harness([container("app")]);
  const result = await after(h.clock, 0, h.wait());
  t.same(result, { containers: 1, elapsedMs: 0 });
  t.same(h.progress.at(-1), [{ name: "app", state: "Ready", ready: true, failed: false }]);
});

t.test(
  "readiness: first probe after initialDelaySeconds, then every periodSeconds, ready after successThreshold in a row",
  async (t) => {
    const h = harness(
      [
        container("app", {
          readinessProbe: execProbe("check", {
            initialDelaySeconds: 5,
            periodSeconds: 2,
            successThreshold: 3,
            timeoutSeconds: 4,
          }),
        }),
      ],
      {
        exec: (_name, _command, second) => (second >= 9 ? ok : fail()),
      },
    );
    const wait = h.wait();
    t.equal(await after(h.clock, 12.9, wait), "pending", "two successes are not enough");
    const result = await after(h.clock, 0.1, wait);
    t.same(result, { containers: 1, elapsedMs: 13_000 });
    t.same(h.execs, [
      "5s app check timeout=4000",
      "7s app check timeout=4000",
      "9s app check timeout=4000",
      "11s app check timeout=4000",
      "13s app check timeout=4000",
    ]);
    t.same(h.events, [
      '5s spec.containers{app} Warning Unhealthy: Readiness probe failed: command "check" exited with 1: not yet',
      '7s spec.containers{app} Warning Unhealthy: Readiness probe failed: command "check" exited with 1: not yet',
    ]);
    t.same(
      h.progress.map((p) => p[0]!.state),
      ["Waiting for readiness (0/3)", "Waiting for readiness (1/3)", "Waiting for readiness (2/3)", "Ready"],
    );
  },
);

t.test("readiness failureThreshold: a ready container stays ready until that many failures in a row", async (t) => {
  // a: passes at 0-2 s, fails from 3 s to 11 s, passes again from 12 s. b: ready from 10 s.
  const script: Script = {
    exec: (name, _command, second) =>
      name === "a" ? (second <= 2 || second >= 12 ? ok : fail()) : second >= 10 ? ok : fail(),
  };
  const pod = (failureThreshold: number) => [
    container("a", { readinessProbe: execProbe("check", { periodSeconds: 1, failureThreshold }) }),
    container("b", { readinessProbe: execProbe("check", { periodSeconds: 1 }) }),
  ];
  const tolerant = harness(pod(20), script);
  t.same(
    await after(tolerant.clock, 10, tolerant.wait()),
    { containers: 2, elapsedMs: 10_000 },
    "8 failures < 20: a is still ready at 10 s",
  );
  const strict = harness(pod(2), script);
  t.same(
    await after(strict.clock, 12, strict.wait()),
    { containers: 2, elapsedMs: 12_000 },
    "a lost readiness at 4 s and regained it at 12 s",
  );
});

t.test("startup probe first; readiness runs only once it passed, at once", async (t) => {
  const h = harness(
    [
      container("app", {
        startupProbe: execProbe("started", { periodSeconds: 1, failureThreshold: 5 }),
        readinessProbe: execProbe("ready", { periodSeconds: 10 }),
      }),
    ],
    { exec: (_name, command, second) => (command[0] === "started" && second < 3 ? fail("booting") : ok) },
  );
  const result = await after(h.clock, 3, h.wait());
  t.same(result, { containers: 1, elapsedMs: 3000 });
  t.same(
    h.execs.map((e) => e.replace(/ timeout=\d+/, "")),
    ["0s app started", "1s app started", "2s app started", "3s app started", "3s app ready"],
  );
  t.equal(h.events.filter((e) => e.includes("Startup probe failed: ")).length, 3);
  t.ok(h.progress.some((p) => p[0]!.state === "Waiting for startup probe (2/5 failures)"));
});

t.test("a startup probe that fails failureThreshold times ends the wait", async (t) => {
  const h = harness(
    [container("app", { startupProbe: execProbe("started", { periodSeconds: 1, failureThreshold: 3 }) })],
    { exec: () => fail("booting") },
  );
  const error = await after(h.clock, 2, h.wait());
  t.type(error, PodrunError);
  t.equal((error as PodrunError).reason, "StartupProbeFailed");
  t.match(
    (error as PodrunError).message,
    /^container app failed its startup probe 3 times in a row .*: Startup probe failed: command "started" exited with 1: booting$/,
  );
  t.match((error as PodrunError).details, /last log lines of container app:\n {4}app line 1\n {4}app line 2/);
  t.same(h.progress.at(-1), [{ name: "app", state: "Failed: startup probe", ready: false, failed: true }]);
});

t.test("timeout: each container not ready and why, then its last log lines", async (t) => {
  const h = harness(
    [
      container("app", { readinessProbe: execProbe("check", { periodSeconds: 1, successThreshold: 2 }) }),
      container("late", { readinessProbe: execProbe("check", { initialDelaySeconds: 60 }) }),
      container("sidecar"),
    ],
    { exec: () => fail("HTTP 503\n") },
  );
  const error = await after(h.clock, 5, h.wait({ timeoutMs: 5000 }));
  t.type(error, PodrunError);
  t.equal((error as PodrunError).reason, "ContainersNotReady");
  t.equal(
    (error as PodrunError).message,
    'not ready after 5s: container app: Readiness probe failed: command "check" exited with 1: HTTP 503 (0/2 successes); container late: Readiness probe not run yet (initialDelaySeconds: 60)',
  );
  t.equal(
    (error as PodrunError).details,
    "last log lines of container app:\n    app line 1\n    app line 2\nlast log lines of container late:\n    late line 1\n    late line 2",
  );
  t.equal(h.events.length, 5, "one Unhealthy event per failed attempt (0-4 s)");
  t.same(
    h.progress.at(-1)!.map((p) => [p.name, p.failed]),
    [
      ["app", true],
      ["late", true],
      ["sidecar", false],
    ],
  );
});

t.test("a container that exits under restartPolicy Never fails the wait at the next status read", async (t) => {
  const h = harness(
    [container("app", { readinessProbe: execProbe("check", { periodSeconds: 10 }) })],
    {
      state: (_name, second) => (second >= 2 ? { status: "exited", running: false, exitCode: 3 } : {}),
      exec: () => fail(),
    },
    { restartPolicy: "Never" },
  );
  const error = await after(h.clock, 2, h.wait());
  t.type(error, PodrunError);
  t.equal((error as PodrunError).reason, "ContainerTerminated");
  t.equal(
    (error as PodrunError).message,
    "container app exited with code 3 and restartPolicy Never does not restart it",
  );
  t.match((error as PodrunError).details, /app line 2/);
});

t.test("OnFailure: an exit with code 0 is final too", async (t) => {
  const h = harness(
    [container("app")],
    { state: () => ({ status: "exited", running: false, exitCode: 0 }) },
    { restartPolicy: "OnFailure" },
  );
  const error = await after(h.clock, 0, h.wait());
  t.equal(
    (error as PodrunError).message,
    "container app exited with code 0 and restartPolicy OnFailure does not restart it",
  );
});

t.test("restartPolicy Always: an exit is waited out; the restarted container starts its probes over", async (t) => {
  // Runs 0-3 s (passing once), restarting 3-5 s, runs again from 5 s (restartCount 1).
  const h = harness(
    [
      container("app", {
        readinessProbe: execProbe("check", { periodSeconds: 1, successThreshold: 2, initialDelaySeconds: 1 }),
      }),
    ],
    {
      state: (_name, second) =>
        second < 3
          ? {}
          : second < 5
            ? { status: "restarting", running: true, exitCode: 1 }
            : { restartCount: 1, startedAt: new Date(T0 + 5000).toISOString() },
      exec: (_name, _command, second) => (second === 1 || second >= 5 ? ok : fail()),
    },
  );
  const wait = h.wait();
  t.equal(await after(h.clock, 6.5, wait), "pending", "one success in the new run is not two");
  t.same(await after(h.clock, 0.5, wait), { containers: 1, elapsedMs: 7000 });
  t.same(
    h.execs.map((e) => e.split(" ")[0]),
    ["1s", "2s", "6s", "7s"],
    "no probe while restarting; the new run waits initialDelaySeconds again",
  );
  t.ok(h.progress.some((p) => p[0]!.state === "Restarting (exit code 1, 0 restarts)"));
});

t.test("Ctrl-C: the wait ends with an AbortError", async (t) => {
  const h = harness([container("app", { readinessProbe: execProbe("check") })], { exec: () => fail() });
  const controller = new AbortController();
  const wait = h.wait({ signal: controller.signal });
  await h.clock.advance(1000);
  controller.abort("SIGINT");
  const error = await after(h.clock, 0, wait);
  t.ok(isAbortError(error), "an AbortError (lib/process/abort.ts)");
});

t.test("gRPC probes are not run: one ProbeWarning, and the container counts as ready", async (t) => {
  const h = harness([container("app", { readinessProbe: { grpc: { port: 9000 } } })]);
  t.same(await after(h.clock, 0, h.wait()), { containers: 1, elapsedMs: 0 });
  t.same(h.events, [
    "0s spec.containers{app} Warning ProbeWarning: Readiness probe warning: gRPC probes are not supported by podrun: the probe is skipped and counts as a success",
  ]);
});

t.test("probe output in events: control characters escaped, long output cut", async (t) => {
  const h = harness([container("app", { readinessProbe: execProbe("check") })], {
    exec: () => fail(`\u001b[31mred\u001b[0m ${"x".repeat(3000)}`),
  });
  await after(h.clock, 0, h.wait({ timeoutMs: 100 }));
  const message = h.events[0]!;
  t.match(message, "exited with 1: ^[[31mred^[[0m xxx");
  t.notMatch(message, "\u001b");
  t.ok(message.length < 1200, `cut: ${message.length} characters`);
  t.match(message, /\.\.\. \(truncated\)$/);
});

t.test("network probes reach the pod IP, else a published hostPort on the loopback", async (t) => {
  const pod = defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: {
      containers: [{ name: "a", image: "x", ports: [{ containerPort: 80, hostPort: 18080 }, { containerPort: 81 }] }],
    },
  });
  t.same(resolveProbeAddress("10.0.0.5", pod, 80), { host: "10.0.0.5", port: 80 });
  t.same(resolveProbeAddress("", pod, 80), { host: "127.0.0.1", port: 18080 });
  t.equal(resolveProbeAddress("", pod, 81), undefined);
});

t.test(
  "sidecars: their readiness probe holds the pod back; an exit is the engine's to restart, whatever the pod's policy",
  async (t) => {
    const sidecar = container("proxy", {
      restartPolicy: "Always",
      readinessProbe: execProbe("proxy-ready", { periodSeconds: 1 }),
    });
    const h = harness(
      [container("app")],
      {
        // Exits at 1 s, restarted by the engine at 2 s.
        state: (name, second) =>
          name === "proxy" && second >= 1 && second < 2
            ? { status: "exited", running: false, exitCode: 1 }
            : name === "proxy" && second >= 2
              ? { restartCount: 1, startedAt: new Date(T0 + 2000).toISOString() }
              : {},
        exec: (name, _command, second) => (name === "proxy" && second < 4 ? fail("proxy warming up") : ok),
      },
      { restartPolicy: "Never", initContainers: [sidecar] },
    );
    const wait = h.wait();
    t.equal(await after(h.clock, 3, wait), "pending", "the app is ready, the sidecar not yet");
    t.same(await after(h.clock, 2, wait), { containers: 2, elapsedMs: 4000 });
    t.ok(
      h.events.some((e) =>
        e.includes(
          'spec.initContainers{proxy} Warning Unhealthy: Readiness probe failed: command "proxy-ready" exited with 1: proxy warming up',
        ),
      ),
      "the sidecar's events name the init container",
    );
    t.same(
      h.progress.at(-1)!.map((p) => `${p.name}:${p.state}`),
      ["proxy:Ready", "app:Ready"],
    );
  },
);
