import t from "tap";
import type { PodPlan } from "../../lib/pod/reconcile/reconcile-plan.js";
import { formatUpSummary } from "../../lib/pod/up-summary.js";

const plan = (fields: Partial<PodPlan>): PodPlan => ({
  action: "keep",
  keep: [],
  recreate: [],
  notRunning: [],
  create: [],
  remove: [],
  ...fields,
});
const line = (p: PodPlan | undefined, started = { appContainers: 0, initContainers: 0 }) =>
  formatUpSummary({ label: "pod/web", plan: p, started, seconds: 0.42, runtime: "docker" });

t.test("a new pod: what started", async (t) => {
  t.equal(
    line(undefined, { appContainers: 2, initContainers: 1 }),
    "pod/web: 2 containers started, 1 init container completed (0.4s, docker)",
  );
  t.equal(
    line(plan({ action: "create", create: ["a"] }), { appContainers: 1, initContainers: 0 }),
    "pod/web: 1 container started (0.4s, docker)",
  );
});

t.test("a kept pod: counts, the noun on the first, zeros left out", async (t) => {
  t.equal(line(plan({ keep: ["a", "b"] })), "pod/web: 2 containers unchanged (0.4s, docker)");
  t.equal(line(plan({ keep: ["a"], recreate: ["b"] })), "pod/web: 1 container unchanged, 1 recreated (0.4s, docker)");
  t.equal(
    line(plan({ recreate: ["a", "b"], create: ["c"], remove: ["d"] })),
    "pod/web: 2 containers recreated, 1 created, 1 removed (0.4s, docker)",
  );
});

t.test("a recreated pod: why", async (t) => {
  t.equal(
    line(plan({ action: "recreate-pod", cause: "replace" }), { appContainers: 2, initContainers: 0 }),
    "pod/web: recreated (--replace): 2 containers started (0.4s, docker)",
  );
  t.equal(
    line(plan({ action: "recreate-pod", cause: "pod-changed" }), { appContainers: 1, initContainers: 1 }),
    "pod/web: recreated (pod-level fields changed): 1 container started, 1 init container completed (0.4s, docker)",
  );
});

t.test("sidecars are named beside the containers they run with", async (t) => {
  const summary = formatUpSummary({
    label: "pod/web",
    started: { appContainers: 2, initContainers: 1, sidecars: 1 },
    seconds: 0.9,
    runtime: "docker",
  });
  t.equal(summary, "pod/web: 2 containers and 1 sidecar started, 1 init container completed (0.9s, docker)");
});
