import type { Pod } from "kubernetes-types/core/v1.js";
import type { PodRecord } from "../pod/status/find-pods.js";
import { selectPods, type WorkloadRef } from "../kinds/workload-ref.js";

// `podrun down deploy/web`, and the workloads of the manifests given to `down`: every pod the
// workload's controller made, as `kubectl delete` cascades to them. They are found by their owner
// label on the engine, not by the names the manifest expands to now: a Deployment's template
// edited since `up` has a new pod-template-hash, and its old pods must go too. The manifest's
// pods still count when they left only volumes or a pod directory (a killed `up`), as a bare
// pod's do, and give the preStop hooks and grace period of the pods they name.

/** A workload whose pods go down: named (`job/migrate`) or read from a manifest (with its pods). */
export interface WorkloadToDown {
  ref: WorkloadRef;
  namespace: string;
  /** The pods its manifest expands to, when it came from a file. */
  pods?: Pod[];
}

/** A pod of a workload to bring down (apply/down.ts DownTarget). */
export interface WorkloadPodTarget {
  name: string;
  namespace: string;
  manifest?: Pod;
}

/**
 * The pods of each workload among `found` (the engine's, every namespace of interest) and, for a
 * workload from a file, those of its manifest that `hasLeftovers`; the workloads with none.
 */
export async function findWorkloadPods(
  workloads: readonly WorkloadToDown[],
  found: readonly PodRecord[],
  hasLeftovers: (pod: { name: string; namespace: string }) => Promise<boolean>,
): Promise<{ targets: WorkloadPodTarget[]; notFound: WorkloadToDown[] }> {
  const targets: WorkloadPodTarget[] = [];
  const notFound: WorkloadToDown[] = [];
  const add = (target: WorkloadPodTarget) => {
    if (!targets.some((t) => t.name === target.name && t.namespace === target.namespace)) targets.push(target);
  };
  for (const workload of workloads) {
    const manifestOf = (name: string) => workload.pods?.find((pod) => pod.metadata?.name === name);
    const onEngine = selectPods(
      found.filter((record) => record.namespace === workload.namespace),
      workload.ref,
    );
    const left: Pod[] = [];
    for (const pod of workload.pods ?? []) {
      const name = pod.metadata!.name!;
      if (
        !onEngine.some((record) => record.name === name) &&
        (await hasLeftovers({ name, namespace: workload.namespace }))
      )
        left.push(pod);
    }
    if (onEngine.length === 0 && left.length === 0) notFound.push(workload);
    for (const record of onEngine)
      add({ name: record.name, namespace: record.namespace, ...withManifest(manifestOf(record.name)) });
    for (const pod of left) add({ name: pod.metadata!.name!, namespace: workload.namespace, manifest: pod });
  }
  return { targets, notFound };
}

function withManifest(pod: Pod | undefined): { manifest?: Pod } {
  return pod ? { manifest: pod } : {};
}
