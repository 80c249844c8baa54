import type { ManifestItem, ManifestKind } from "../manifest/kind-hooks.js";

// One entry of the kind table (table.ts): everything podrun does with a kind, in one place. The
// manifest reader calls `validate` and `admit` (lib/manifest/kind-hooks.ts); `up` and `down` read
// `order` and `run`; `ps`, `logs`, `events` and `down` read `resource` for TYPE/NAME arguments.

/** kubectl's names of a kind (`kubectl api-resources`): the TYPE of `TYPE/NAME`, and its NotFound line. */
export interface ResourceNames {
  plural: string;
  singular: string;
  short?: string;
  /** The API group: `deployments.apps`; none for core/v1. */
  group?: string;
}

/** How `up` applies a kind's objects and `down` deletes them. */
export type KindRun =
  /** Read by pods only (a ConfigMap, a claim): nothing to start or stop of its own. */
  | "none"
  /** Its pods, started together (lib/apply/up.ts, lib/pod/run-pod.ts) and stopped by `down`. */
  | "pods"
  /** Run by the Job controller (lib/workloads/run-jobs.ts), after every pod; `down` also removes its record. */
  | "job"
  /** Made before every pod (lib/services/): its address, its names on the cluster network, its proxy; removed by `down`. */
  | "service";

/** `podrun get TYPE`'s table for a kind, as kubectl's printer lays it out: NAME first, AGE last. */
export interface KindColumns {
  headers: readonly string[];
  /** What -o wide adds after them. */
  wideHeaders: readonly string[];
  row(object: Record<string, unknown>, nowMs: number): string[];
  wideRow(object: Record<string, unknown>): string[];
}

export interface KindEntry extends ManifestKind {
  /** `TYPE/NAME` spellings; undefined: not a type the commands take. */
  resource?: ResourceNames;
  /** Its pods are a controller's, found by the owner label (`Deployment/web`); false: the object is the pod. */
  ownsPods: boolean;
  /**
   * With `ownsPods`: the names its controller gives its pods, after `<name>-` (a regular
   * expression's source), as `events` tells a pod long gone by its name alone.
   */
  podNameSuffix?: string;
  /** With `ownsPods`: the kind its pods' ownerReference names, `<name>-<hash>` (a Deployment's ReplicaSet); none: the object itself. */
  podsOwnedVia?: string;
  /**
   * With `ownsPods`: whether its controller starts a pod only once the one before it is up
   * (a StatefulSet's OrderedReady); absent or false: its pods start together with every other.
   */
  startsInOrder?: (item: ManifestItem) => boolean;
  /**
   * The status conditions `wait --for=condition=` may wait for (kubectl's names); how each is
   * told is lib/apply/wait.ts's. Absent: none.
   */
  conditions?: readonly string[];
  /**
   * `podrun get TYPE`: its objects are made from the pods the engine holds (workload-objects.ts)
   * and printed in these columns. Absent: `get` lists it otherwise (pods, Services) or not at all.
   */
  columns?: KindColumns;
  /** Where its objects come in a run, lowest first; `validate` lists objects in the same order. */
  order: number;
  run: KindRun;
  /** `validate`'s summary of one object (`Pod web (2 containers)`); undefined: only counted. */
  describe?: (item: ManifestItem) => string;
  /** What `validate --json` may print of it (a Secret's values redacted). */
  printable?: (object: Record<string, unknown>) => Record<string, unknown>;
}

/** The kinds podrun reads, and the built-in kinds it skips with a Warning. */
export interface KindTable {
  kinds: readonly KindEntry[];
  warned: ReadonlySet<string>;
}
