import t from "tap";
import type { Pod } from "kubernetes-types/core/v1.js";
import { chooseExecContainer, sortMostActive } from "../../../lib/pod/status/exec-target.js";
import type { ContainerState } from "../../../lib/runtime/types.js";
import type { PodPhase } from "../../../lib/pod/status/pod-status.js";

// Which pod and container `podrun exec` picks, as kubectl picks them (tables). The command
// against the fake engine: test/commands/exec.test.ts; on the engines: kubectl-verbs.ts.

function state(name: string, running = true, createdAt = "2026-01-01T10:00:00Z"): ContainerState {
  return {
    id: `${name}-id`,
    name: `default_web_${name}`,
    status: running ? "running" : "exited",
    running,
    exitCode: 0,
    startedAt: "2026-01-01T10:00:01Z",
    finishedAt: "",
    createdAt,
    restartCount: 0,
    labels: { "io.kubernetes.container.name": name },
    image: "busybox",
  };
}

const spec = (containers: string[], init: string[] = [], annotation?: string): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name: "web",
    ...(annotation ? { annotations: { "kubectl.kubernetes.io/default-container": annotation } } : {}),
  },
  spec: {
    containers: containers.map((name) => ({ name, image: "busybox" })),
    initContainers: init.map((name) => ({ name, image: "busybox" })),
  },
});

const pod = (app: ContainerState[], init: ContainerState[] = [], phase = "Running") => ({
  name: "web",
  phase: phase as "Running",
  appContainers: app,
  initContainers: init,
});

t.test("the container: -c, the annotation, else the first, with kubectl's note", async (t) => {
  const twoApps = pod([state("app"), state("sidecar")], [state("migrate", false)]);
  const cases: Array<[string, ReturnType<typeof chooseExecContainer>, string, string | undefined]> = [
    [
      "several containers: the first, and the note lists them all",
      chooseExecContainer(twoApps, spec(["app", "sidecar"], ["migrate"]), undefined),
      "app",
      'Defaulted container "app" out of: app, sidecar, migrate (init)',
    ],
    [
      "the annotation names one: that one, no note",
      chooseExecContainer(twoApps, spec(["app", "sidecar"], ["migrate"], "sidecar"), undefined),
      "sidecar",
      undefined,
    ],
    [
      "the annotation names none: said, then the first",
      chooseExecContainer(twoApps, spec(["app", "sidecar"], [], "db"), undefined),
      "app",
      'Default container name "db" not found in pod web\nDefaulted container "app" out of: app, sidecar',
    ],
    ["-c names one", chooseExecContainer(twoApps, spec(["app", "sidecar"]), "sidecar"), "sidecar", undefined],
    ["one container: no note", chooseExecContainer(pod([state("app")]), spec(["app"]), undefined), "app", undefined],
    [
      "no record (an older podrun): the engine's order",
      chooseExecContainer(
        pod([state("b", true, "2026-01-01T10:00:00Z"), state("a", true, "2026-01-01T10:00:05Z")]),
        undefined,
        undefined,
      ),
      "b",
      'Defaulted container "b" out of: b, a',
    ],
  ];
  for (const [what, choice, name, note] of cases) {
    t.ok(choice.ok, what);
    if (!choice.ok) continue;
    t.equal(choice.name, name, `${what}: ${name}`);
    t.equal(choice.note, note, `${what}: note`);
  }
});

t.test("refusals, in kubectl's words", async (t) => {
  const cases: Array<[string, ReturnType<typeof chooseExecContainer>, string]> = [
    [
      "a completed pod",
      chooseExecContainer(pod([state("app", false)], [], "Succeeded"), undefined, undefined),
      "cannot exec into a container in a completed pod; current phase is Succeeded",
    ],
    [
      "a container that is not there",
      chooseExecContainer(pod([state("app")]), spec(["app"]), "db"),
      'unable to upgrade connection: container not found ("db")',
    ],
    [
      "a container that is not running",
      chooseExecContainer(pod([state("app")], [state("migrate", false)]), spec(["app"], ["migrate"]), "migrate"),
      "Internal error occurred: error executing command in container: failed to exec in container: container is in CONTAINER_EXITED state",
    ],
  ];
  for (const [what, choice, message] of cases) t.same(choice, { ok: false, message }, what);
});

t.test("a workload's pod: running, ready, fewest restarts, oldest", async (t) => {
  const p = (name: string, phase: PodPhase, ready: number, restarts: number, createdAt: string) => ({
    name,
    phase,
    ready,
    total: 1,
    restarts,
    createdAt,
  });
  const pods = [
    p("pending", "Pending", 0, 0, "2026-01-01T09:00:00Z"),
    p("not-ready", "Running", 0, 0, "2026-01-01T09:00:00Z"),
    p("restarted", "Running", 1, 3, "2026-01-01T09:00:00Z"),
    p("young", "Running", 1, 0, "2026-01-01T10:00:00Z"),
    p("old", "Running", 1, 0, "2026-01-01T08:00:00Z"),
    p("failed", "Failed", 0, 0, "2026-01-01T07:00:00Z"),
  ];
  t.same(
    sortMostActive(pods).map((pod) => pod.name),
    ["old", "young", "restarted", "not-ready", "failed", "pending"],
  );
});
