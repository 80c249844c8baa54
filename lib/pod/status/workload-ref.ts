import { UsageError } from "../../errors.js";
import { WORKLOAD_KINDS, type WorkloadKind } from "../../manifest/kinds.js";
import { findObjectNameErrors } from "../../manifest/rules/names.js";
import { OWNER_LABEL, stableUid } from "../../workloads/expand.js";
import type { PodRecord } from "./find-pods.js";

// `TYPE/NAME` arguments, as kubectl takes them (`deploy/web`, `jobs/migrate`, `pod/web`), and the
// pods they stand for (pure). A workload's pods are found by the owner label every container of
// theirs carries (expand.ts OWNER_LABEL, `Deployment/web`), in the namespace asked for: the
// engine is asked, never the manifest, so a template changed since `up` (a Deployment's new
// pod-template-hash) or a Job's replacement pods are found all the same. The types and their
// short names are kubectl's (`kubectl api-resources`).

/** A `TYPE/NAME` argument: a pod (`pod/web` is the pod web) or a workload. */
export interface ResourceRef {
  kind: "Pod" | WorkloadKind;
  name: string;
}

export type WorkloadRef = ResourceRef & { kind: WorkloadKind };

/** Each kind's resource and API group, as kubectl's NotFound line names it (`deployments.apps`). */
const RESOURCES: Record<ResourceRef["kind"], { plural: string; singular: string; short?: string; group?: string }> = {
  Pod: { plural: "pods", singular: "pod", short: "po" },
  Deployment: { plural: "deployments", singular: "deployment", short: "deploy", group: "apps" },
  ReplicaSet: { plural: "replicasets", singular: "replicaset", short: "rs", group: "apps" },
  StatefulSet: { plural: "statefulsets", singular: "statefulset", short: "sts", group: "apps" },
  DaemonSet: { plural: "daemonsets", singular: "daemonset", short: "ds", group: "apps" },
  Job: { plural: "jobs", singular: "job", group: "batch" },
};

/** What each kind is written as, for usage lines: `deployment (deploy)`, … */
export const ACCEPTED_TYPES = Object.values(RESOURCES)
  .map((r) => (r.short ? `${r.singular} (${r.short})` : r.singular))
  .join(", ");

/** Every spelling kubectl accepts for each kind: plural, singular, short name, the kind, each with `.group` too. */
const BY_TYPE = new Map<string, ResourceRef["kind"]>(
  Object.entries(RESOURCES).flatMap(([kind, r]) => {
    const names = [r.plural, r.singular, kind.toLowerCase(), ...(r.short ? [r.short] : [])];
    return [...names, ...(r.group ? names.map((n) => `${n}.${r.group}`) : [])].map(
      (name) => [name, kind as ResourceRef["kind"]] as const,
    );
  }),
);

/** The kind `type` names (any case), or undefined. */
export function resourceKindOf(type: string): ResourceRef["kind"] | undefined {
  return BY_TYPE.get(type.toLowerCase());
}

/**
 * `TYPE/NAME` read; undefined for an argument without a `/` (a pod name). An unknown type or an
 * invalid name is a UsageError naming the accepted types.
 */
export function parseResourceRef(arg: string, command: string): ResourceRef | undefined {
  const slash = arg.indexOf("/");
  if (slash < 0) return undefined;
  const type = arg.slice(0, slash);
  const name = arg.slice(slash + 1);
  const kind = resourceKindOf(type);
  if (!kind)
    throw new UsageError(
      `"${arg}": podrun ${command} takes pods and workloads, not "${type}": the types are ${ACCEPTED_TYPES}`,
    );
  const problems = findObjectNameErrors(name);
  if (problems.length > 0) throw new UsageError(`"${arg}": invalid ${RESOURCES[kind].singular} name: ${problems[0]}`);
  return { kind, name };
}

export function isWorkloadRef(ref: ResourceRef): ref is WorkloadRef {
  return (WORKLOAD_KINDS as readonly string[]).includes(ref.kind);
}

/** `deployment/web`, as kubectl prints an object. */
export function formatRef(ref: ResourceRef): string {
  return `${RESOURCES[ref.kind].singular}/${ref.name}`;
}

/** kubectl's line for an object that is not there: `Error from server (NotFound): deployments.apps "web" not found`. */
export function formatNotFound(ref: ResourceRef): string {
  const r = RESOURCES[ref.kind];
  return `Error from server (NotFound): ${r.group ? `${r.plural}.${r.group}` : r.plural} "${ref.name}" not found`;
}

/** The owner label's value for a workload: `Deployment/web`. */
export function ownerLabelValue(ref: WorkloadRef): string {
  return `${ref.kind}/${ref.name}`;
}

/** The workload a pod was made from, read from the owner label of any of its containers; undefined for a bare pod. */
export function ownerOf(
  record: Pick<PodRecord, "infra" | "initContainers" | "appContainers">,
): WorkloadRef | undefined {
  for (const state of [...(record.infra ? [record.infra] : []), ...record.appContainers, ...record.initContainers]) {
    const value = state.labels[OWNER_LABEL];
    if (value === undefined) continue;
    const slash = value.indexOf("/");
    const kind = value.slice(0, slash);
    if (slash > 0 && (WORKLOAD_KINDS as readonly string[]).includes(kind))
      return { kind: kind as WorkloadKind, name: value.slice(slash + 1) };
  }
  return undefined;
}

/** The pods among `records` that `ref` names: the pod of that name, or every pod of the workload. */
export function selectPods<T extends Pick<PodRecord, "name" | "infra" | "initContainers" | "appContainers">>(
  records: readonly T[],
  ref: ResourceRef,
): T[] {
  if (!isWorkloadRef(ref)) return records.filter((record) => record.name === ref.name);
  return records.filter((record) => {
    const owner = ownerOf(record);
    return owner !== undefined && owner.kind === ref.kind && owner.name === ref.name;
  });
}

// The controllers' random suffix alphabet (rand.SafeEncodeString), as expand.ts draws from it.
const SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]";

/**
 * Whether `podName` has the form the workload's controller gives its pods: `web-<hash>-<5>`
 * (Deployment: its ReplicaSet's pods), `web-<5>` (ReplicaSet, DaemonSet, Job; an Indexed Job's
 * `web-<index>-<5>`), `web-<i>` (StatefulSet). For the event log, which keeps the events of pods long gone and knows nothing of
 * their labels.
 */
export function isPodNameOf(ref: WorkloadRef, podName: string): boolean {
  if (!podName.startsWith(`${ref.name}-`)) return false;
  const rest = podName.slice(ref.name.length + 1);
  switch (ref.kind) {
    case "Deployment":
      return new RegExp(`^${SUFFIX}{1,10}-${SUFFIX}{5}$`).test(rest);
    case "StatefulSet":
      return /^(?:0|[1-9]\d*)$/.test(rest);
    case "Job":
      // An Indexed Job's pods carry their completion index: `<job>-<index>-<5>`.
      return new RegExp(`^(?:\\d+-)?${SUFFIX}{5}$`).test(rest);
    default:
      return new RegExp(`^${SUFFIX}{5}$`).test(rest);
  }
}

/**
 * The pod's metadata.ownerReferences as the controller sets them: a Deployment's pods are owned by
 * its ReplicaSet `<deployment>-<pod-template-hash>` (the hash read back from the pod's name), the
 * others by the workload itself. No API server assigns UIDs here: each is stable per object, as
 * the Job's controller-uid label is (expand.ts stableUid).
 */
export function ownerReferencesOf(
  pod: { name: string; namespace: string },
  owner: WorkloadRef,
): { apiVersion: string; kind: string; name: string; uid: string; controller: true; blockOwnerDeletion: true }[] {
  let kind: string = owner.kind;
  let name = owner.name;
  if (owner.kind === "Deployment") {
    const hash = /^(.+)-[^-]+$/.exec(pod.name.slice(owner.name.length + 1))?.[1];
    if (hash !== undefined) [kind, name] = ["ReplicaSet", `${owner.name}-${hash}`];
  }
  const apiVersion = kind === "Job" ? "batch/v1" : "apps/v1";
  return [
    {
      apiVersion,
      kind,
      name,
      uid: stableUid(pod.namespace, `${kind}/${name}`),
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
}

/** The command's arguments read: `TYPE/NAME`, else a pod's name as given. */
export function parseRefs(args: readonly string[], command: string): ResourceRef[] {
  return args.map((arg) => parseResourceRef(arg, command) ?? { kind: "Pod", name: arg });
}

/**
 * The records `refs` name, in the records' order (each once), and the refs that named none; every
 * record when `refs` is empty.
 */
export function selectByRefs<T extends Pick<PodRecord, "name" | "infra" | "initContainers" | "appContainers">>(
  records: readonly T[],
  refs: readonly ResourceRef[],
): { selected: T[]; missing: ResourceRef[] } {
  if (refs.length === 0) return { selected: [...records], missing: [] };
  const chosen = new Set<T>();
  const missing: ResourceRef[] = [];
  for (const ref of refs) {
    const found = selectPods(records, ref);
    if (found.length === 0 && !missing.some((m) => m.kind === ref.kind && m.name === ref.name)) missing.push(ref);
    for (const record of found) chosen.add(record);
  }
  return { selected: records.filter((record) => chosen.has(record)), missing };
}

/** A pod object (`ps --json`) with its owner: the owner label among its labels, and its ownerReferences. */
export function withOwner<
  P extends {
    metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; ownerReferences?: unknown[] };
  },
>(pod: P, owner: WorkloadRef | undefined): P {
  if (!owner || !pod.metadata) return pod;
  const { name = "", namespace = "default" } = pod.metadata;
  pod.metadata.labels = { ...pod.metadata.labels, [OWNER_LABEL]: ownerLabelValue(owner) };
  pod.metadata.ownerReferences = ownerReferencesOf({ name, namespace }, owner);
  return pod;
}

/** The OWNER column: `Deployment/web`, as kubectl describe's "Controlled By", or `<none>`. */
export function formatOwner(owner: WorkloadRef | undefined): string {
  return owner ? ownerLabelValue(owner) : "<none>";
}
