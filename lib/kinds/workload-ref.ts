import { UsageError } from "../errors.js";
import { findObjectNameErrors } from "../manifest/rules/names.js";
import { OWNER_LABEL, ownerLabelsOf, stableUid } from "../workloads/expand.js";
import type { PodRecord } from "../pod/status/find-pods.js";
import { acceptedTypes, POD_COMMANDS, entryOfKind, entryOfType, takesKind } from "./resource-names.js";
import { KINDS } from "./table.js";
import type { KindTable } from "./types.js";

// `TYPE/NAME` arguments, as kubectl takes them (`deploy/web`, `jobs/migrate`, `pod/web`), and the
// pods they stand for (pure). A workload's pods are found by the owner label every container of
// theirs carries (expand.ts OWNER_LABEL, `Deployment/web`), in the namespace asked for: the
// engine is asked, never the manifest, so a template changed since `up` (a Deployment's new
// pod-template-hash) or a Job's replacement pods are found all the same. The types, their
// spellings, whether a kind's pods carry the owner label, the names its controller gives them and
// who owns them are the kind table's (types.ts KindEntry).

/** A `TYPE/NAME` argument: a pod (`pod/web` is the pod web) or a workload (a kind of the table). */
export interface ResourceRef {
  kind: string;
  name: string;
}

/** A ref to a kind whose pods carry the owner label (`ownsPods` in the kind table). */
export type WorkloadRef = ResourceRef;

/** What each kind is written as, for usage lines: `deployment (deploy)`, … */
export const ACCEPTED_TYPES = acceptedTypes(KINDS, "down");

/** The kind `type` names (any case), or undefined. */
export function resourceKindOf(type: string, table: KindTable = KINDS): string | undefined {
  return entryOfType(type, table)?.kind;
}

/**
 * `TYPE/NAME` read; undefined for an argument without a `/` (a pod name). An unknown type or an
 * invalid name is a UsageError naming the accepted types.
 */
export function parseResourceRef(arg: string, command: string, table: KindTable = KINDS): ResourceRef | undefined {
  const slash = arg.indexOf("/");
  if (slash < 0) return undefined;
  const type = arg.slice(0, slash);
  const name = arg.slice(slash + 1);
  const entry = entryOfType(type, table);
  if (!entry || !takesKind(entry, command)) {
    const what = POD_COMMANDS.has(command) ? "pods and workloads" : "pods, workloads and Services";
    throw new UsageError(
      `"${arg}": podrun ${command} takes ${what}, not "${type}": the types are ${acceptedTypes(table, command)}`,
    );
  }
  const problems = findObjectNameErrors(name);
  if (problems.length > 0) throw new UsageError(`"${arg}": invalid ${entry.resource!.singular} name: ${problems[0]}`);
  return { kind: entry.kind, name };
}

/** Whether the ref's kind has its pods found by the owner label (a workload), not by name. */
export function isWorkloadRef(ref: ResourceRef, table: KindTable = KINDS): boolean {
  return entryOfKind(ref.kind, table)?.ownsPods === true;
}

function namesOf(kind: string, table: KindTable = KINDS) {
  const resource = entryOfKind(kind, table)?.resource;
  if (!resource) throw new Error(`kind ${kind} takes no TYPE/NAME`);
  return resource;
}

/** `deployment/web`, as kubectl prints an object. */
export function formatRef(ref: ResourceRef): string {
  return `${namesOf(ref.kind).singular}/${ref.name}`;
}

/** kubectl's line for an object that is not there: `Error from server (NotFound): deployments.apps "web" not found`. */
export function formatNotFound(ref: ResourceRef, table: KindTable = KINDS): string {
  const r = namesOf(ref.kind, table);
  return `Error from server (NotFound): ${r.group ? `${r.plural}.${r.group}` : r.plural} "${ref.name}" not found`;
}

/** The owner label's value for a workload: `Deployment/web`. */
export function ownerLabelValue(ref: WorkloadRef): string {
  return `${ref.kind}/${ref.name}`;
}

/** The workload a pod was made from, read from the owner label of any of its containers; undefined for a bare pod. */
export function ownerOf(
  record: Pick<PodRecord, "infra" | "initContainers" | "appContainers">,
  table: KindTable = KINDS,
): WorkloadRef | undefined {
  for (const value of ownerLabelsOf(record)) {
    const slash = value.indexOf("/");
    const kind = value.slice(0, slash);
    if (slash > 0 && entryOfKind(kind, table)?.ownsPods) return { kind, name: value.slice(slash + 1) };
  }
  return undefined;
}

/** The pods among `records` that `ref` names: the pod of that name, or every pod of the workload. */
export function selectPods<T extends Pick<PodRecord, "name" | "infra" | "initContainers" | "appContainers">>(
  records: readonly T[],
  ref: ResourceRef,
  table: KindTable = KINDS,
): T[] {
  if (!isWorkloadRef(ref, table)) return records.filter((record) => record.name === ref.name);
  return records.filter((record) => {
    const owner = ownerOf(record, table);
    return owner !== undefined && owner.kind === ref.kind && owner.name === ref.name;
  });
}

/**
 * Whether `podName` has the form the workload's controller gives its pods (the kind's
 * `podNameSuffix`: `web-<hash>-<5>` for a Deployment's, `web-<i>` for a StatefulSet's…). For the
 * event log, which keeps the events of pods long gone and knows nothing of their labels.
 */
export function isPodNameOf(ref: WorkloadRef, podName: string, table: KindTable = KINDS): boolean {
  if (!podName.startsWith(`${ref.name}-`)) return false;
  const suffix = entryOfKind(ref.kind, table)?.podNameSuffix;
  return suffix !== undefined && new RegExp(`^(?:${suffix})$`).test(podName.slice(ref.name.length + 1));
}

/**
 * The pod's metadata.ownerReferences as the controller sets them: a Deployment's pods are owned by
 * its ReplicaSet `<deployment>-<pod-template-hash>` (the kind's `podsOwnedVia`, the hash read back
 * from the pod's name), the others by the workload itself. No API server assigns UIDs here: each
 * is stable per object, as the Job's controller-uid label is (expand.ts stableUid).
 */
export function ownerReferencesOf(
  pod: { name: string; namespace: string },
  owner: WorkloadRef,
  table: KindTable = KINDS,
): { apiVersion: string; kind: string; name: string; uid: string; controller: true; blockOwnerDeletion: true }[] {
  let kind: string = owner.kind;
  let name = owner.name;
  const via = entryOfKind(owner.kind, table)?.podsOwnedVia;
  if (via !== undefined) {
    const hash = /^(.+)-[^-]+$/.exec(pod.name.slice(owner.name.length + 1))?.[1];
    if (hash !== undefined) [kind, name] = [via, `${owner.name}-${hash}`];
  }
  const apiVersion = entryOfKind(kind, table)?.apiVersion ?? "apps/v1";
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
export function parseRefs(args: readonly string[], command: string, table: KindTable = KINDS): ResourceRef[] {
  return args.map((arg) => parseResourceRef(arg, command, table) ?? { kind: "Pod", name: arg });
}

/**
 * The records `refs` name, in the records' order (each once), and the refs that named none; every
 * record when `refs` is empty.
 */
export function selectByRefs<T extends Pick<PodRecord, "name" | "infra" | "initContainers" | "appContainers">>(
  records: readonly T[],
  refs: readonly ResourceRef[],
  table: KindTable = KINDS,
): { selected: T[]; missing: ResourceRef[] } {
  if (refs.length === 0) return { selected: [...records], missing: [] };
  const chosen = new Set<T>();
  const missing: ResourceRef[] = [];
  for (const ref of refs) {
    const found = selectPods(records, ref, table);
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
