import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../errors.js";
import type { EventRecorder } from "../events/recorder.js";
import type { InvolvedObject } from "../events/types.js";
import { runLifecycleHandler } from "../pod/hooks.js";
import type { PodIdentity } from "../pod/identity.js";
import { normalizeProbe, type ProbeResult, type ProbeSpec } from "../probes/probe-spec.js";
import { GRPC_UNSUPPORTED, runProbe, type ProbeTarget } from "../probes/run-probe.js";
import { countProbeResult, initialThresholdState, type ThresholdState } from "../probes/thresholds.js";
import { describeError } from "../runtime/engine-error.js";
import type { ContainerRuntime, ContainerState } from "../runtime/types.js";
import { observeState, type ContainerTracker, type RestartPolicy } from "./readiness-tracker.js";
import type { Clock } from "./wait-clock.js";

// Liveness probes while `up --wait` waits, as the kubelet's liveness workers and SyncPod act on
// them (pkg/kubelet/prober/worker.go, pkg/kubelet/kuberuntime/kuberuntime_manager.go
// computePodActions, kuberuntime_container.go killContainer):
// - a container is probed once it runs and its startup probe (if any) has passed, from
//   initialDelaySeconds after its start, every periodSeconds; a probe that could not run at all
//   ("errored") is thrown away, as the kubelet's worker does;
// - each failure is an `Unhealthy` event; failureThreshold failures in a row kill the container:
//   `Killing` "Container x failed liveness probe, will be restarted", its preStop hook, then the
//   stop signal with the probe's terminationGracePeriodSeconds (else the pod's), what the hook
//   left of it, and at least the kubelet's 2 s;
// - unless the pod's restartPolicy is Never, the kubelet starts a NEW container whose restart
//   count is one more, after the crash-loop back-off (none the first time, then 10 s doubling to
//   5 min). podrun does the same: the killed container is removed (the new one takes its name)
//   and the pod's start path creates the new one (Pulled, Created, Started, postStart), labelled
//   with its restart count as the kubelet labels its containers, which `ps` adds to the engine's.
//   An engine restart cannot stand in: docker and podman never restart a container that was
//   stopped or killed through them.
// With restartPolicy Never the killed container stays exited, and the wait fails as for any exit.
// Nothing probes once podrun returns: the manifest's Warning says so (lib/manifest/support.ts).

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
  trackers: readonly ContainerTracker[];
  /** The containers' specs by name. */
  specOf: (name: string) => Container | undefined;
  objectOf: (name: string) => InvolvedObject;
  policyOf: (t: ContainerTracker) => RestartPolicy;
  target: (t: ContainerTracker) => ProbeTarget;
  /** The pod's address, for a preStop httpGet hook without a host. */
  podIP: string;
  clock: Clock;
  /** Aborts when the wait ends. */
  signal: AbortSignal;
  /** How often a container that does not run (or has not started) is looked at again. */
  pollMs: number;
  /** Records a probe attempt's event, as for the other probes ("Liveness probe failed: …"). */
  recordEvent: (t: ContainerTracker, probe: ProbeSpec, result: ProbeResult) => void;
  /** Ends the wait: a new container could not be made. */
  fail: (error: PodrunError) => void;
  /** The tracker changed: its readiness worker looks again. */
  wake: (t: ContainerTracker) => void;
}

export interface LivenessWatch {
  /**
   * Whether the wait should leave this tracker alone in the engine's answer `state`: podrun is
   * killing or replacing the container, or the answer predates the new container.
   */
  owns(t: ContainerTracker, state: ContainerState | undefined): boolean;
  /** Resolves once no kill or restart is under way (the wait ended meanwhile). */
  idle(): Promise<void>;
}

/** The kubelet's minimumGracePeriodInSeconds. */
const MIN_GRACE_PERIOD_SECONDS = 2;
const DEFAULT_GRACE_PERIOD_SECONDS = 30;
// The kubelet's crash-loop back-off (MaxContainerBackOff, and the fixed expiry of an entry).
const INITIAL_BACKOFF_MS = 10_000;
const MAX_BACKOFF_MS = 300_000;
const BACKOFF_EXPIRY_MS = 600_000;

/** Starts one liveness worker per container that has a livenessProbe. */
export function watchLiveness(context: LivenessContext): LivenessWatch {
  const replacing = new Set<ContainerTracker>();
  // Replaced, and not yet seen by the engine under its new ID.
  const unseen = new Set<ContainerTracker>();
  const busy = new Set<Promise<void>>();
  const backoff = new Map<string, { ms: number; lastUpdate: number }>();
  // Each worker's way to end its pause early: the tracker changed (a status read, a restart).
  const wakers = new Map<ContainerTracker, () => void>();
  const pause = async (t: ContainerTracker, ms: number) => {
    const timer = new AbortController();
    const abortTimer = () => timer.abort();
    context.signal.addEventListener("abort", abortTimer, { once: true });
    await Promise.race([new Promise<void>((resolve) => wakers.set(t, resolve)), context.clock.sleep(ms, timer.signal)]);
    timer.abort();
    context.signal.removeEventListener("abort", abortTimer);
  };

  async function worker(t: ContainerTracker, container: Container, probe: ProbeSpec): Promise<void> {
    const { clock, signal } = context;
    let threshold: ThresholdState = initialThresholdState("Liveness");
    let run: string | undefined;
    let next = 0;
    while (!signal.aborted) {
      if (!t.running || !t.startupPassed || replacing.has(t)) {
        await pause(t, Math.min(probe.periodMs, context.pollMs));
        continue;
      }
      // A new run (the engine restarted it, or podrun replaced it) is probed from scratch.
      if (t.run !== run) {
        run = t.run;
        threshold = initialThresholdState("Liveness");
        next = 0;
      }
      const now = clock.now();
      const due = Math.max(t.startedAtMs + probe.initialDelayMs, next);
      if (now < due) {
        await pause(t, due - now);
        continue;
      }
      next = now + probe.periodMs;
      const result = await runProbe(probe, context.target(t));
      if (signal.aborted || t.run !== run || replacing.has(t)) continue;
      context.recordEvent(t, probe, result);
      // The kubelet's worker throws away a probe that errored: it counts neither way.
      if (result.result === "unknown") continue;
      threshold = countProbeResult(threshold, result.result === "failure" ? "failure" : "success", probe);
      if (threshold.verdict !== "failure") continue;
      threshold = initialThresholdState("Liveness");
      const work = replace(t, container).catch((error: unknown) => context.fail(asPodrunError(t, error)));
      busy.add(work);
      await work;
      busy.delete(work);
    }
  }

  async function replace(t: ContainerTracker, container: Container): Promise<void> {
    const { runtime, recorder } = context;
    const object = context.objectOf(t.name);
    const restarts = context.policyOf(t) !== "Never";
    const oldId = t.id;
    const previous = t.state;
    replacing.add(t);
    // A probe of this run that answers now counts for nothing (wait-ready.ts compares runs).
    t.run = `${t.run ?? ""}|killed by liveness probe`;
    t.running = false;
    t.ready = false;
    context.wake(t);
    try {
      recorder.event(
        object,
        "Normal",
        "Killing",
        `Container ${t.name} failed liveness probe${restarts ? ", will be restarted" : ""}`,
      );
      await kill(oldId, container);
      const final = (await runtime.inspectContainers([oldId]).catch(() => []))[0];
      if (final) t.state = final;
      if (!restarts || context.signal.aborted) return; // the wait sees it exited, and judges it
      await backOff(t, object, final?.finishedAt);
      if (context.signal.aborted) return;
      const restartCount = (final ?? previous)?.restartCount ?? 0;
      let newId: string;
      try {
        await runtime.removeContainers([oldId]);
        newId = await context.restartContainer(t.name, restartCount + 1);
      } catch (error) {
        context.fail(asPodrunError(t, error));
        return;
      }
      moveTracker(t, newId);
      unseen.add(t);
      // Its probes start from its own start, not from the next status read.
      const [state] = await runtime.inspectContainers([newId]).catch(() => []);
      if (state && !context.signal.aborted) observeState(t, state, context.clock.now());
    } finally {
      replacing.delete(t);
      context.wake(t);
    }
  }

  // The kubelet's killContainer: preStop within the grace period, then the stop with what is left.
  async function kill(id: string, container: Container): Promise<void> {
    const { runtime, clock } = context;
    let grace =
      container.livenessProbe?.terminationGracePeriodSeconds ??
      context.pod.spec!.terminationGracePeriodSeconds ??
      DEFAULT_GRACE_PERIOD_SECONDS;
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

  // The kubelet's crash-loop back-off, keyed by container, from the killed container's finish time.
  async function backOff(t: ContainerTracker, object: InvolvedObject, finishedAt: string | undefined): Promise<void> {
    const { clock } = context;
    const finished = (finishedAt ? Date.parse(finishedAt.replace(/(\.\d{3})\d+/, "$1")) : NaN) || clock.now();
    const entry = backoff.get(t.name);
    const fresh = !entry || clock.now() - entry.lastUpdate > BACKOFF_EXPIRY_MS;
    if (!fresh) {
      const waitMs = finished + entry.ms - clock.now();
      if (waitMs > 0) {
        const { name, namespace, uid } = context.identity;
        context.recorder.event(
          object,
          "Warning",
          "BackOff",
          `Back-off restarting failed container ${t.name} in pod ${name}_${namespace}(${uid})`,
        );
        await clock.sleep(waitMs, context.signal);
      }
    }
    backoff.set(t.name, {
      ms: fresh ? INITIAL_BACKOFF_MS : Math.min(entry.ms * 2, MAX_BACKOFF_MS),
      lastUpdate: clock.now(),
    });
  }

  for (const t of context.trackers) {
    const container = context.specOf(t.name);
    if (!container?.livenessProbe) continue;
    if (container.livenessProbe.grpc) {
      context.recorder.event(
        context.objectOf(t.name),
        "Warning",
        "ProbeWarning",
        `Liveness probe warning: ${GRPC_UNSUPPORTED}`,
      );
      continue;
    }
    const probe = normalizeProbe("Liveness", container.livenessProbe, container);
    void worker(t, container, probe);
  }

  return {
    owns(t, state) {
      if (replacing.has(t)) return true;
      // Asked at each status read just before the tracker takes the state in: look once it has.
      queueMicrotask(() => wakers.get(t)?.());
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

// The tracker now follows the new container: a new run, with every probe starting over.
function moveTracker(t: ContainerTracker, id: string): void {
  t.id = id;
  delete t.run;
  delete t.state;
  delete t.lastFailure;
  t.running = false;
  t.startedAtMs = 0;
  t.startupPassed = t.startupProbe === undefined;
  t.startup = initialThresholdState("Startup");
  t.readiness = initialThresholdState("Readiness");
  t.nextProbeAt = 0;
  t.ready = false;
}

function asPodrunError(t: ContainerTracker, error: unknown): PodrunError {
  return error instanceof PodrunError
    ? error
    : new PodrunError("RunContainerError", `container ${t.name}: ${describeError(error)}`, { cause: error });
}
