import type { StopFailure } from "../pod/stop/stop-pod.js";
import { removeStalePods, type PodOwner, type StalePodsDeps } from "../workloads/stale-pods.js";

// `up`'s first step: the pods a workload's spec no longer names (lib/workloads/stale-pods.ts), a
// template changed or fewer replicas, removed as a cluster's controllers would delete them.

/** One stale pod removed (no failures) or not fully. */
export interface StalePodOutcome {
  name: string;
  owner: Pick<PodOwner, "kind" | "name">;
  failures: StopFailure[];
}

export async function removeStaleWorkloadPods(
  deps: StalePodsDeps,
  owner: PodOwner,
  options: { stateDir: string },
): Promise<StalePodOutcome[]> {
  // The runtime's errors come explained (EngineError): they go on up as they are.
  const removed = await removeStalePods(deps, owner, options);
  return removed.map(({ name, failures }) => ({ name, owner, failures }));
}
