import t from "tap";
import type { PodRecord } from "../../lib/pod/status/find-pods.js";
import type { ContainerState } from "../../lib/runtime/types.js";
import { headlessFound, type ServiceToRemove } from "../../lib/services/remove-services.js";
import { formatServiceRemoved } from "../../lib/output/service-lines.js";

// `down` of a headless Service: it has no proxy, so it is "deleted" when `down` found a pod it
// selects (its names were that pod's aliases) and "not found" when none was there, as a second
// `down` of the same files finds it.

function container(labels: Record<string, string>): ContainerState {
  return {
    id: "c1",
    name: "default_db-0_POD",
    status: "running",
    running: true,
    exitCode: 0,
    startedAt: "",
    finishedAt: "",
    createdAt: "",
    restartCount: 0,
    labels,
    image: "registry.k8s.io/pause:3.10",
  };
}

function pod(name: string, namespace: string, labels: Record<string, string>, infra = true): PodRecord {
  return {
    name,
    namespace,
    uid: "u1",
    ...(infra && { infra: container(labels) }),
    initContainers: [],
    appContainers: [],
  };
}

const db: ServiceToRemove = { name: "db", namespace: "default", headless: { selector: { app: "db", tier: "data" } } };
const api: ServiceToRemove = { name: "api", namespace: "default" };

t.test("a headless Service is found when a pod of its namespace carries its selector's labels", async (t) => {
  const [marked, other] = headlessFound([db, api], [pod("db-0", "default", { app: "db", tier: "data", x: "y" })]);
  t.equal(marked!.headless?.found, true);
  t.same(other, api, "a Service with a proxy is left as it is: its proxy says whether it is there");
});

t.test("a headless Service is not found without such a pod", async (t) => {
  const cases: [string, PodRecord[]][] = [
    ["no pod", []],
    ["one label differs", [pod("db-0", "default", { app: "db", tier: "cache" })]],
    ["one label missing", [pod("db-0", "default", { app: "db" })]],
    ["another namespace", [pod("db-0", "shop", { app: "db", tier: "data" })]],
    ["a hostNetwork pod (no infra container, no labels to read)", [pod("db-0", "default", {}, false)]],
  ];
  for (const [what, pods] of cases) t.equal(headlessFound([db], pods)[0]!.headless?.found, false, what);
  const noSelector: ServiceToRemove = { name: "ext", namespace: "default", headless: { selector: {} } };
  t.equal(headlessFound([noSelector], [pod("x", "default", { app: "db" })])[0]!.headless?.found, false, "no selector");
});

t.test("down's line for a Service", async (t) => {
  t.equal(formatServiceRemoved({ name: "db", namespace: "default", found: true }), "service/db deleted");
  t.equal(
    formatServiceRemoved({ name: "db", namespace: "default", found: false }),
    'service/db not found (no Service "db" in namespace "default")',
  );
});
