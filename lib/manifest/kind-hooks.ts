import type { PersistentVolumeClaim, Pod } from "kubernetes-types/core/v1.js";
import type { FieldError, Reporter } from "./field-error.js";
import type { ObjectIndex } from "./rules/context.js";
import type { PodObjects } from "./pod-objects.js";
import type { RuntimeName } from "../runtime/detect.js";
import type { WorkloadKind } from "./kinds.js";

// What the manifest reader asks of each kind it reads. The reader knows no kind by name: lib/kinds/
// registers one ManifestKind per kind (its table), and the reader validates and admits each object
// through its kind's hooks. A kind the table lacks is an error, a warned kind (a Service) a Warning.

/** A workload of the manifest (validated) and the pods it runs, as lib/workloads/expand.ts makes them. */
export interface Workload {
  kind: WorkloadKind;
  name: string;
  namespace: string;
  /** spec.replicas as defaulted (1); a DaemonSet has one pod (this machine is its one node), a Job `parallelism`. */
  replicas: number;
  /** The Deployment's pod-template-hash, the StatefulSet's revision hash; "" for the others. */
  templateHash: string;
  pods: Pod[];
  /** A StatefulSet's claims from its volumeClaimTemplates, one per template and pod: `<template>-<set>-<i>`. */
  claims: PersistentVolumeClaim[];
  /** The workload object itself, its namespace defaulted (for `validate --json`). */
  object: Record<string, unknown>;
}

/** One kind as the manifest reader sees it. */
export interface ManifestKind {
  kind: string;
  /** The one apiVersion the API server serves it at, as podrun reads it. */
  apiVersion: string;
  /** Other objects may name it (a pod's ConfigMap, a claim): it joins the object index of the set. */
  referable: boolean;
  /** The API server's semantic rules (the structure is the generated schema's, when it has the kind). */
  validate(value: unknown, context: ValidateContext): void;
  /** Rules across every object of the kind in the set (a Service's nodePort, unique among all of them). */
  validateSet?(objects: readonly { value: unknown; report: Reporter }[]): void;
  /** A valid object, defaulted, with its warnings: what the manifest keeps of it. */
  admit(value: Record<string, unknown>, context: AdmitContext): ManifestItem;
}

export interface ValidateContext {
  /** The ConfigMaps, Secrets and claims of the whole set. */
  index: ObjectIndex;
  report: Reporter;
}

export interface AdmitContext {
  /** A Warning on the object (a field podrun ignores). */
  warn: Reporter;
  /** A Warning that holds on one engine only. */
  warnOn: (engine: RuntimeName, error: FieldError) => void;
  /** `namespace/name` of every claim of the set (claimKeyOf). */
  claimKeys: ReadonlySet<string>;
  /** false: references to objects of other files are not checked (`down FILE`). */
  checkReferences: boolean;
}

/** One object of the manifest, admitted by its kind: kind-neutral, for `up`, `down` and `validate`. */
export interface ManifestItem {
  kind: string;
  name: string;
  namespace: string;
  /** The object as the API server keeps it, defaults applied (`validate --json` prints it). */
  object: Record<string, unknown>;
  /** The pods that run for it, as its controller makes them; a Pod is its own one pod. */
  pods: Pod[];
  /** What the pods of the set may read of it (a ConfigMap, a claim, a StatefulSet's claims). */
  podObjects?: Partial<PodObjects>;
  /** A workload's expansion (lib/workloads/expand.ts): its pods, hash and claims as its controller makes them. */
  workload?: Workload;
  /** The file it was read from (set by the reader). */
  source: string;
}

/** The persistent volume claims of an item's pod objects (a StatefulSet's, or the claim itself). */
export function claimsOf(item: ManifestItem): readonly PersistentVolumeClaim[] {
  return item.podObjects?.persistentVolumeClaims ?? [];
}
