import type { Pod, PodCondition } from "kubernetes-types/core/v1.js";
import { isSidecarState, kubeContainerName } from "./find-pods.js";
import { toKubeTime, type PodSummary } from "./pod-status.js";

// A pod as `kubectl get pods -o json` shows it, from what the engine says (pure): metadata, the
// names and images of its containers, and its status. Only what the engine can tell is there: no
// restartPolicy (but a sidecar's, from its kind label), no probes, no node.

/** The fields `--field-selector` may name for pods, as the API server allows them (a subset). */
export const POD_SELECTABLE_FIELDS = ["metadata.name", "metadata.namespace", "status.phase", "status.podIP"] as const;

/** A pod's selectable fields, for `--field-selector`. */
export function podFields(pod: PodSummary): Record<string, string> {
  return {
    "metadata.name": pod.name,
    "metadata.namespace": pod.namespace,
    "status.phase": pod.phase,
    "status.podIP": pod.podIP ?? "",
  };
}

/** The `kind: List` that `kubectl get pods -o json` prints, even with no pod in it. */
export function toPodList(pods: readonly PodSummary[]): {
  apiVersion: "v1";
  kind: "List";
  items: Pod[];
  metadata: { resourceVersion: string };
} {
  return { apiVersion: "v1", kind: "List", items: pods.map(toPodObject), metadata: { resourceVersion: "" } };
}

export function toPodObject(pod: PodSummary): Pod {
  const created = pod.createdAt ? toKubeTime(pod.createdAt) : undefined;
  const sidecars = new Set(pod.initContainers.filter(isSidecarState).map(kubeContainerName));
  // A sidecar initializes the pod once started; the others once they exited 0.
  const initialized = pod.initContainerStatuses.every((s) =>
    sidecars.has(s.name) ? s.started === true : s.state?.terminated?.exitCode === 0,
  );
  const containersReady = pod.total > 0 && pod.ready === pod.total;
  const condition = (type: string, ok: boolean): PodCondition => ({
    type,
    status: ok ? "True" : "False",
    ...(created ? { lastTransitionTime: created } : {}),
  });
  const spec = (states: PodSummary["appContainers"]) =>
    states.map((state) => ({
      name: kubeContainerName(state),
      image: state.image,
      ...(isSidecarState(state) ? { restartPolicy: "Always" } : {}),
    }));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: pod.name,
      namespace: pod.namespace,
      uid: pod.uid,
      ...(Object.keys(pod.labels).length > 0 ? { labels: { ...pod.labels } } : {}),
      ...(created ? { creationTimestamp: created } : {}),
    },
    spec: {
      ...(pod.initContainers.length > 0 ? { initContainers: spec(pod.initContainers) } : {}),
      containers: spec(pod.appContainers),
    },
    status: {
      phase: pod.phase,
      ...(pod.reason ? { reason: pod.reason, message: pod.message } : {}),
      conditions: [
        condition("Initialized", initialized),
        condition("Ready", containersReady),
        condition("ContainersReady", containersReady),
      ],
      ...(pod.podIP ? { podIP: pod.podIP, podIPs: [{ ip: pod.podIP }] } : {}),
      ...(created ? { startTime: created } : {}),
      ...(pod.initContainerStatuses.length > 0 ? { initContainerStatuses: pod.initContainerStatuses } : {}),
      containerStatuses: pod.containerStatuses,
    },
  };
}
