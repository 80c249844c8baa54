import t from "tap";
import {
  describeNameClashes,
  findNameClashes,
  namesToCreate,
  podNames,
} from "../../../lib/pod/reconcile/name-clash.js";
import type { PodPlan } from "../../../lib/pod/reconcile/reconcile-plan.js";
import type { ContainerState } from "../../../lib/runtime/types.js";

// Which names `up` is about to take, and which of them something else holds (pure). The real
// engines: test/commands/up-reconcile.e2e.test.ts.

const identity = { name: "web", namespace: "ci" };
const shape = { identity, hostNetwork: false, initContainers: ["init"] };
const plan = (fields: Partial<PodPlan>): PodPlan => ({
  action: "keep",
  keep: [],
  recreate: [],
  notRunning: [],
  create: [],
  remove: [],
  ...fields,
});
const ours = (id: string) => ({ id }) as ContainerState;

t.test("the names a plan takes", async (t) => {
  t.strictSame(podNames({ ...shape, containers: ["a", "b"] }), {
    containers: ["ci_web_POD", "ci_web_init", "ci_web_a", "ci_web_b"],
    sandbox: "ci_web",
  });
  t.strictSame(
    podNames({ ...shape, hostNetwork: true, containers: ["a"] }),
    { containers: ["ci_web_init", "ci_web_a"] },
    "hostNetwork: no sandbox",
  );
  t.strictSame(namesToCreate(plan({ action: "recreate-pod", create: ["a"] }), shape), {
    containers: ["ci_web_POD", "ci_web_init", "ci_web_a"],
    sandbox: "ci_web",
  });
  t.strictSame(
    namesToCreate(plan({ keep: ["a"], recreate: ["b"], create: ["c"] }), shape),
    { containers: ["ci_web_c", "ci_web_b"] },
    "a kept pod: only its new containers",
  );
});

t.test("clashes: a name to take, held by something that is not the pod's own", async (t) => {
  const names = { containers: ["ci_web_POD", "ci_web_a"], sandbox: "ci_web" };
  const found = [
    { kind: "container" as const, id: "c1", name: "ci_web_a" },
    { kind: "container" as const, id: "c2", name: "ci_web_POD" },
    { kind: "container" as const, id: "c3", name: "ci_web_other" },
    { kind: "pod" as const, id: "p1", name: "ci_web", infraId: "c2" },
  ];
  t.same(
    findNameClashes(found, [ours("c2")], names).map((o) => o.id),
    ["c1"],
    "the infra container and its pod are ours; a name not taken is no clash",
  );
  t.same(
    findNameClashes(found, [], names).map((o) => o.id),
    ["c1", "c2", "p1"],
  );
  t.same(
    findNameClashes([{ kind: "pod", id: "p2", name: "ci_web" }], [ours("c2")], names).map((o) => o.id),
    ["p2"],
    "a pod without our infra container",
  );
});

t.test("the message names each holder and how to free it", async (t) => {
  t.equal(
    describeNameClashes(
      [
        { kind: "container", id: "0123456789abcdef", name: "ci_web_a" },
        { kind: "pod", id: "fedcba9876543210", name: "ci_web" },
      ],
      "podman",
    ),
    'container name "ci_web_a" is taken by a container podrun did not create (0123456789ab; `podman rm -f ci_web_a` removes it); ' +
      'pod name "ci_web" is taken by a podman pod podrun did not create (fedcba987654; `podman pod rm -f ci_web` removes it): ' +
      "podrun never replaces what it did not create; remove or rename it, or give the pod another name or namespace",
  );
});
