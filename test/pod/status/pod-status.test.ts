import t from "tap";
import type { PodRecord } from "../../../lib/pod/status/find-pods.js";
import {
  formatRestarts,
  podPhase,
  printPodStatus,
  summarizePod,
  toContainerStatus,
} from "../../../lib/pod/status/pod-status.js";
import { formatHumanDuration } from "../../../lib/text/human-duration.js";
import { toPodObject } from "../../../lib/pod/status/pod-object.js";
import type { ContainerState } from "../../../lib/runtime/types.js";

// The kubelet's container states, its pod phase and kubectl's STATUS column, from engine states
// (fixtures shaped as inspect.ts reads docker and podman). The real engines: test/commands/ps.e2e.test.ts.

const T0 = "2026-01-01T10:00:00.123456789Z";
let serial = 0;

function container(
  name: string,
  kind: "init" | "sidecar" | "app" | "infra",
  state: Partial<ContainerState> = {},
): ContainerState {
  serial++;
  return {
    id: `${String(serial).padStart(2, "0")}${"ab".repeat(31)}`,
    name: `default_web_${name}`,
    status: "running",
    running: true,
    exitCode: 0,
    startedAt: T0,
    finishedAt: "",
    createdAt: `2026-01-01T09:59:${String(serial % 60).padStart(2, "0")}Z`,
    restartCount: 0,
    labels: {
      "io.kubernetes.pod.name": "web",
      "io.kubernetes.pod.namespace": "default",
      "io.kubernetes.container.name": name,
      "io.podrun.container.kind": kind,
    },
    image: "busybox:1.36",
    ...state,
  };
}

const exited = (exitCode: number, extra: Partial<ContainerState> = {}): Partial<ContainerState> => ({
  status: "exited",
  running: false,
  exitCode,
  finishedAt: "2026-01-01T10:00:05Z",
  ...extra,
});
const created: Partial<ContainerState> = { status: "created", running: false, startedAt: "" };

function pod(init: ContainerState[], app: ContainerState[], options: { hostNetwork?: boolean } = {}): PodRecord {
  const infra = options.hostNetwork
    ? undefined
    : container("POD", "infra", { ip: "10.88.0.7", createdAt: "2026-01-01T09:58:00Z" });
  return {
    name: "web",
    namespace: "default",
    uid: "uid-1",
    ...(infra ? { infra } : {}),
    initContainers: init,
    appContainers: app,
  };
}

t.test("STATUS, READY and phase, case by case", async (t) => {
  const cases: { name: string; pod: PodRecord; status: string; ready: string; phase: string; restarts?: number }[] = [
    {
      name: "two running containers",
      pod: pod([], [container("app", "app"), container("sidecar", "app")]),
      status: "Running",
      ready: "2/2",
      phase: "Running",
    },
    {
      name: "exited 1 under Never",
      pod: pod([], [container("app", "app", exited(1))]),
      status: "Error",
      ready: "0/1",
      phase: "Failed",
    },
    {
      name: "exited 0",
      pod: pod([], [container("app", "app", exited(0))]),
      status: "Completed",
      ready: "0/1",
      phase: "Succeeded",
    },
    {
      name: "created, not started",
      pod: pod([], [container("app", "app", created)]),
      status: "Pending",
      ready: "0/1",
      phase: "Pending",
    },
    {
      name: "docker restarting (its back-off)",
      pod: pod(
        [],
        [
          container("app", "app", {
            status: "restarting",
            running: true,
            exitCode: 2,
            restartCount: 3,
            finishedAt: "2026-01-01T10:00:05Z",
          }),
        ],
      ),
      status: "CrashLoopBackOff",
      ready: "0/1",
      phase: "Running",
      restarts: 3,
    },
    {
      name: "exited non-zero after restarts (podman between two restarts)",
      pod: pod([], [container("app", "app", exited(2, { restartCount: 4 }))]),
      status: "CrashLoopBackOff",
      ready: "0/1",
      phase: "Running",
      restarts: 4,
    },
    {
      name: "OnFailure that finally succeeded",
      pod: pod([], [container("app", "app", exited(0, { restartCount: 2 }))]),
      status: "Completed",
      ready: "0/1",
      phase: "Succeeded",
      restarts: 2,
    },
    {
      name: "one completed, one running: NotReady (kubectl's word while a container is done)",
      pod: pod([], [container("job", "app", exited(0)), container("server", "app")]),
      status: "NotReady",
      ready: "1/2",
      phase: "Running",
    },
    {
      name: "the first container's reason wins",
      pod: pod([], [container("a", "app", exited(1)), container("b", "app", exited(0))]),
      status: "Error",
      ready: "0/2",
      phase: "Failed",
    },
    {
      name: "first of two init containers running",
      pod: pod([container("init-a", "init"), container("init-b", "init", created)], []),
      status: "Init:0/2",
      ready: "0/0",
      phase: "Pending",
    },
    {
      name: "second init container running",
      pod: pod([container("init-a", "init", exited(0)), container("init-b", "init")], []),
      status: "Init:1/2",
      ready: "0/0",
      phase: "Pending",
    },
    {
      name: "init container failed",
      pod: pod([container("init", "init", exited(3))], []),
      status: "Init:Error",
      ready: "0/0",
      phase: "Failed",
    },
    {
      name: "init done, app running",
      pod: pod([container("init", "init", exited(0))], [container("app", "app")]),
      status: "Running",
      ready: "1/1",
      phase: "Running",
    },
    {
      name: "paused: running, not ready",
      pod: pod([], [container("app", "app", { status: "paused" })]),
      status: "Running",
      ready: "0/1",
      phase: "Running",
    },
  ];
  for (const c of cases) {
    const summary = summarizePod(c.pod, "docker");
    t.equal(summary.status, c.status, `${c.name}: STATUS`);
    t.equal(`${summary.ready}/${summary.total}`, c.ready, `${c.name}: READY`);
    t.equal(summary.phase, c.phase, `${c.name}: phase`);
    t.equal(summary.restarts, c.restarts ?? 0, `${c.name}: RESTARTS`);
  }
});

t.test("paused counts as running but not ready; kubectl's STATUS stays the phase", async (t) => {
  // kubectl keeps the phase (Running) when no container reports a reason.
  const summary = summarizePod(pod([], [container("app", "app", { status: "paused" })]), "docker");
  t.equal(summary.containerStatuses[0]!.ready, false);
  t.ok(summary.containerStatuses[0]!.state?.running);
});

t.test("container statuses as the kubelet reports them", async (t) => {
  const running = toContainerStatus(container("app", "app"), "docker", { init: false });
  t.match(running, {
    name: "app",
    ready: true,
    started: true,
    restartCount: 0,
    image: "busybox:1.36",
    state: { running: { startedAt: "2026-01-01T10:00:00Z" } },
    lastState: {},
  });
  t.match(running.containerID, /^docker:\/\/[0-9a-f]{64}$/);

  const failed = toContainerStatus(container("app", "app", exited(1)), "podman", { init: false });
  t.match(failed.containerID, /^podman:\/\//);
  t.same(failed.state, {
    terminated: { exitCode: 1, reason: "Error", startedAt: "2026-01-01T10:00:00Z", finishedAt: "2026-01-01T10:00:05Z" },
  });

  const crashing = toContainerStatus(
    container("app", "app", {
      status: "restarting",
      running: true,
      exitCode: 2,
      restartCount: 1,
      finishedAt: "2026-01-01T10:00:05Z",
    }),
    "nerdctl",
    { init: false },
  );
  t.match(crashing.containerID, /^containerd:\/\//, "nerdctl runs on containerd");
  t.same(crashing.state, {
    waiting: { reason: "CrashLoopBackOff", message: "back-off restarting failed container app" },
  });
  t.same(crashing.lastState, {
    terminated: { exitCode: 2, reason: "Error", startedAt: "2026-01-01T10:00:00Z", finishedAt: "2026-01-01T10:00:05Z" },
  });

  const initDone = toContainerStatus(container("init", "init", exited(0)), "docker", { init: true });
  t.equal(initDone.ready, true, "a completed init container is ready");
  const initFailedTwice = toContainerStatus(container("init", "init", exited(1, { restartCount: 1 })), "docker", {
    init: true,
  });
  t.ok(initFailedTwice.state?.terminated, "init containers never go to CrashLoopBackOff");

  t.same(toContainerStatus(container("app", "app", created), "docker", { init: false }).state, { waiting: {} });
});

t.test("phase: the kubelet's getPhase without a restart policy", async (t) => {
  const status = (state: ContainerState) => toContainerStatus(state, "docker", { init: false });
  t.equal(podPhase([], []), "Pending", "no container yet");
  t.equal(
    podPhase([], [status(container("a", "app")), status(container("b", "app", created))]),
    "Pending",
    "one still waiting",
  );
  t.equal(
    podPhase([], [status(container("a", "app", exited(0))), status(container("b", "app", exited(0)))]),
    "Succeeded",
  );
  t.equal(
    podPhase([], [status(container("a", "app", exited(0))), status(container("b", "app", exited(137)))]),
    "Failed",
  );
});

t.test("printPodStatus reads reasons kubectl's way, including signals and exit codes without a reason", async (t) => {
  const base = { name: "a", image: "x", imageID: "", ready: false, restartCount: 0 };
  t.equal(
    printPodStatus({
      phase: "Failed",
      initContainerStatuses: [],
      containerStatuses: [{ ...base, state: { terminated: { exitCode: 137, signal: 9 } } }],
    }).status,
    "Signal:9",
  );
  t.equal(
    printPodStatus({
      phase: "Failed",
      initContainerStatuses: [],
      containerStatuses: [{ ...base, state: { terminated: { exitCode: 3 } } }],
    }).status,
    "ExitCode:3",
  );
  t.equal(
    printPodStatus({
      phase: "Pending",
      initContainerStatuses: [{ ...base, state: { waiting: { reason: "CrashLoopBackOff" } } }],
      containerStatuses: [],
    }).status,
    "Init:CrashLoopBackOff",
  );
  t.equal(
    printPodStatus({
      phase: "Pending",
      initContainerStatuses: [{ ...base, state: { waiting: { reason: "PodInitializing" } } }],
      containerStatuses: [],
    }).status,
    "Init:0/1",
  );
  const counted = printPodStatus({
    phase: "Pending",
    initContainerStatuses: [{ ...base, restartCount: 2, state: { running: {} } }],
    containerStatuses: [{ ...base, restartCount: 5, state: { waiting: {} } }],
  });
  t.equal(counted.restarts, 2, "while initializing, only init restarts count");
});

t.test("RESTARTS: `3 (45s ago)` from the last stop before a restart, plain when unknown", async (t) => {
  const now = Date.parse("2026-01-01T10:00:50Z");
  const summary = summarizePod(
    pod([], [container("app", "app", { restartCount: 3, finishedAt: "2026-01-01T10:00:05Z" })]),
    "docker",
  );
  t.equal(summary.lastRestartAt, "2026-01-01T10:00:05Z");
  t.equal(formatRestarts(summary, now, formatHumanDuration), "3 (45s ago)");
  t.equal(formatRestarts({ restarts: 3 }, now, formatHumanDuration), "3");
  t.equal(formatRestarts({ restarts: 0, lastRestartAt: "2026-01-01T10:00:05Z" }, now, formatHumanDuration), "0");
});

t.test("pod IP, age and the current container of each name", async (t) => {
  const old = container("app", "app", exited(1, { createdAt: "2026-01-01T09:00:00Z" }));
  const current = container("app", "app", { createdAt: "2026-01-01T09:59:59Z" });
  const summary = summarizePod(pod([], [old, current]), "docker");
  t.equal(summary.total, 1, "an older container of the same name (an earlier run) is not counted");
  t.equal(summary.appContainers[0], current);
  t.equal(summary.status, "Running");
  t.equal(summary.podIP, "10.88.0.7", "the sandbox's address");
  t.equal(summary.createdAt, "2026-01-01T09:58:00Z", "the sandbox's creation");

  const hostNetwork = summarizePod(
    pod([], [container("app", "app", { createdAt: "2026-01-01T09:59:30Z" })], { hostNetwork: true }),
    "docker",
  );
  t.equal(hostNetwork.podIP, undefined);
  t.equal(hostNetwork.createdAt, "2026-01-01T09:59:30Z", "no sandbox: the first container's creation");
});

t.test(
  "sidecars: counted in READY, Init:N/M while initialising, Running after, restarts counted with the apps",
  async (t) => {
    const cases: { name: string; pod: PodRecord; status: string; ready: string; phase: string; restarts?: number }[] = [
      {
        name: "sidecar running, the next init container running",
        pod: pod([container("proxy", "sidecar"), container("migrate", "init")], []),
        status: "Init:1/2",
        // `ps` knows the containers the engine has: no app container yet.
        ready: "1/1",
        phase: "Pending",
      },
      {
        name: "sidecar created, not started",
        pod: pod([container("proxy", "sidecar", created), container("migrate", "init", created)], []),
        status: "Init:0/2",
        ready: "0/1",
        phase: "Pending",
      },
      {
        name: "initialised: sidecar and app running",
        pod: pod([container("proxy", "sidecar"), container("migrate", "init", exited(0))], [container("app", "app")]),
        status: "Running",
        ready: "2/2",
        phase: "Running",
      },
      {
        // kubectl keeps the sidecar's reason: a running app container does not override it.
        name: "sidecar restarting after the pod initialised: kubectl's Init:CrashLoopBackOff, its restarts counted with the apps'",
        pod: pod(
          [
            container("proxy", "sidecar", {
              status: "restarting",
              running: true,
              exitCode: 1,
              restartCount: 2,
              finishedAt: "2026-01-01T10:00:05Z",
            }),
          ],
          [container("app", "app", { restartCount: 1 })],
        ),
        status: "Init:CrashLoopBackOff",
        ready: "1/2",
        phase: "Running",
        restarts: 3,
      },
      {
        name: "app completed, sidecar still running: the pod is done (the kubelet would stop the sidecar)",
        pod: pod([container("proxy", "sidecar")], [container("app", "app", exited(0))]),
        status: "Completed",
        ready: "1/2",
        phase: "Succeeded",
      },
    ];
    for (const c of cases) {
      const summary = summarizePod(c.pod, "docker");
      t.equal(summary.status, c.status, `${c.name}: STATUS`);
      t.equal(`${summary.ready}/${summary.total}`, c.ready, `${c.name}: READY`);
      t.equal(summary.phase, c.phase, `${c.name}: phase`);
      if (c.restarts !== undefined) t.equal(summary.restarts, c.restarts, `${c.name}: RESTARTS`);
    }
    const sidecar = toContainerStatus(container("proxy", "sidecar", exited(0)), "docker", {
      init: true,
      sidecar: true,
    });
    t.equal(sidecar.ready, false, "a sidecar that ended is not ready, whatever its exit code");
  },
);

t.test(
  "ps --json: a sidecar is an init container with restartPolicy Always, and initializes the pod once started",
  async (t) => {
    const summary = summarizePod(
      pod([container("proxy", "sidecar"), container("migrate", "init", exited(0))], [container("app", "app")]),
      "docker",
    );
    const object = toPodObject(summary);
    t.same(
      object.spec!.initContainers!.map((c) => [c.name, c.restartPolicy]),
      [
        ["proxy", "Always"],
        ["migrate", undefined],
      ],
    );
    t.same(
      object.status!.conditions!.map((c) => `${c.type}=${c.status}`),
      ["Initialized=True", "Ready=True", "ContainersReady=True"],
    );
  },
);
