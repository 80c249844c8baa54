import t from "tap";
import type { Pod } from "kubernetes-types/core/v1.js";
import { workloadObjects } from "../../lib/kinds/workload-objects.js";
import { WORKLOAD_COLUMNS } from "../../lib/kinds/workload-columns.js";
import { OWNER_LABEL } from "../../lib/workloads/expand.js";

// The workloads `get` makes from their pods, and kubectl's columns for them, as tables.

const NOW = Date.parse("2026-01-01T00:10:00Z");

function pod(
  name: string,
  owner: string,
  opts: {
    ready?: boolean;
    phase?: string;
    created?: string;
    labels?: Record<string, string>;
    rs?: string;
    finishedAt?: string;
  } = {},
): Pod {
  const phase = opts.phase ?? "Running";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "default",
      creationTimestamp: opts.created ?? "2026-01-01T00:00:00Z",
      labels: { app: "web", ...opts.labels, [OWNER_LABEL]: owner },
      ...(opts.rs ? { ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: opts.rs, uid: "u" }] } : {}),
    },
    spec: { containers: [{ name: "app", image: "busybox:1" }], hostname: name },
    status: {
      phase,
      conditions: [{ type: "Ready", status: opts.ready ? "True" : "False" }],
      containerStatuses: [
        {
          name: "app",
          image: "busybox:1",
          imageID: "",
          ready: opts.ready ?? false,
          restartCount: 0,
          state: opts.finishedAt
            ? { terminated: { exitCode: 0, finishedAt: opts.finishedAt } }
            : { running: { startedAt: "2026-01-01T00:00:01Z" } },
        },
      ],
    },
  };
}

t.test("a Deployment: its pods' count and readiness, its ReplicaSet, kubectl's columns", async (t) => {
  const pods = [
    pod("web-abc-1", "Deployment/web", { ready: true, rs: "web-abc", labels: { "pod-template-hash": "abc" } }),
    pod("web-abc-2", "Deployment/web", {
      ready: false,
      rs: "web-abc",
      created: "2026-01-01T00:05:00Z",
      labels: { "pod-template-hash": "abc" },
    }),
    pod("solo", "StatefulSet/db"),
  ];
  const [web, ...rest] = workloadObjects("Deployment", { pods });
  t.equal(rest.length, 0, "the StatefulSet's pod is not the Deployment's");
  t.equal(web!.metadata.name, "web");
  t.equal(web!.metadata.creationTimestamp, "2026-01-01T00:00:00Z", "created with its oldest pod");
  t.same(web!.spec.replicas, 2);
  t.same(
    (web!.spec.template as { metadata: unknown }).metadata,
    { labels: { app: "web" } },
    "the owner label is podrun's and pod-template-hash the ReplicaSet's, not the Deployment template's",
  );
  t.notOk((web!.spec.template as { spec: Record<string, unknown> }).spec.hostname, "per-pod fields left out");
  t.same(web!.status, {
    observedGeneration: 1,
    replicas: 2,
    updatedReplicas: 2,
    readyReplicas: 1,
    availableReplicas: 1,
    unavailableReplicas: 1,
    conditions: [
      {
        type: "Available",
        status: "False",
        reason: "MinimumReplicasUnavailable",
        message: "Deployment does not have minimum availability.",
      },
    ],
  });
  const columns = WORKLOAD_COLUMNS.Deployment;
  t.same(columns.headers, ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
  t.same(columns.row(web as unknown as Record<string, unknown>, NOW), ["web", "1/2", "2", "1", "10m"]);
  t.same(columns.wideRow(web as unknown as Record<string, unknown>), ["app", "busybox:1"]);
  const [rs] = workloadObjects("ReplicaSet", { pods });
  t.equal(rs!.metadata.name, "web-abc", "the Deployment's ReplicaSet, named by its pods' owner");
  t.match(rs!.metadata.ownerReferences, [{ apiVersion: "apps/v1", kind: "Deployment", name: "web", controller: true }]);
  t.same(WORKLOAD_COLUMNS.ReplicaSet.row(rs as unknown as Record<string, unknown>, NOW), [
    "web-abc",
    "2",
    "2",
    "1",
    "10m",
  ]);
});

t.test("the record's spec is the template, when there is one", async (t) => {
  const p = pod("web-abc-1", "Deployment/web");
  const [web] = workloadObjects("Deployment", {
    pods: [p],
    specOf: () => ({
      containers: [{ name: "app", image: "busybox:1", env: [{ name: "A", value: "1" }] }],
      hostname: "x",
    }),
  });
  t.same((web!.spec.template as { spec: unknown }).spec, {
    containers: [{ name: "app", image: "busybox:1", env: [{ name: "A", value: "1" }] }],
  });
});

t.test("zero counts are left out (omitempty): a JSONPath to them prints nothing, as on a cluster", async (t) => {
  const [sts] = workloadObjects("StatefulSet", {
    pods: [pod("db-0", "StatefulSet/db", { labels: { "controller-revision-hash": "db-123" } })],
  });
  t.same(sts!.status, {
    observedGeneration: 1,
    replicas: 1,
    currentReplicas: 1,
    updatedReplicas: 1,
    currentRevision: "db-123",
    updateRevision: "db-123",
  });
  t.same(WORKLOAD_COLUMNS.StatefulSet.row(sts as unknown as Record<string, unknown>, NOW), ["db", "0/1", "10m"]);
});

t.test("a DaemonSet's columns", async (t) => {
  const [ds] = workloadObjects("DaemonSet", { pods: [pod("agent-x1", "DaemonSet/agent", { ready: true })] });
  t.same(WORKLOAD_COLUMNS.DaemonSet.headers, [
    "NAME",
    "DESIRED",
    "CURRENT",
    "READY",
    "UP-TO-DATE",
    "AVAILABLE",
    "NODE SELECTOR",
    "AGE",
  ]);
  t.same(WORKLOAD_COLUMNS.DaemonSet.row(ds as unknown as Record<string, unknown>, NOW), [
    "agent",
    "1",
    "1",
    "1",
    "1",
    "1",
    "<none>",
    "10m",
  ]);
});

t.test("Jobs: the record's finish, else its pods'; a record without pods is still listed", async (t) => {
  const start = Date.parse("2026-01-01T00:00:00Z");
  const done = pod("migrate-x1", "Job/migrate", { phase: "Succeeded", finishedAt: "2026-01-01T00:00:07Z" });
  const cases = [
    {
      name: "finished, by its record",
      pods: [done],
      job: {
        namespace: "default",
        name: "migrate",
        startTime: start,
        completions: 1,
        parallelism: 1,
        finished: { type: "Complete" as const, reason: "CompletionsReached", message: "m", at: start + 5000 },
      },
      row: ["migrate", "Complete", "1/1", "5s", "10m"],
    },
    {
      name: "finished, by its pods (up without --wait)",
      pods: [done],
      job: { namespace: "default", name: "migrate", startTime: start, completions: 1, parallelism: 1 },
      row: ["migrate", "Complete", "1/1", "7s", "10m"],
    },
    {
      name: "running",
      pods: [pod("migrate-x1", "Job/migrate", { ready: true })],
      job: { namespace: "default", name: "migrate", startTime: start, completions: 3, parallelism: 1 },
      row: ["migrate", "Running", "0/3", "10m", "10m"],
    },
    {
      name: "a work queue (no completions)",
      pods: [pod("migrate-x1", "Job/migrate", { ready: true })],
      job: { namespace: "default", name: "migrate", startTime: start, parallelism: 2 },
      row: ["migrate", "Running", "0/1 of 2", "10m", "10m"],
    },
    {
      name: "failed; its pods gone",
      pods: [],
      job: {
        namespace: "default",
        name: "migrate",
        startTime: start,
        completions: 1,
        parallelism: 1,
        finished: { type: "Failed" as const, reason: "BackoffLimitExceeded", message: "m", at: start + 5000 },
      },
      row: ["migrate", "Failed", "0/1", "10m", "10m"],
    },
  ];
  for (const c of cases) {
    const [job, ...rest] = workloadObjects("Job", { pods: c.pods, jobs: [c.job] });
    t.equal(rest.length, 0, c.name);
    t.same(WORKLOAD_COLUMNS.Job.row(job as unknown as Record<string, unknown>, NOW), c.row, c.name);
  }
});
