import { KIND_API_VERSIONS, type WorkloadKind } from "../manifest/kinds.js";
import { findIgnoredFields } from "./support/support.js";
import { findHostPathFailures } from "./support/host-paths.js";
import { findInTemplate, validateWorkload } from "../manifest/rules/workloads.js";
import type { RawObject } from "../manifest/rules/raw.js";
import { validatePod } from "../manifest/validate-objects.js";
import { plural } from "../text/plural.js";
import { expandWorkload, SUFFIX_CHARACTER } from "../workloads/expand.js";
import { JOB_POD_NAME_SUFFIX } from "../workloads/job-pods.js";
import { describePod } from "./describe.js";
import { WORKLOAD_COLUMNS } from "./workload-columns.js";
import type { KindEntry, KindRun, ResourceNames } from "./types.js";

// The workloads: a template whose pods podrun makes as the kind's controller would
// (lib/workloads/expand.ts), found again by their owner label. A Job's pods are the Job
// controller's (lib/workloads/run-jobs.ts); the others' go up as bare pods do, after them.

/** What `validate` counts a workload's pods as: `2 replicas`, `1 parallel pod`. */
const REPLICA_NOUN: Record<WorkloadKind, string> = {
  Deployment: "replica",
  ReplicaSet: "replica",
  StatefulSet: "replica",
  DaemonSet: "pod",
  Job: "parallel pod",
};

// The controllers' random suffix alphabet (rand.SafeEncodeString), as expand.ts draws from it.
const SUFFIX = SUFFIX_CHARACTER;

function workloadKind(
  kind: WorkloadKind,
  resource: ResourceNames,
  pods: Pick<KindEntry, "podNameSuffix" | "podsOwnedVia" | "startsInOrder" | "conditions"> = {},
  run: KindRun = "pods",
): KindEntry {
  return {
    kind,
    // A ReplicaSet's and a DaemonSet's pods: `web-<5>`.
    podNameSuffix: `${SUFFIX}{5}`,
    ...pods,
    apiVersion: KIND_API_VERSIONS[kind],
    referable: true,
    resource,
    columns: WORKLOAD_COLUMNS[kind],
    ownsPods: true,
    order: 5,
    run,
    validate: (value, { index, report }) => validateWorkload(kind, value as RawObject, index, report, validatePod),
    admit(value, { warn }) {
      findInTemplate(value, findIgnoredFields, warn);
      findInTemplate(value, findHostPathFailures, warn);
      const workload = expandWorkload({ ...value, kind });
      const { name, namespace, pods, claims, object } = workload;
      const podObjects = claims.length > 0 ? { persistentVolumeClaims: claims } : undefined;
      return { kind, name, namespace, object, pods, workload, source: "", ...(podObjects && { podObjects }) };
    },
    describe: ({ kind, name, workload, pods }) =>
      `${kind} ${name} (${plural(workload!.replicas, REPLICA_NOUN[kind as WorkloadKind])}, ${describePod(pods[0] ?? { spec: { containers: [] } })})`,
  };
}

export const DEPLOYMENT_KIND = workloadKind(
  "Deployment",
  { plural: "deployments", singular: "deployment", short: "deploy", group: "apps" },
  // Its ReplicaSet's pods: `web-<pod-template-hash>-<5>`, owned by that ReplicaSet.
  { podNameSuffix: `${SUFFIX}{1,10}-${SUFFIX}{5}`, podsOwnedVia: "ReplicaSet", conditions: ["Available"] },
);
export const REPLICA_SET_KIND = workloadKind("ReplicaSet", {
  plural: "replicasets",
  singular: "replicaset",
  short: "rs",
  group: "apps",
});
export const STATEFUL_SET_KIND = workloadKind(
  "StatefulSet",
  { plural: "statefulsets", singular: "statefulset", short: "sts", group: "apps" },
  {
    // `web-<ordinal>`.
    podNameSuffix: String.raw`0|[1-9]\d*`,
    // OrderedReady, the default: web-1 is created once web-0 is Running and Ready; Parallel: all at
    // once (pkg/controller/statefulset/stateful_set_control.go, monotonic unless Parallel).
    startsInOrder: ({ object }) =>
      (object as { spec?: { podManagementPolicy?: string } }).spec?.podManagementPolicy !== "Parallel",
  },
);
export const DAEMON_SET_KIND = workloadKind("DaemonSet", {
  plural: "daemonsets",
  singular: "daemonset",
  short: "ds",
  group: "apps",
});
export const JOB_KIND = workloadKind(
  "Job",
  { plural: "jobs", singular: "job", group: "batch" },
  // An Indexed Job's pods carry their completion index: `<job>-<index>-<5>`.
  { podNameSuffix: JOB_POD_NAME_SUFFIX, conditions: ["Complete", "Failed"] },
  "job",
);
