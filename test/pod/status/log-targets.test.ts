import t from "tap";
import { UsageError } from "../../../lib/errors.js";
import type { PodRecord } from "../../../lib/pod/status/find-pods.js";
import { describeNotStarted, selectLogTargets } from "../../../lib/pod/status/log-targets.js";
import type { ContainerState } from "../../../lib/runtime/types.js";

// Which containers `podrun logs` reads, and kubectl's words when it cannot choose.

function container(
  name: string,
  kind: "init" | "app",
  createdAt: string,
  state: Partial<ContainerState> = {},
): ContainerState {
  return {
    id: `id-${name}-${createdAt}`,
    name: `default_web_${name}`,
    status: "running",
    running: true,
    exitCode: 0,
    startedAt: createdAt,
    finishedAt: "",
    createdAt,
    restartCount: 0,
    labels: { "io.kubernetes.container.name": name, "io.podrun.container.kind": kind },
    image: "busybox",
    ...state,
  };
}

const record = (init: ContainerState[], app: ContainerState[]): PodRecord => ({
  name: "web",
  namespace: "default",
  uid: "u",
  initContainers: init,
  appContainers: app,
});
const names = (targets: { name: string }[]) => targets.map((target) => target.name);
const usageMessage = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  return "no error";
};

t.test("the only app container is the default; -c picks an app or an init container", async (t) => {
  const pod = record(
    [container("init", "init", "2026-01-01T00:00:01Z")],
    [container("app", "app", "2026-01-01T00:00:02Z")],
  );
  t.same(names(selectLogTargets(pod, { allContainers: false })), ["app"]);
  t.same(names(selectLogTargets(pod, { container: "init", allContainers: false })), ["init"]);
  t.same(names(selectLogTargets(pod, { container: "app", allContainers: false })), ["app"]);
});

t.test("several app containers and no -c: kubectl's error, listing app and init containers", async (t) => {
  const two = record(
    [],
    [container("app", "app", "2026-01-01T00:00:01Z"), container("sidecar", "app", "2026-01-01T00:00:02Z")],
  );
  t.equal(
    usageMessage(() => selectLogTargets(two, { allContainers: false })),
    "a container name must be specified for pod web, choose one of: [app sidecar]",
  );
  const withInit = record([container("init", "init", "2026-01-01T00:00:00Z")], two.appContainers);
  t.equal(
    usageMessage(() => selectLogTargets(withInit, { allContainers: false })),
    "a container name must be specified for pod web, choose one of: [app sidecar] or one of the init containers: [init]",
  );
});

t.test("an unknown -c is kubectl's 'not valid' error", async (t) => {
  const pod = record([], [container("app", "app", "2026-01-01T00:00:01Z")]);
  t.equal(
    usageMessage(() => selectLogTargets(pod, { container: "nope", allContainers: false })),
    "container nope is not valid for pod web",
  );
});

t.test("--all-containers: init containers first, each name once (the newest container)", async (t) => {
  const pod = record(
    [container("init", "init", "2026-01-01T00:00:01Z")],
    [
      container("app", "app", "2026-01-01T00:00:02Z", { running: false }),
      container("sidecar", "app", "2026-01-01T00:00:03Z"),
      container("app", "app", "2026-01-01T00:00:04Z"),
    ],
  );
  const targets = selectLogTargets(pod, { allContainers: true });
  t.same(names(targets), ["init", "sidecar", "app"]);
  t.equal(targets[2]!.state.createdAt, "2026-01-01T00:00:04Z", "the newest app container");
  t.same(
    targets.map((target) => target.init),
    [true, false, false],
  );
});

t.test("a container that never started has no log yet", async (t) => {
  const [target] = selectLogTargets(
    record([], [container("app", "app", "2026-01-01T00:00:01Z", { status: "created", running: false, startedAt: "" })]),
    { allContainers: false },
  );
  t.equal(describeNotStarted("web", target!), 'container "app" in pod "web" is waiting to start: ContainerCreating');
  const [running] = selectLogTargets(record([], [container("app", "app", "2026-01-01T00:00:01Z")]), {
    allContainers: false,
  });
  t.equal(describeNotStarted("web", running!), undefined);
});
