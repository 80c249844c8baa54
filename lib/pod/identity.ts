import { randomUUID } from "node:crypto";
import type { Pod } from "kubernetes-types/core/v1.js";
import {
  LABEL_CONTAINER_KIND,
  LABEL_CONTAINER_NAME,
  LABEL_MANAGED,
  LABEL_POD_NAME,
  LABEL_POD_NAMESPACE,
  LABEL_POD_UID,
} from "../runtime/types.js";

/** Who a pod is for one `podrun up`: its name, namespace and the UID of this run. */
export interface PodIdentity {
  name: string;
  namespace: string;
  /** `metadata.uid` when the manifest gives one, else a fresh UUID per run, as the API server assigns. */
  uid: string;
}

export function identifyPod(pod: Pod): PodIdentity {
  return {
    name: pod.metadata!.name!,
    namespace: pod.metadata!.namespace ?? "default",
    uid: pod.metadata?.uid || randomUUID(),
  };
}

// Runtime names are `<namespace>_<pod>_<container>`: readable in `docker ps`, and unique per
// engine because `_` can appear in no Kubernetes name. The sandbox is `<namespace>_<pod>` (the
// podman pod), and its infra container `<namespace>_<pod>_POD`, the kubelet's name for it. (The kubelet's dockershim form `k8s_<c>_<pod>_<ns>_<uid>_<n>` put
// the UID in the name, which changes every run and would defeat finding a pod by name.)
export function containerRuntimeName(pod: PodIdentity, container: string): string {
  return `${pod.namespace}_${pod.name}_${container}`;
}

/** The sandbox's name: podman's pod, and the stem of the infra container's name (runtime dialects). */
export function sandboxRuntimeName(pod: PodIdentity): string {
  return `${pod.namespace}_${pod.name}`;
}

/** The kubelet's four labels plus podrun's own marker: all that `down`, `ps` and `logs` rely on. */
export function containerLabels(
  pod: PodIdentity,
  container: string,
  kind?: "init" | "sidecar" | "app" | "infra",
): Record<string, string> {
  return {
    [LABEL_POD_NAME]: pod.name,
    [LABEL_POD_NAMESPACE]: pod.namespace,
    [LABEL_POD_UID]: pod.uid,
    [LABEL_CONTAINER_NAME]: container,
    [LABEL_MANAGED]: "true",
    ...(kind ? { [LABEL_CONTAINER_KIND]: kind } : {}),
  };
}

/** Labels to find every container of one pod, whatever the run that made it. */
export function podSelector(pod: Pick<PodIdentity, "name" | "namespace">): Record<string, string> {
  return { [LABEL_POD_NAME]: pod.name, [LABEL_POD_NAMESPACE]: pod.namespace, [LABEL_MANAGED]: "true" };
}
