import type { Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../errors.js";
import type { EventRecorder } from "../events/recorder.js";
import { toInvolvedObject } from "../events/types.js";
import type { PodIdentity } from "../pod/identity.js";
import { podSelector } from "../pod/identity.js";
import { describeDesiredPod, planPod } from "../pod/reconcile/reconcile-plan.js";
import type { StartedPod } from "../pod/start/start-pod.js";
import {
  applyActiveDeadline,
  DEADLINE_EXCEEDED_MESSAGE,
  DEADLINE_EXCEEDED_REASON,
  deadlineAtMs,
  podStartMs,
} from "../pod/status/active-deadline.js";
import { findPods, groupPods } from "../pod/status/find-pods.js";
import { summarizePod } from "../pod/status/pod-status.js";
import type { PodObjects } from "../pod/spec/pod-objects.js";
import { stopPod } from "../pod/stop/stop-pod.js";
import { describeError } from "../runtime/engine-error.js";
import type { ContainerRuntime } from "../runtime/types.js";

// spec.activeDeadlineSeconds, enforced while podrun acts on the pod, as the kubelet enforces it
// (pkg/kubelet/active_deadline.go): once the pod has been active that long, it is Failed
// (DeadlineExceeded, a Normal event of that reason with the kubelet's message) and its containers
// are killed as for a pod that ends: Killing, preStop hooks, the stop signal, SIGKILL when
// terminationGracePeriodSeconds runs out. They are stopped, not removed: `ps` and `logs` show them.
// podrun enforces it during `up --wait`, and on an `up` of a pod already past its deadline (it
// stays Failed, as on a node; `--replace` makes a new pod). Once `up` has returned nothing watches
// the clock: `ps` shows the pod as DeadlineExceeded (lib/pod/status/active-deadline.ts).

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
  started: Pick<StartedPod, "sandboxId" | "containers">,
  now: () => number = Date.now,
): Promise<{ atMs: number; error: PodrunError } | undefined> {
  const seconds = pod.spec!.activeDeadlineSeconds;
  if (typeof seconds !== "number") return undefined;
  const [sandbox] = started.sandboxId ? await runtime.inspectContainers([started.sandboxId]).catch(() => []) : [];
  const containers = sandbox
    ? []
    : await runtime.inspectContainers(started.containers.map((c) => c.id)).catch(() => []);
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
