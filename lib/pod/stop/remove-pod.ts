import type { Pod } from "kubernetes-types/core/v1.js";
import { LABEL_MANAGED, LABEL_POD_NAME, LABEL_POD_NAMESPACE } from "../../runtime/types.js";
import type { PodRecord } from "../status/find-pods.js";
import { podDirectory } from "../volumes/pod-dir.js";
import { stopPod, type StopPodDeps, type StopPodResult } from "./stop-pod.js";

/**
 * One pod removed as `down` removes it, for a controller that deletes a pod (a workload's stale
 * pods, a Job's): stop-pod.ts with the pod's own volumes, read from the engine by its labels, and
 * its pod directory.
 */
export async function removePod(
  deps: StopPodDeps,
  pod: PodRecord,
  options: { stateDir: string; manifest?: Pod | undefined },
): Promise<StopPodResult> {
  const labels = { [LABEL_MANAGED]: "true", [LABEL_POD_NAMESPACE]: pod.namespace, [LABEL_POD_NAME]: pod.name };
  // Each label checked here too: an engine that ORs label filters must never hand over another pod's volume.
  const volumes = (await deps.runtime.listVolumes(labels)).filter((volume) =>
    Object.entries(labels).every(([key, value]) => volume.labels[key] === value),
  );
  return stopPod(deps, {
    pod,
    volumes,
    podDir: podDirectory(options.stateDir, deps.runtime.name, pod),
    ...(options.manifest ? { manifest: options.manifest } : {}),
  });
}
