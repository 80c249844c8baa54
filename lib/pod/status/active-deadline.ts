import type { PodSpec } from "kubernetes-types/core/v1.js";
import type { ContainerState } from "../../runtime/types.js";
import type { PodRecord } from "./find-pods.js";
import type { PodSummary } from "./pod-status.js";

// spec.activeDeadlineSeconds as the kubelet judges it (pkg/kubelet/active_deadline.go): a pod
// whose start time lies at least that many seconds in the past is Failed, with reason
// DeadlineExceeded and the kubelet's message, and a pod that was already Succeeded or Failed stays
// what it was. The start time is the sandbox's creation (the first container's without one), the
// same time `ps` shows as AGE: it stays when `up` keeps the pod, and a new pod has a new one.
// The deadline itself travels as a label on each container, since `ps` has no manifest: only a
// pod that sets the field carries it. Pure: lib/readiness/active-deadline.ts acts on it.

export const DEADLINE_EXCEEDED_REASON = "DeadlineExceeded";
export const DEADLINE_EXCEEDED_MESSAGE = "Pod was active on the node longer than the specified deadline";
/** spec.activeDeadlineSeconds, in seconds, on every container of a pod that sets it. */
export const LABEL_ACTIVE_DEADLINE = "io.podrun.pod.activeDeadlineSeconds";

/** The label of a pod that sets activeDeadlineSeconds; none otherwise. */
export function activeDeadlineLabels(spec: Pick<PodSpec, "activeDeadlineSeconds">): Record<string, string> {
  const seconds = spec.activeDeadlineSeconds;
  return typeof seconds === "number" ? { [LABEL_ACTIVE_DEADLINE]: String(seconds) } : {};
}

/** The deadline (seconds) the pod's containers carry; the newest container's when they differ. */
export function readActiveDeadline(containers: readonly ContainerState[]): number | undefined {
  let found: number | undefined;
  for (const state of containers) {
    const text = state.labels[LABEL_ACTIVE_DEADLINE];
    if (text !== undefined && /^\d+$/.test(text)) found = Number(text);
  }
  return found;
}

/** The pod's start time (ms): its sandbox's creation, else its first container's; undefined when the engine gives none. */
export function podStartMs(
  sandbox: ContainerState | undefined,
  containers: readonly ContainerState[],
): number | undefined {
  const fromSandbox = parseEngineTime(sandbox?.createdAt ?? "");
  if (fromSandbox !== undefined) return fromSandbox;
  const times = containers.map((c) => parseEngineTime(c.createdAt)).filter((ms): ms is number => ms !== undefined);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** When the deadline passes (ms): the kubelet's test is `now - start >= deadline`. */
export function deadlineAtMs(startMs: number, seconds: number): number {
  return startMs + seconds * 1000;
}

/**
 * `summary` as the kubelet would report the pod once its deadline has passed: phase Failed,
 * reason and message DeadlineExceeded, no container ready, and STATUS `DeadlineExceeded` (kubectl
 * prints the pod's reason; the kubelet's last container statuses are those it saw before killing
 * them). Unchanged before the deadline, without one, or when every container had ended before it
 * (the pod was Succeeded or Failed by then, and a terminal phase does not change).
 */
export function applyActiveDeadline(summary: PodSummary, record: PodRecord, nowMs: number): PodSummary {
  const containers = [...summary.initContainers, ...summary.appContainers];
  const seconds = readActiveDeadline([...record.initContainers, ...record.appContainers]);
  const startMs = parseEngineTime(summary.createdAt);
  if (seconds === undefined || startMs === undefined) return summary;
  const at = deadlineAtMs(startMs, seconds);
  if (nowMs < at) return summary;
  if (endedBefore(summary, containers, at)) return summary;
  const notReady = <T extends { ready: boolean }>(status: T): T => ({ ...status, ready: false });
  return {
    ...summary,
    phase: "Failed",
    status: DEADLINE_EXCEEDED_REASON,
    reason: DEADLINE_EXCEEDED_REASON,
    message: DEADLINE_EXCEEDED_MESSAGE,
    ready: 0,
    initContainerStatuses: summary.initContainerStatuses.map(notReady),
    containerStatuses: summary.containerStatuses.map(notReady),
  };
}

// A terminal pod whose containers had all finished before the deadline.
function endedBefore(summary: PodSummary, containers: readonly ContainerState[], atMs: number): boolean {
  if (summary.phase !== "Succeeded" && summary.phase !== "Failed") return false;
  return containers.every((c) => {
    const finished = parseEngineTime(c.finishedAt);
    return !c.running && finished !== undefined && finished < atMs;
  });
}

/** An engine time at millisecond precision (engines print nanoseconds); undefined when empty or unreadable. */
export function parseEngineTime(text: string): number | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text.replace(/(\.\d{3})\d+/, "$1"));
  return Number.isNaN(ms) ? undefined : ms;
}
