import type { Container, LifecycleHandler, PodSpec } from "kubernetes-types/core/v1.js";
import { LABEL_PRESTOP_HANDLER, LABEL_TERMINATION_GRACE_PERIOD } from "../../runtime/types.js";

// What `down` needs to stop a container as the kubelet would, kept on the container itself: the
// kubelet stores the same two things as annotations (pkg/kubelet/kuberuntime/labels.go), so that a pod can be killed
// without its spec. `podrun down NAME` has no manifest; these labels are its spec. So is the pod's
// activeDeadlineSeconds, when its containers are to be stopped (lib/pod/active-deadline.ts).

/** Labels for a container: the pod's grace period, and the preStop handler of an app container or sidecar. */
export function buildStopLabels(
  spec: PodSpec,
  container: Container,
  kind: "init" | "sidecar" | "app",
): Record<string, string> {
  const labels: Record<string, string> = {
    [LABEL_TERMINATION_GRACE_PERIOD]: String(spec.terminationGracePeriodSeconds ?? 30),
  };
  const preStop = container.lifecycle?.preStop;
  // Only sidecars among init containers may have lifecycle hooks (validation refuses the others').
  if (preStop && kind !== "init") labels[LABEL_PRESTOP_HANDLER] = JSON.stringify(withNumericPort(preStop, container));
  return labels;
}

/** The grace period and preStop handler read back from a container's labels (undefined when absent or unreadable). */
export function readStopLabels(labels: Record<string, string>): {
  gracePeriodSeconds?: number;
  preStop?: LifecycleHandler;
} {
  const out: { gracePeriodSeconds?: number; preStop?: LifecycleHandler } = {};
  const grace = labels[LABEL_TERMINATION_GRACE_PERIOD];
  if (grace !== undefined && /^\d+$/.test(grace)) out.gracePeriodSeconds = Number(grace);
  const handler = labels[LABEL_PRESTOP_HANDLER];
  if (handler !== undefined) {
    try {
      const parsed: unknown = JSON.parse(handler);
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) out.preStop = parsed;
    } catch {
      // A label edited by hand: no hook rather than a wrong one.
    }
  }
  return out;
}

// A named port means nothing without the container's ports: store the number it names.
function withNumericPort(handler: LifecycleHandler, container: Container): LifecycleHandler {
  const port = handler.httpGet?.port;
  if (typeof port !== "string" || /^\d+$/.test(port)) return handler;
  const named = container.ports?.find((p) => p.name === port);
  return named ? { ...handler, httpGet: { ...handler.httpGet!, port: named.containerPort } } : handler;
}

/** spec.activeDeadlineSeconds, in seconds, on every container of a pod that sets it. */
export const LABEL_ACTIVE_DEADLINE = "io.podrun.pod.activeDeadlineSeconds";

/** The label of a pod that sets activeDeadlineSeconds; none otherwise. */
export function activeDeadlineLabels(spec: Pick<PodSpec, "activeDeadlineSeconds">): Record<string, string> {
  const seconds = spec.activeDeadlineSeconds;
  return typeof seconds === "number" ? { [LABEL_ACTIVE_DEADLINE]: String(seconds) } : {};
}
