import t from "tap";
import { computeHash, expandWorkload, fnv32a, stableSuffix } from "../../lib/workloads/expand.js";

// Expected values printed by Go's hash/fnv, encoding/binary and fmt running the steps of
// controller.ComputeHash (FNV-32a, collisionCount as 8 little-endian bytes, SafeEncodeString of
// the decimal sum) over the same input strings.
const GO_VALUES: [string, string, string][] = [
  ["", "65bb57b6b5", "5897b44bcf"],
  ["a", "7d6b446664", "fb4fcf5d6"],
  ['{"metadata":{}}', "7b8968c9cb", "7db65795f8"],
  ["héllo wörld", "799dc96bc8", "6857dcbb84"],
];

t.test("computeHash encodes as Go's controller.ComputeHash does", async (t) => {
  for (const [input, plain, withCollisions] of GO_VALUES) {
    t.equal(computeHash(input), plain, JSON.stringify(input));
    t.equal(computeHash(input, 2), withCollisions, `${JSON.stringify(input)} with collisionCount 2`);
  }
  t.equal(fnv32a(Buffer.from("")), 0x811c9dc5);
});

const template = (extra: object = {}) => ({
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "web", image: "busybox" }], ...extra },
});

t.test("Deployment: <name>-<template hash>-<5 chars>, pod-template-hash and owner labels, N replicas", async (t) => {
  const w = expandWorkload({
    kind: "Deployment",
    metadata: { name: "web" },
    spec: { replicas: 3, template: template() },
  });
  t.equal(w.pods.length, 3);
  t.match(w.templateHash, /^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
  const names = w.pods.map((p) => p.metadata!.name!);
  for (const name of names) t.match(name, new RegExp(`^web-${w.templateHash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
  t.equal(new Set(names).size, 3, "distinct names");
  t.same(w.pods[0]!.metadata!.labels, {
    app: "web",
    "pod-template-hash": w.templateHash,
    "io.podrun.owner": "Deployment/web",
  });
  t.equal(w.pods[0]!.spec!.restartPolicy, "Always", "the template is defaulted");
  t.equal(w.pods[0]!.metadata!.namespace, "default");
});

t.test("names are stable for an unchanged workload and change with its template", async (t) => {
  const a = expandWorkload({
    kind: "Deployment",
    metadata: { name: "web" },
    spec: { replicas: 2, template: template() },
  });
  const b = expandWorkload({
    kind: "Deployment",
    metadata: { name: "web" },
    spec: { replicas: 2, template: template() },
  });
  t.same(
    a.pods.map((p) => p.metadata!.name),
    b.pods.map((p) => p.metadata!.name),
  );
  // A default spelled out is the same template once defaulted.
  const spelled = expandWorkload({
    kind: "Deployment",
    metadata: { name: "web" },
    spec: { replicas: 2, template: template({ restartPolicy: "Always" }) },
  });
  t.equal(spelled.templateHash, a.templateHash);
  const changed = expandWorkload({
    kind: "Deployment",
    metadata: { name: "web" },
    spec: { replicas: 2, template: template({ hostname: "x" }) },
  });
  t.not(changed.templateHash, a.templateHash);
  t.notSame(
    changed.pods.map((p) => p.metadata!.name),
    a.pods.map((p) => p.metadata!.name),
  );
  t.not(
    stableSuffix("default", "Deployment/web", "h", 0),
    stableSuffix("other", "Deployment/web", "h", 0),
    "namespace counts",
  );
});

t.test("ReplicaSet, DaemonSet: <name>-<5 chars>, template labels plus the owner", async (t) => {
  const rs = expandWorkload({
    kind: "ReplicaSet",
    metadata: { name: "front" },
    spec: { replicas: 2, template: template() },
  });
  t.equal(rs.pods.length, 2);
  for (const pod of rs.pods) t.match(pod.metadata!.name, /^front-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  t.same(rs.pods[0]!.metadata!.labels, { app: "web", "io.podrun.owner": "ReplicaSet/front" });
  const ds = expandWorkload({
    kind: "DaemonSet",
    metadata: { name: "agent", namespace: "ops" },
    spec: { template: template() },
  });
  t.equal(ds.pods.length, 1, "one node, one pod");
  t.match(ds.pods[0]!.metadata!.name, /^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  t.equal(ds.pods[0]!.metadata!.namespace, "ops");
});

t.test("StatefulSet: <name>-0..N-1 with the controller's labels and hostnames", async (t) => {
  const w = expandWorkload({
    kind: "StatefulSet",
    metadata: { name: "db" },
    spec: { replicas: 2, template: template() },
  });
  t.same(
    w.pods.map((p) => p.metadata!.name),
    ["db-0", "db-1"],
  );
  t.same(w.pods[1]!.metadata!.labels, {
    app: "web",
    "controller-revision-hash": `db-${w.templateHash}`,
    "statefulset.kubernetes.io/pod-name": "db-1",
    "apps.kubernetes.io/pod-index": "1",
    "io.podrun.owner": "StatefulSet/db",
  });
  t.equal(w.pods[1]!.spec!.hostname, "db-1");
  t.equal(
    expandWorkload({ kind: "StatefulSet", metadata: { name: "db" }, spec: { replicas: 0, template: template() } }).pods
      .length,
    0,
  );
});

t.test("Job: <name>-<5 chars>, job-name and controller-uid labels, parallelism pods", async (t) => {
  const w = expandWorkload({
    kind: "Job",
    metadata: { name: "migrate" },
    spec: { parallelism: 2, completions: 5, template: template({ restartPolicy: "Never" }) },
  });
  t.equal(w.pods.length, 2);
  const labels = w.pods[0]!.metadata!.labels!;
  t.match(w.pods[0]!.metadata!.name, /^migrate-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  t.equal(labels["batch.kubernetes.io/job-name"], "migrate");
  t.equal(labels["job-name"], "migrate");
  t.match(labels["controller-uid"], /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  t.equal(labels["batch.kubernetes.io/controller-uid"], labels["controller-uid"]);
  t.equal(labels["io.podrun.owner"], "Job/migrate");
  t.equal(w.pods[0]!.spec!.restartPolicy, "Never");
  t.equal(
    expandWorkload({
      kind: "Job",
      metadata: { name: "one" },
      spec: { completions: 1, parallelism: 4, template: template() },
    }).pods.length,
    1,
    "never more pods than completions",
  );
});

t.test(
  "a StatefulSet's claim templates: one claim per pod and template, mounted through a volume of the template's name",
  async (t) => {
    const workload = expandWorkload({
      kind: "StatefulSet",
      metadata: { name: "db", namespace: "shop" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "db" } },
        template: {
          metadata: { labels: { app: "db" } },
          spec: { volumes: [{ name: "data", emptyDir: {} }], containers: [{ name: "db", image: "busybox" }] },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: "data", labels: { tier: "storage" } },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          },
        ],
      },
    });
    t.same(
      workload.claims.map((c) => [c.metadata?.namespace, c.metadata?.name, c.metadata?.labels]),
      [
        ["shop", "data-db-0", { tier: "storage", app: "db" }],
        ["shop", "data-db-1", { tier: "storage", app: "db" }],
      ],
    );
    t.same(
      workload.pods.map((p) => p.spec?.volumes),
      [
        [{ name: "data", persistentVolumeClaim: { claimName: "data-db-0" } }],
        [{ name: "data", persistentVolumeClaim: { claimName: "data-db-1" } }],
      ],
      "the claim takes the place of a template volume of the same name",
    );
  },
);
