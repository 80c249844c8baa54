import type { Container, Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { PodrunError } from "../../../lib/errors.js";
import type { InvolvedObject } from "../../../lib/events/types.js";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import type { PodIdentity } from "../../../lib/pod/identity.js";
import { waitForPodReady } from "../../../lib/pod/readiness/wait-ready.js";
import { LABEL_RESTART_COUNT, type ExecResult } from "../../../lib/runtime/types.js";
import { FakeRuntime } from "../../harness/fake-runtime.js";
import { after, FakeClock } from "../../harness/fake-clock.js";

// Liveness probes while `up --wait` waits (lib/pod/readiness/liveness.ts), on a fake clock and the
// fake engine: when each probe runs, the threshold, the kill (Killing, preStop, the grace period),
// the new container with its restart count, and the events, in the kubelet's words. The real
// engines: test/commands/liveness.e2e.test.ts.

const identity: PodIdentity = { name: "web", namespace: "default", uid: "u-1" };

const ok: ExecResult = { exitCode: 0, stdout: "", stderr: "" };
const fail = (stdout = "gone"): ExecResult => ({ exitCode: 1, stdout, stderr: "" });

/**
 * One pod whose containers run from T0. `exec` answers each probe from the container's name, the
 * command, its generation (0, then 1 after the first restart…) and the time; `restartContainer`
 * makes a new running container as start-pod.ts would, labelled with its restart count.
 */
function harness(
  containers: Container[],
  exec: (name: string, command: string, generation: number, second: number) => ExecResult | Promise<ExecResult>,
  podSpec: Partial<Pod["spec"]> = {},
) {
  const clock = new FakeClock();
  const pod = defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: { containers, ...podSpec },
  });
  const events: string[] = [];
  const calls: string[] = [];
  const generation = new Map<string, number>();
  const runtime = new FakeRuntime({ clock: () => clock.now() });
  const add = (name: string, id: string, labels: Record<string, string> = {}) => {
    runtime.addContainer({
      id,
      name: `default_web_${name}`,
      labels: { "io.kubernetes.container.name": name, ...labels },
      image: "busybox",
      startedAt: new Date(clock.now()).toISOString(),
    });
    runtime.script(name, {
      exec: (command) => exec(name, command.join(" "), generation.get(name) ?? 0, clock.seconds),
    });
  };
  for (const c of containers) add(c.name, `id-${c.name}`);
  for (const method of ["stopContainer", "removeContainers", "execInContainer"] as const) {
    runtime.on(
      method,
      (call) =>
        void calls.push(
          `${clock.seconds}s ${call.method} ${call.subject} ${method === "stopContainer" ? String(call.args[1]) : method === "execInContainer" ? (call.args[1] as string[]).join(" ") : ""}`.trimEnd(),
        ),
    );
  }
  const restarts: string[] = [];
  const restartContainer = async (name: string, restartCount: number) => {
    const next = (generation.get(name) ?? 0) + 1;
    generation.set(name, next);
    restarts.push(`${clock.seconds}s ${name} restartCount=${restartCount}`);
    const id = `id-${name}-${next}`;
    add(name, id, { [LABEL_RESTART_COUNT]: String(restartCount) });
    // The fake engine reads no labels: the CLI runtime adds the label to the engine's count.
    runtime.setState(id, { restartCount });
    return id;
  };
  const recorder = {
    event: (object: InvolvedObject, type: string, reason: string, message: string) => {
      events.push(`${clock.seconds}s ${object.fieldPath} ${type} ${reason}: ${message}`);
      return undefined as never;
    },
  };
  const wait = (options: { timeoutMs?: number; liveness?: boolean } = {}) => {
    const promise = waitForPodReady({
      runtime,
      recorder,
      pod,
      identity,
      containers: containers.map((c) => ({ name: c.name, id: `id-${c.name}`, kind: "app" as const })),
      podIP: "10.0.0.5",
      timeoutMs: options.timeoutMs ?? 300_000,
      clock,
      ...(options.liveness === false ? {} : { liveness: { runtime, restartContainer } }),
    });
    promise.catch(() => undefined);
    return promise;
  };
  return { clock, events, calls, restarts, runtime, wait };
}

const app = (extra: Partial<Container> = {}): Container => ({ name: "app", image: "busybox", ...extra });
const live = (timing: Record<string, number> = {}) => ({
  exec: { command: ["cat", "/tmp/alive"] },
  periodSeconds: 1,
  ...timing,
});
const ready = { exec: { command: ["cat", "/tmp/ready"] }, periodSeconds: 1 };

t.test(
  "failureThreshold failures in a row: Unhealthy each time, Killing, the stop with the probe's grace period, a new container with restart count 1",
  async (t) => {
    // Alive until 3 s; the new container is alive and ready at once.
    const h = harness(
      [app({ livenessProbe: live({ failureThreshold: 3, terminationGracePeriodSeconds: 5 }), readinessProbe: ready })],
      (_name, command, generation, second) =>
        generation > 0 ? ok : command.includes("alive") && second < 3 ? ok : fail("cat: can't open '/tmp/alive'"),
    );
    const wait = h.wait();
    const result = await after(h.clock, 10, wait);
    t.same(result, { containers: 1, elapsedMs: 5000 });
    const liveness = h.events.filter((e) => !e.includes("Readiness"));
    t.same(liveness, [
      "3s spec.containers{app} Warning Unhealthy: Liveness probe failed: command \"cat /tmp/alive\" exited with 1: cat: can't open '/tmp/alive'",
      "4s spec.containers{app} Warning Unhealthy: Liveness probe failed: command \"cat /tmp/alive\" exited with 1: cat: can't open '/tmp/alive'",
      "5s spec.containers{app} Warning Unhealthy: Liveness probe failed: command \"cat /tmp/alive\" exited with 1: cat: can't open '/tmp/alive'",
      "5s spec.containers{app} Normal Killing: Container app failed liveness probe, will be restarted",
    ]);
    t.same(
      h.calls.filter((c) => !c.includes("execInContainer")),
      ["5s stopContainer app 5", "5s removeContainers app"],
    );
    t.same(h.restarts, ["5s app restartCount=1"], "the first restart is at once (no back-off yet)");
    t.same(
      h.calls.filter((c) => c.includes("alive")).map((c) => c.split(" ")[0]),
      ["0s", "1s", "2s", "3s", "4s", "5s", "5s"],
      "probed every periodSeconds from the start, then the new container from its own start",
    );
    t.equal(h.runtime.container("app")!.restartCount, 1);
  },
);

t.test(
  "the pod's grace period when the probe has none, at least 2 s; preStop runs first and its time counts",
  async (t) => {
    const h = harness(
      [
        app({
          livenessProbe: live({ failureThreshold: 1 }),
          readinessProbe: ready,
          lifecycle: { preStop: { exec: { command: ["drain"] } } },
        }),
      ],
      (_name, command, generation) => (command === "drain" ? ok : generation > 0 ? ok : fail()),
      { terminationGracePeriodSeconds: 1 },
    );
    // A ready pod ends the wait: keep it waiting with a container that never gets ready.
    await after(h.clock, 2, h.wait({ timeoutMs: 2000 }));
    t.same(
      h.calls.filter((c) => !c.includes("cat /tmp/")),
      ["0s execInContainer app drain", "0s stopContainer app 2", "0s removeContainers app"],
    );
    const h30 = harness(
      [app({ livenessProbe: live({ failureThreshold: 1 }), readinessProbe: ready })],
      (_n, _c, generation) => (generation > 0 ? ok : fail()),
    );
    await after(h30.clock, 1, h30.wait({ timeoutMs: 1000 }));
    t.same(
      h30.calls.filter((c) => c.includes("stopContainer")),
      ["0s stopContainer app 30"],
      "the pod's default 30 s",
    );
  },
);

t.test("restartPolicy Never: Killing without the restart, and the wait fails as for any exit", async (t) => {
  const h = harness(
    [app({ livenessProbe: live({ failureThreshold: 2 }), readinessProbe: ready })],
    (_n, command) => (command.includes("alive") ? fail() : fail("not ready")),
    { restartPolicy: "Never" },
  );
  const error = await after(h.clock, 3, h.wait());
  t.type(error, PodrunError);
  t.equal((error as PodrunError).reason, "ContainerTerminated");
  t.equal(
    (error as PodrunError).message,
    "container app exited with code 137 and restartPolicy Never does not restart it",
  );
  t.ok(h.events.includes("1s spec.containers{app} Normal Killing: Container app failed liveness probe"));
  t.same(h.restarts, []);
  t.same(
    h.calls.filter((c) => c.includes("removeContainers")),
    [],
    "the killed container stays, for its logs",
  );
});

t.test("OnFailure restarts too (the kubelet restarts unless Never), whatever the exit code", async (t) => {
  const h = harness(
    [app({ livenessProbe: live({ failureThreshold: 1 }) })],
    (_n, _c, generation) => (generation > 0 ? ok : fail()),
    { restartPolicy: "OnFailure" },
  );
  t.same(await after(h.clock, 1, h.wait()), { containers: 1, elapsedMs: 0 }, "no readiness probe: ready at once");
  const slow = harness(
    [app({ livenessProbe: live({ failureThreshold: 1 }), readinessProbe: ready })],
    (_n, command, generation) =>
      generation > 0 || command.includes("ready") ? (generation > 0 ? ok : fail()) : fail(),
    { restartPolicy: "OnFailure" },
  );
  await after(slow.clock, 3, slow.wait());
  t.same(slow.restarts, ["0s app restartCount=1"]);
  t.ok(
    slow.events.includes(
      "0s spec.containers{app} Normal Killing: Container app failed liveness probe, will be restarted",
    ),
  );
});

t.test("not probed before initialDelaySeconds, nor before the startup probe passed", async (t) => {
  const h = harness(
    [
      app({
        startupProbe: { exec: { command: ["started"] }, periodSeconds: 1, failureThreshold: 10 },
        livenessProbe: live({ initialDelaySeconds: 2 }),
        readinessProbe: ready,
      }),
    ],
    (_n, command, _g, second) =>
      command === "started" ? (second >= 4 ? ok : fail()) : command.includes("ready") ? fail() : ok,
  );
  await after(h.clock, 7, h.wait({ timeoutMs: 7000 }));
  t.same(
    h.calls.filter((c) => c.includes("alive")).map((c) => c.split(" ")[0]),
    ["5s", "6s"],
    "the startup probe passed at 4 s: probed from the next look at the container on (initialDelaySeconds long past)",
  );
  const delayed = harness(
    [app({ livenessProbe: live({ initialDelaySeconds: 3 }), readinessProbe: ready })],
    (_n, command) => (command.includes("ready") ? fail() : ok),
  );
  await after(delayed.clock, 5, delayed.wait({ timeoutMs: 5000 }));
  t.same(
    delayed.calls.filter((c) => c.includes("alive")).map((c) => c.split(" ")[0]),
    ["3s", "4s"],
  );
});

t.test("successes between failures start the count over; a probe that errors counts neither way", async (t) => {
  // fail, ok, fail, fail (2 in a row: below 3), errored, fail: the third in a row at 6 s.
  const answers: (ExecResult | Error)[] = [
    fail(),
    ok,
    fail(),
    fail(),
    new Error("exec failed: container is paused"),
    fail(),
    ok,
  ];
  const h = harness(
    [app({ livenessProbe: live({ failureThreshold: 3 }), readinessProbe: ready })],
    (_n, command, generation) => {
      if (command.includes("ready")) return generation > 0 ? ok : fail();
      if (generation > 0) return ok;
      const answer = answers.shift() ?? ok;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  );
  await after(h.clock, 7, h.wait());
  t.same(h.restarts, ["5s app restartCount=1"]);
  t.ok(
    h.events.some(
      (e) =>
        e.startsWith("4s") && e.includes("Warning Unhealthy: Liveness probe errored: exec failed: container is paused"),
    ),
  );
});

t.test(
  "a second liveness restart waits out the kubelet's back-off (10 s) with a BackOff event; the count goes on",
  async (t) => {
    const h = harness(
      [app({ livenessProbe: live({ failureThreshold: 1 }), readinessProbe: ready })],
      (_n, command, generation) => (generation >= 2 ? ok : command.includes("ready") ? fail() : fail()),
    );
    await after(h.clock, 20, h.wait());
    // 10 s after the first new container's exit (the fake engine's times step 1 ms per event).
    t.same(
      h.restarts.map((r) => r.replace(/^(\d+)\.\d+s/, "$1s")),
      ["0s app restartCount=1", "10s app restartCount=2"],
    );
    t.ok(
      h.events.includes(
        "0s spec.containers{app} Warning BackOff: Back-off restarting failed container app in pod web_default(u-1)",
      ),
    );
    t.same(
      h.calls.filter((c) => c.includes("removeContainers")).map((c) => c.replace(/^(\d+)\.\d+s/, "$1s")),
      ["0s removeContainers app", "10s removeContainers app"],
    );
  },
);

t.test("a new container that cannot be made fails the wait with the start's error", async (t) => {
  const h = harness([app({ livenessProbe: live({ failureThreshold: 1 }), readinessProbe: ready })], () => fail());
  const wait = waitForPodReady({
    runtime: h.runtime,
    recorder: { event: () => undefined as never },
    pod: defaultPod({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web" },
      spec: { containers: [app({ livenessProbe: live({ failureThreshold: 1 }), readinessProbe: ready })] },
    }),
    identity,
    containers: [{ name: "app", id: "id-app", kind: "app" }],
    podIP: "10.0.0.5",
    timeoutMs: 60_000,
    clock: h.clock,
    liveness: {
      runtime: h.runtime,
      restartContainer: () =>
        Promise.reject(new PodrunError("CreateContainerError", "container app: no space left on device")),
    },
  });
  const error = await after(h.clock, 1, wait);
  t.type(error, PodrunError);
  t.equal((error as PodrunError).message, "container app: no space left on device");
});

t.test("without the liveness option (a sidecar's startup wait, a test) nothing is probed for liveness", async (t) => {
  const h = harness([app({ livenessProbe: live({ failureThreshold: 1 }) })], () => fail());
  t.same(await after(h.clock, 0, h.wait({ liveness: false })), { containers: 1, elapsedMs: 0 });
  t.same(h.calls, []);
});

t.test("gRPC liveness probes are not run: one ProbeWarning", async (t) => {
  const h = harness([app({ livenessProbe: { grpc: { port: 9000 } }, readinessProbe: ready })], (_n, _c, _g, second) =>
    second >= 2 ? ok : fail(),
  );
  await after(h.clock, 3, h.wait());
  t.same(
    h.events.filter((e) => e.includes("Liveness")),
    [
      "0s spec.containers{app} Warning ProbeWarning: Liveness probe warning: gRPC probes are not supported by podrun: the probe is skipped and counts as a success",
    ],
  );
  t.same(h.restarts, []);
});

t.test(
  "a readiness result that answers while the container is killed counts for nothing: the wait does not end ready mid-restart",
  async (t) => {
    // The old container's readiness probe answers "ready" only once its kill has begun.
    let killed!: () => void;
    const killing = new Promise<void>((resolve) => (killed = resolve));
    const h = harness(
      [app({ livenessProbe: live({ failureThreshold: 1 }), readinessProbe: ready })],
      (_n, command, generation) =>
        command.includes("alive") ? (generation === 0 ? fail() : ok) : generation === 0 ? killing.then(() => ok) : ok,
    );
    h.runtime.on("stopContainer", () => killed());
    const result = await after(h.clock, 2, h.wait());
    t.same(h.restarts, ["0s app restartCount=1"], "restarted before the wait ended");
    t.same(result, { containers: 1, elapsedMs: 0 });
  },
);
