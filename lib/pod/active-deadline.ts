import type { ClusterNetwork } from "./cluster-network.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { errorFirstLine, PodrunError } from "../errors.js";
import type { EventRecorder } from "../events/recorder.js";
import { toInvolvedObject } from "../events/types.js";
import type { StartedContainer } from "./readiness/prober-types.js";
import { describeError } from "../runtime/engine-error.js";
import type { ContainerRuntime, ContainerState } from "../runtime/types.js";
import { podSelector, type PodIdentity } from "./identity.js";
import { describeDesiredPod, planPod } from "./reconcile/reconcile-plan.js";
import type { PodObjects } from "../manifest/pod-objects.js";
import { LABEL_ACTIVE_DEADLINE } from "./spec/stop-labels.js";
import { findPods, groupPods, type PodRecord } from "./status/find-pods.js";
import { summarizePod, type PodSummary } from "./status/pod-status.js";
import { stopPod } from "./stop/stop-pod.js";

// spec.activeDeadlineSeconds as the kubelet judges it (pkg/kubelet/active_deadline.go): a pod
// whose start time lies at least that many seconds in the past is Failed, with reason
// DeadlineExceeded and the kubelet's message, and a pod that was already Succeeded or Failed stays
// what it was. The start time is the sandbox's creation (the first container's without one), the
// same time `ps` shows as AGE: it stays when `up` keeps the pod, and a new pod has a new one.
// The deadline itself travels as a label on each container, since `ps` has no manifest: only a
// pod that sets the field carries it (spec/stop-labels.ts).

export const DEADLINE_EXCEEDED_REASON = "DeadlineExceeded";
export const DEADLINE_EXCEEDED_MESSAGE = "Pod was active on the node longer than the specified deadline";

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

// spec.activeDeadlineSeconds, enforced while podrun acts on the pod, as the kubelet enforces it
// (pkg/kubelet/active_deadline.go): once the pod has been active that long, it is Failed
// (DeadlineExceeded, a Normal event of that reason with the kubelet's message) and its containers
// are killed as for a pod that ends: Killing, preStop hooks, the stop signal, SIGKILL when
// terminationGracePeriodSeconds runs out. They are stopped, not removed: `ps` and `logs` show them.
// podrun enforces it during `up --wait` (lib/pod/readiness/wait-ready.ts fails at the deadline), and
// on an `up` of a pod already past its deadline (it stays Failed, as on a node; `--replace` makes
// a new pod). Once `up` has returned nothing watches the clock: `ps` shows the pod as
// DeadlineExceeded (applyActiveDeadline).

type Deps = { runtime: ContainerRuntime; recorder: Pick<EventRecorder, "event"> };

/** The wait's failure when the deadline passes: the kubelet's reason and message. */
export function deadlineExceededError(pod: Pod): PodrunError {
  return new PodrunError(
    "DeadlineExceeded",
    `${DEADLINE_EXCEEDED_MESSAGE} (activeDeadlineSeconds: ${pod.spec!.activeDeadlineSeconds})`,
  );
}

/**
 * When the pod's deadline passes, for `up --wait` (wait-ready.ts fails with `error` then);
 * undefined when the pod sets none. The start time is read from the engine: a kept pod keeps its own.
 */
export async function findActiveDeadline(
  runtime: Pick<ContainerRuntime, "inspectContainers">,
  pod: Pod,
  started: { sandboxId?: string | undefined; containers: readonly StartedContainer[] },
  now: () => number = Date.now,
  onInspectError?: (message: string) => void,
): Promise<{ atMs: number; error: PodrunError } | undefined> {
  const seconds = pod.spec!.activeDeadlineSeconds;
  if (typeof seconds !== "number") return undefined;
  // A start time that cannot be read puts the deadline later than the pod's: the caller is told (a Warning).
  let told = false;
  const unread = (error: unknown): ContainerState[] => {
    if (!told)
      onInspectError?.(`error determining status: ${errorFirstLine(error)}: activeDeadlineSeconds counted from now`);
    told = true;
    return [];
  };
  const [sandbox] = started.sandboxId ? await runtime.inspectContainers([started.sandboxId]).catch(unread) : [];
  const containers = sandbox ? [] : await runtime.inspectContainers(started.containers.map((c) => c.id)).catch(unread);
  // An engine that gives no time: counted from now, which is later than the real start.
  const startMs = podStartMs(sandbox, containers) ?? now();
  return { atMs: deadlineAtMs(startMs, seconds), error: deadlineExceededError(pod) };
}

/**
 * The kubelet's handling of a pod past its deadline: the DeadlineExceeded event, then its running
 * containers stopped (not removed) with their grace period. Returns a line for each thing that
 * could not be stopped (`down` is then the way out).
 */
export async function failPodAtDeadline(deps: Deps, options: { pod: Pod; identity: PodIdentity }): Promise<string[]> {
  const { identity } = options;
  deps.recorder.event(toInvolvedObject(identity), "Normal", DEADLINE_EXCEEDED_REASON, DEADLINE_EXCEEDED_MESSAGE);
  try {
    const [record] = await findPods(deps.runtime, { namespace: identity.namespace, name: identity.name });
    if (!record) return [];
    const result = await stopPod(deps, { pod: record, volumes: [], manifest: options.pod, keepStopped: true });
    return result.failures.map((failure) => `podrun: could not stop ${failure.object}: ${failure.message}`);
  } catch (error) {
    return [`podrun: could not stop pod/${identity.name}: ${describeError(error)}`];
  }
}

/**
 * `up` of a pod the engine already has, that is the same pod (kept, or its sandbox restarted) and
 * past its deadline: a node would not start it again. Fails it (failPodAtDeadline) and returns the
 * error; undefined when `up` goes on (no deadline, none passed, a new pod, `--replace`).
 */
export async function failExpiredPod(
  deps: Deps,
  options: {
    pod: Pod;
    identity: PodIdentity;
    infraImage: string;
    publishAll: boolean;
    cluster?: ClusterNetwork | undefined;
    objects?: PodObjects;
    replace: boolean;
    now?: () => number;
  },
): Promise<PodrunError | undefined> {
  const { pod } = options;
  if (typeof pod.spec!.activeDeadlineSeconds !== "number" || options.replace) return undefined;
  const existing = await deps.runtime.listContainers(podSelector(options.identity));
  if (existing.length === 0) return undefined;
  // Another deadline, or any other pod-level change, makes a new pod with a start time of its own.
  if (planPod(existing, describeDesiredPod(options)).uid === undefined) return undefined;
  const [record] = groupPods(existing);
  if (!record) return undefined;
  const summary = applyActiveDeadline(summarizePod(record, deps.runtime.name), record, (options.now ?? Date.now)());
  if (summary.reason !== DEADLINE_EXCEEDED_REASON) return undefined;
  const failures = await failPodAtDeadline(deps, { pod, identity: { ...options.identity, uid: record.uid } });
  const error = deadlineExceededError(pod);
  return failures.length > 0 ? new PodrunError(error.reason, error.message, { details: failures.join("\n") }) : error;
}

/** `up` without --wait: one Warning per pod that sets a deadline, since nothing will enforce it. */
export function formatDeadlineWarnings(manifest: {
  pods: readonly Pod[];
  podSources: ReadonlyMap<Pod, string>;
  source: string;
}): string[] {
  return manifest.pods
    .filter((pod) => typeof pod.spec!.activeDeadlineSeconds === "number")
    .map((pod) => {
      const source = manifest.podSources.get(pod) ?? manifest.source;
      const seconds = pod.spec!.activeDeadlineSeconds!;
      return `${source}: Warning: spec.activeDeadlineSeconds: enforced only while podrun up --wait waits: nothing stops pod/${pod.metadata!.name} when its ${seconds}s pass; podrun ps then shows it as DeadlineExceeded`;
    });
}
