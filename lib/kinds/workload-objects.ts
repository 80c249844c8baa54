import type { Pod, PodSpec } from "kubernetes-types/core/v1.js";
import type { JobRecord } from "../workloads/job-state.js";
import { COMPLETIONS_REACHED } from "../workloads/job-controller.js";
import { OWNER_LABEL, stableUid } from "../workloads/expand.js";
import { KIND_API_VERSIONS, type WorkloadKind } from "../manifest/kinds.js";

// The workloads as `kubectl get deploy|rs|sts|ds|job -o json` shows them, made from their pods
// (pure). podrun keeps no workload object: a workload is the pods the engine holds with its owner
// label (`ps -o json` shows them, with their ownerReferences), so its spec.replicas is the pods
// there are, all of them up to date (`up` replaces a changed pod), each available once Ready
// (minReadySeconds is not counted). The template is one pod's record (pod-record.ts) with what
// differs from pod to pod taken out. A Deployment's pods also make its ReplicaSet,
// `<name>-<pod-template-hash>`, as a cluster lists it. A Job adds what its record keeps
// (job-state.ts): its start, its completions and how it finished. A status count of 0 is left
// out, as the API server's omitempty does, so a JSONPath to it prints nothing, as on a cluster.

export interface WorkloadObject {
  apiVersion: string;
  kind: WorkloadKind;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation: number;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    ownerReferences?: unknown[];
  };
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
}

/** The labels a controller gives each pod (or the ReplicaSet its pods): not the template's. */
const PER_POD_LABELS = [
  OWNER_LABEL,
  "statefulset.kubernetes.io/pod-name",
  "apps.kubernetes.io/pod-index",
  "batch.kubernetes.io/job-completion-index",
];

/** Fields the controller sets per pod, not found in the template. */
const PER_POD_SPEC = ["hostname", "nodeName"] as const;

/** What each controller adds to its pods' labels and spec, beyond the template: not the workload's template. */
const CONTROLLER_ADDS: Partial<Record<WorkloadKind, { labels: readonly string[]; spec: readonly string[] }>> = {
  // The ReplicaSet's template carries pod-template-hash; the Deployment's does not.
  Deployment: { labels: ["pod-template-hash"], spec: [] },
  StatefulSet: { labels: ["controller-revision-hash"], spec: ["subdomain"] },
  DaemonSet: { labels: ["controller-revision-hash"], spec: [] },
};

export interface WorkloadInputs {
  /** The pods, as `ps -o json` makes them (with the owner label and ownerReferences). */
  pods: readonly Pod[];
  /** A pod's record (the spec `up` ran), when it has one. */
  specOf?: (pod: Pod) => PodSpec | undefined;
  /** The Jobs' records (for kind Job). */
  jobs?: readonly JobRecord[];
}

/** The workloads of `kind` in the pods, sorted by namespace and name. */
export function workloadObjects(kind: WorkloadKind, inputs: WorkloadInputs): WorkloadObject[] {
  const groups = groupPods(kind, inputs.pods);
  if (kind === "Job")
    for (const record of inputs.jobs ?? [])
      if (!groups.has(`${record.namespace}/${record.name}`)) groups.set(`${record.namespace}/${record.name}`, []);
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, pods]) => {
      const [namespace = "default", name = ""] = key.split("/");
      const job = inputs.jobs?.find((r) => r.namespace === namespace && r.name === name);
      return makeObject(kind, { name, namespace, pods, specOf: inputs.specOf, job });
    });
}

/** `namespace/name` → its pods: by the owner label, or for a ReplicaSet by the pod's owning ReplicaSet. */
function groupPods(kind: WorkloadKind, pods: readonly Pod[]): Map<string, Pod[]> {
  const groups = new Map<string, Pod[]>();
  for (const pod of pods) {
    const name = ownerName(kind, pod);
    if (name === undefined) continue;
    const key = `${pod.metadata?.namespace ?? "default"}/${name}`;
    groups.set(key, [...(groups.get(key) ?? []), pod]);
  }
  return groups;
}

function ownerName(kind: WorkloadKind, pod: Pod): string | undefined {
  if (kind === "ReplicaSet") {
    const ref = (pod.metadata?.ownerReferences ?? []).find((r) => r.kind === "ReplicaSet");
    return ref?.name;
  }
  const owner = pod.metadata?.labels?.[OWNER_LABEL];
  return owner?.startsWith(`${kind}/`) ? owner.slice(kind.length + 1) : undefined;
}

interface Group {
  name: string;
  namespace: string;
  pods: readonly Pod[];
  specOf: WorkloadInputs["specOf"];
  job: JobRecord | undefined;
}

function makeObject(kind: WorkloadKind, group: Group): WorkloadObject {
  const { name, namespace, pods } = group;
  const created = pods
    .map((pod) => pod.metadata?.creationTimestamp)
    .filter((t): t is string => t !== undefined)
    .sort()[0];
  const startTime = group.job?.startTime === undefined ? undefined : toTime(group.job.startTime);
  const deploymentOf = kind === "ReplicaSet" ? pods[0]?.metadata?.labels?.[OWNER_LABEL] : undefined;
  const metadata: WorkloadObject["metadata"] = {
    name,
    namespace,
    uid: stableUid(namespace, `${kind}/${name}`),
    generation: 1,
    ...((startTime ?? created) ? { creationTimestamp: (startTime ?? created)! } : {}),
    ...(deploymentOf?.startsWith("Deployment/") ? { ownerReferences: [deploymentRef(namespace, deploymentOf)] } : {}),
  };
  const counts = countPods(pods);
  return {
    apiVersion: KIND_API_VERSIONS[kind],
    kind,
    metadata,
    spec: specOf(kind, group, counts.total),
    status: statusOf(kind, counts, group),
  };
}

function deploymentRef(namespace: string, owner: string) {
  const name = owner.slice("Deployment/".length);
  const uid = stableUid(namespace, owner);
  return { apiVersion: "apps/v1", kind: "Deployment", name, uid, controller: true, blockOwnerDeletion: true };
}

interface Counts {
  total: number;
  ready: number;
  succeeded: number;
  failed: number;
  active: number;
}

function countPods(pods: readonly Pod[]): Counts {
  const phase = (p: string) => pods.filter((pod) => pod.status?.phase === p).length;
  const ready = pods.filter((pod) =>
    (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True"),
  ).length;
  const succeeded = phase("Succeeded");
  const failed = phase("Failed");
  return { total: pods.length, ready, succeeded, failed, active: pods.length - succeeded - failed };
}

/** The template: one pod's labels and spec, less what the controller sets per pod. */
function templateOf(kind: WorkloadKind, group: Group): Record<string, unknown> {
  const pod = group.pods[0];
  if (!pod) return {};
  const adds = CONTROLLER_ADDS[kind];
  const labels = { ...pod.metadata?.labels };
  for (const key of [...PER_POD_LABELS, ...(adds?.labels ?? [])]) delete labels[key];
  const spec: Record<string, unknown> = { ...(group.specOf?.(pod) ?? pod.spec) };
  for (const key of [...PER_POD_SPEC, ...(adds?.spec ?? [])]) delete spec[key];
  return { metadata: Object.keys(labels).length > 0 ? { labels } : {}, spec };
}

function specOf(kind: WorkloadKind, group: Group, total: number): Record<string, unknown> {
  const template = templateOf(kind, group);
  if (kind === "DaemonSet") return { template };
  if (kind !== "Job") return { replicas: total, template };
  const job = group.job;
  return {
    ...(job?.completions !== undefined ? { completions: job.completions } : {}),
    ...(job?.parallelism !== undefined ? { parallelism: job.parallelism } : {}),
    template,
  };
}

/** The keys whose value is not 0 (omitempty). */
function nonZero(fields: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(fields).filter(([, n]) => n !== 0));
}

function statusOf(kind: WorkloadKind, c: Counts, group: Group): Record<string, unknown> {
  switch (kind) {
    case "Deployment":
      return {
        observedGeneration: 1,
        ...nonZero({ replicas: c.total, updatedReplicas: c.total, readyReplicas: c.ready, availableReplicas: c.ready }),
        ...nonZero({ unavailableReplicas: c.total - c.ready }),
        conditions: [availableCondition(c)],
      };
    case "ReplicaSet":
      return {
        observedGeneration: 1,
        replicas: c.total,
        ...nonZero({ fullyLabeledReplicas: c.total, readyReplicas: c.ready, availableReplicas: c.ready }),
      };
    case "StatefulSet": {
      const revision = group.pods[0]?.metadata?.labels?.["controller-revision-hash"];
      return {
        observedGeneration: 1,
        replicas: c.total,
        ...nonZero({ readyReplicas: c.ready, currentReplicas: c.total, updatedReplicas: c.total }),
        ...nonZero({ availableReplicas: c.ready }),
        ...(revision ? { currentRevision: revision, updateRevision: revision } : {}),
      };
    }
    case "DaemonSet":
      return {
        observedGeneration: 1,
        currentNumberScheduled: c.total,
        desiredNumberScheduled: c.total,
        numberMisscheduled: 0,
        numberReady: c.ready,
        ...nonZero({ numberAvailable: c.ready, updatedNumberScheduled: c.total }),
        ...nonZero({ numberUnavailable: c.total - c.ready }),
      };
    case "Job":
      return jobStatus(c, group);
  }
}

function availableCondition(c: Counts) {
  const ok = c.ready === c.total;
  return {
    type: "Available",
    status: ok ? "True" : "False",
    reason: ok ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
    message: ok ? "Deployment has minimum availability." : "Deployment does not have minimum availability.",
  };
}

function jobStatus(c: Counts, group: Group): Record<string, unknown> {
  const job = group.job;
  const finished = job?.finished ?? completedByPods(c, group);
  const conditions = finished
    ? [
        {
          type: finished.type,
          status: "True",
          reason: finished.reason,
          message: finished.message,
          lastTransitionTime: toTime(finished.at),
        },
      ]
    : undefined;
  return {
    ...(job?.startTime !== undefined ? { startTime: toTime(job.startTime) } : {}),
    ...(finished?.type === "Complete" ? { completionTime: toTime(finished.at) } : {}),
    ...nonZero({ active: finished ? 0 : c.active, succeeded: c.succeeded, failed: c.failed }),
    ...(finished ? {} : { ready: c.ready }),
    ...(conditions ? { conditions } : {}),
  };
}

/**
 * A Job whose record does not say it finished (an `up` without --wait syncs its controller once
 * and returns), told from its pods as `wait --for=condition=Complete` tells it: its completions
 * (1 unless recorded) succeeded and none left running, completed when its last container ended.
 */
function completedByPods(c: Counts, group: Group): NonNullable<JobRecord["finished"]> | undefined {
  if (c.active > 0 || c.succeeded < (group.job?.completions ?? 1)) return undefined;
  const ends = group.pods.flatMap((pod) =>
    (pod.status?.containerStatuses ?? []).flatMap((s) =>
      s.state?.terminated ? [Date.parse(s.state.terminated.finishedAt ?? "")] : [],
    ),
  );
  const at = Math.max(...ends.filter((ms) => !Number.isNaN(ms)));
  if (!Number.isFinite(at)) return undefined;
  return { type: "Complete", ...COMPLETIONS_REACHED, at };
}

/** An instant as the API server writes it: RFC 3339, seconds. */
function toTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
