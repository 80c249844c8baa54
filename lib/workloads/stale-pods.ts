import type { EventRecorder } from "../events/recorder.js";
import { groupPods } from "../pod/status/find-pods.js";
import { removePod } from "../pod/stop/remove-pod.js";
import type { StopFailure } from "../pod/stop/stop-pod.js";
import { LABEL_MANAGED, LABEL_POD_NAMESPACE, type ContainerRuntime } from "../runtime/types.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { OWNER_LABEL } from "./expand.js";

// What a controller deletes when the workload changes: the pods of the workload that its new
// spec no longer names. A Deployment whose template changed has a new template hash, hence new
// pod names, and its old pods go; fewer replicas remove the highest StatefulSet ordinals or the
// surplus ReplicaSet pods. They go before the new pods start (as the Recreate strategy does): on
// one machine the old and new pods would otherwise compete for the same host ports.

export interface StalePodsDeps {
  runtime: ContainerRuntime;
  recorder: Pick<EventRecorder, "event">;
}

export interface RemovedPod {
  name: string;
  failures: StopFailure[];
}

/** An object whose controller makes pods: its kind, name and namespace, and the pods its spec names now. */
export interface PodOwner {
  kind: string;
  name: string;
  namespace: string;
  pods: readonly Pod[];
}

/** Removes the workload's pods that are not among `workload.pods`, as `down` removes a pod. */
export async function removeStalePods(
  deps: StalePodsDeps,
  workload: PodOwner,
  options: { stateDir: string },
): Promise<RemovedPod[]> {
  const { runtime } = deps;
  const owned = {
    [LABEL_MANAGED]: "true",
    [LABEL_POD_NAMESPACE]: workload.namespace,
    [OWNER_LABEL]: `${workload.kind}/${workload.name}`,
  };
  const wanted = new Set(workload.pods.map((pod) => pod.metadata!.name!));
  // Each label checked here too: an engine that ORs label filters must never make another pod stale.
  const isOwned = (labels: Record<string, string>) =>
    Object.entries(owned).every(([key, value]) => labels[key] === value);
  const containers = (await runtime.listContainers(owned)).filter((state) => isOwned(state.labels));
  const stale = groupPods(containers).filter((pod) => !wanted.has(pod.name));
  return Promise.all(
    stale.map(async (pod) => ({ name: pod.name, failures: (await removePod(deps, pod, options)).failures })),
  );
}
