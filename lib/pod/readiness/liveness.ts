import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import type { InvolvedObject } from "../../events/types.js";
import { runLifecycleHandler } from "../hooks.js";
import type { PodIdentity } from "../identity.js";
import { describeError } from "../../runtime/engine-error.js";
import type { ContainerRuntime, ContainerState } from "../../runtime/types.js";
import { Backoff, CRASH_LOOP_BACKOFF } from "../../state/backoff.js";
import { followNewContainer, observeState, type ContainerTracker, type RestartPolicy } from "./readiness-tracker.js";
import type { Clock } from "./wait-clock.js";
import { DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS } from "../../manifest/defaults.js";
import { MIN_GRACE_PERIOD_SECONDS } from "../stop/stop-pod.js";

// What a liveness failure does while `up --wait` waits, as SyncPod acts on it
// (pkg/kubelet/kuberuntime/kuberuntime_manager.go computePodActions, kuberuntime_container.go
// killContainer); the probing itself is a worker like the others (probe-worker.ts):
// - failureThreshold failures in a row kill the container: `Killing` "Container x failed liveness
//   probe, will be restarted", its preStop hook, then the stop signal with the probe's
//   terminationGracePeriodSeconds (else the pod's), what the hook left of it, and at least the
//   kubelet's 2 s;
// - unless the pod's restartPolicy is Never, the kubelet starts a NEW container whose restart
//   count is one more, after the crash-loop back-off (none the first time, then 10 s doubling to
//   5 min: lib/state/backoff.ts CRASH_LOOP_BACKOFF). podrun does the same: the killed container is
//   removed (the new one takes its name) and the pod's start path creates the new one (Pulled,
//   Created, Started, postStart), labelled with its restart count as the kubelet labels its
//   containers, which `ps` adds to the engine's. An engine restart cannot stand in: docker and
//   podman never restart a container that was stopped or killed through them.
// With restartPolicy Never the killed container stays exited, and the wait fails as for any exit.
// Nothing probes once podrun returns: the manifest's Warning says so (lib/kinds/support/support.ts).

/** Makes the container named `name` again, labelled with `restartCount`; resolves with its runtime ID. */
export type RestartContainer = (name: string, restartCount: number) => Promise<string>;

export interface LivenessOptions {
  runtime: ContainerRuntime;
  /** The pod's start path for one container (start-pod.ts). */
  restartContainer: RestartContainer;
}

export interface LivenessContext extends LivenessOptions {
  recorder: Pick<EventRecorder, "event">;
  pod: Pod;
  identity: PodIdentity;
  /** The containers' specs by name. */
  specOf: (name: string) => Container | undefined;
  objectOf: (name: string) => InvolvedObject;
  policyOf: (t: ContainerTracker) => RestartPolicy;
  /** The pod's address, for a preStop httpGet hook without a host. */
  podIP: string;
  clock: Clock;
  /** Aborts when the wait ends. */
  signal: AbortSignal;
  /** Ends the wait: a new container could not be made. */
  fail: (error: PodrunError) => void;
  /** The tracker changed: its other workers look again. */
  wake: (t: ContainerTracker) => void;
  /** Its liveness worker looks again (a status read came in). */
  wakeLiveness: (t: ContainerTracker) => void;
}

/** Kills and replaces containers whose liveness probe failed; tells the status watcher what to leave alone. */
export interface LivenessRestarter {
  /** Kills the container of `t` and, unless the policy is Never, makes it anew; never rejects. */
  restart(t: ContainerTracker): Promise<void>;
  /** Whether podrun is killing or replacing the container of `t`. */
  replacing(t: ContainerTracker): boolean;
  /**
   * Whether the status watcher should leave this tracker alone in the engine's answer `state`:
   * podrun is killing or replacing the container, or the answer predates the new container.
   */
  owns(t: ContainerTracker, state: ContainerState | undefined): boolean;
  /** Resolves once no kill or restart is under way (the wait ended meanwhile). */
  idle(): Promise<void>;
}

export function createLivenessRestarter(context: LivenessContext): LivenessRestarter {
  const replacing = new Set<ContainerTracker>();
  // Replaced, and not yet seen by the engine under its new ID.
  const unseen = new Set<ContainerTracker>();
  const busy = new Set<Promise<void>>();
  const backoff = new Backoff(CRASH_LOOP_BACKOFF);
  const replace = (t: ContainerTracker) => replaceContainer(context, { t, replacing, unseen, backoff });
  return {
    async restart(t) {
      const work = replace(t).catch((error: unknown) => context.fail(asPodrunError(t, error)));
      busy.add(work);
      await work;
      busy.delete(work);
    },
    replacing: (t) => replacing.has(t),
    owns(t, state) {
      if (replacing.has(t)) return true;
      // Asked at each status read just before the tracker takes the state in: look once it has.
      queueMicrotask(() => context.wakeLiveness(t));
      if (!unseen.has(t)) return false;
      if (state === undefined) return true;
      unseen.delete(t);
      return false;
    },
    async idle() {
      while (busy.size > 0) await Promise.allSettled([...busy]);
    },
  };
}

interface ReplaceState {
  t: ContainerTracker;
  replacing: Set<ContainerTracker>;
  unseen: Set<ContainerTracker>;
  backoff: Backoff;
}

// Kill; then, when the policy restarts it, the back-off and a new container in its place.
async function replaceContainer(context: LivenessContext, state: ReplaceState): Promise<void> {
  const { t } = state;
  const { runtime } = context;
  const restarts = context.policyOf(t) !== "Never";
  const oldId = t.id;
  const previous = t.state;
  state.replacing.add(t);
  // A probe of this run that answers now counts for nothing (probe-worker.ts compares runs).
  t.run = `${t.run ?? ""}|killed by liveness probe`;
  t.running = false;
  t.ready = false;
  context.wake(t);
  try {
    const message = `Container ${t.name} failed liveness probe${restarts ? ", will be restarted" : ""}`;
    context.recorder.event(context.objectOf(t.name), "Normal", "Killing", message);
    await killContainer(context, oldId, context.specOf(t.name) ?? { name: t.name });
    // Unread, the old state stands and the back-off counts from now; the status watcher's next read reports the engine.
    const final = (await runtime.inspectContainers([oldId]).catch(() => []))[0];
    if (final) t.state = final;
    if (!restarts || context.signal.aborted) return; // the wait sees it exited, and judges it
    await waitOutBackoff(context, state, final?.finishedAt);
    if (context.signal.aborted) return;
    await makeNewContainer(context, state, oldId, ((final ?? previous)?.restartCount ?? 0) + 1);
  } finally {
    state.replacing.delete(t);
    context.wake(t);
  }
}

async function makeNewContainer(
  context: LivenessContext,
  state: ReplaceState,
  oldId: string,
  restartCount: number,
): Promise<void> {
  const { t } = state;
  const { runtime } = context;
  let newId: string;
  try {
    await runtime.removeContainers([oldId]);
    newId = await context.restartContainer(t.name, restartCount);
  } catch (error) {
    context.fail(asPodrunError(t, error));
    return;
  }
  followNewContainer(t, newId);
  state.unseen.add(t);
  // Its probes start from its own start, not from the next status read.
  // Unread, the probes start from the status watcher's next read, which reports an engine that keeps failing.
  const [started] = await runtime.inspectContainers([newId]).catch(() => []);
  if (started && !context.signal.aborted) observeState(t, started, context.clock.now());
}

// The kubelet's killContainer: preStop within the grace period, then the stop with what is left.
async function killContainer(context: LivenessContext, id: string, container: Container): Promise<void> {
  const { runtime, clock } = context;
  let grace =
    container.livenessProbe?.terminationGracePeriodSeconds ??
    context.pod.spec!.terminationGracePeriodSeconds ??
    DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  const preStop = container.lifecycle?.preStop;
  if (preStop && grace > 0) {
    const started = clock.now();
    await runLifecycleHandler(preStop, {
      runtime,
      containerId: id,
      container,
      podIP: context.podIP,
      timeoutMs: grace * 1000,
    }).catch(() => {
      // The kubelet's fixed text: the hook's own output may hold secrets. The stop goes on.
      context.recorder.event(context.objectOf(container.name), "Warning", "FailedPreStopHook", "PreStopHook failed");
    });
    grace -= Math.floor((clock.now() - started) / 1000);
  }
  await runtime.stopContainer(id, Math.max(MIN_GRACE_PERIOD_SECONDS, grace)).catch(() => undefined); // the removal forces it
}

// The kubelet's doBackOff: keyed by container, counted from the killed container's finish time.
async function waitOutBackoff(
  context: LivenessContext,
  state: ReplaceState,
  finishedAt: string | undefined,
): Promise<void> {
  const { clock } = context;
  const { t, backoff } = state;
  const now = clock.now();
  const finished = (finishedAt ? Date.parse(finishedAt.replace(/(\.\d{3})\d+/, "$1")) : NaN) || now;
  if (backoff.isInBackOffSince(t.name, finished, now)) {
    const { name, namespace, uid } = context.identity;
    const message = `Back-off restarting failed container ${t.name} in pod ${name}_${namespace}(${uid})`;
    context.recorder.event(context.objectOf(t.name), "Warning", "BackOff", message);
    await clock.sleep(finished + backoff.get(t.name, now)! - now, context.signal);
  }
  backoff.next(t.name, clock.now());
}

function asPodrunError(t: ContainerTracker, error: unknown): PodrunError {
  return error instanceof PodrunError
    ? error
    : new PodrunError("RunContainerError", `container ${t.name}: ${describeError(error)}`, { cause: error });
}
