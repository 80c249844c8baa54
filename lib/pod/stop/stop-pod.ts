import type { LifecycleHandler, Pod } from "kubernetes-types/core/v1.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import type { ContainerRuntime, ContainerState, VolumeInfo } from "../../runtime/types.js";
import { isSidecarState, kubeContainerName, type PodRecord } from "../status/find-pods.js";
import { HookError, runLifecycleHandler } from "../hooks.js";
import { sandboxRuntimeName } from "../identity.js";
import { removePodDirectory } from "../volumes/pod-dir.js";
import { readStopLabels } from "../spec/stop-labels.js";
import { describeError } from "../../runtime/engine-error.js";
import { DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS } from "../../manifest/defaults.js";
import { startGraceCountdown } from "./grace-countdown.js";

// The kubelet's killPod (kuberuntime_container.go killContainer) for `podrun down`:
// each running container gets `Killing` ("Stopping container NAME"), then its preStop hook, then
// the stop signal with what is left of the grace period (at least 2 s, the kubelet's minimum,
// unless --grace-period says otherwise), then SIGKILL. Then what the kubelet's garbage collector
// and volume manager would remove: the containers, the sandbox, the emptyDir volumes, and the pod
// directory with the files of its configMap, secret, downwardAPI and projected volumes.
//
// Order: the reverse of start. App containers go first and together (they started together): all
// their preStop hooks, then all their stops, so that no hook finds a sibling already stopped.
// Sidecars (init containers with `restartPolicy: Always`) are stopped after every app container
// has exited, in reverse init order, each once the sidecars after it have exited (the kubelet's
// terminationOrdering, kuberuntime_termination_order.go). Their preStop hooks start with the app
// containers' (the kubelet does not make a sidecar's hook wait: it may help the apps drain); each
// sidecar's stop waits for its own hook. Init containers (normally exited already) last, one at a
// time, newest first. The grace period is one deadline for the whole pod, as for a pod deletion:
// hooks, waits and stops share it.
//
// One failure never stops the rest: every step is attempted, and each failure is reported.

/** The kubelet's minimumGracePeriodInSeconds: no container is SIGKILLed sooner, unless overridden. */
export const MIN_GRACE_PERIOD_SECONDS = 2;

export interface StopPodDeps {
  runtime: ContainerRuntime;
  recorder: Pick<EventRecorder, "event">;
  /** Milliseconds (default Date.now). */
  clock?: () => number;
}

export interface StopPodOptions {
  /** The pod as the engine has it (findPods). */
  pod: PodRecord;
  /** Its engine volumes (listVolumes by the pod's labels). */
  volumes: readonly VolumeInfo[];
  /** The pod's manifest, when `down` was given a file: its preStop hooks and grace period come first. */
  manifest?: Pod;
  /** --grace-period: replaces the pod's grace period; 0 kills at once and skips preStop hooks. */
  gracePeriodOverride?: number;
  /** The pod's directory under the state directory (pod-dir.ts): removed last, with its volume files. */
  podDir?: string;
  /** Stop only: a pod that failed (activeDeadlineSeconds) keeps its containers for `ps` and `logs`, as on a node. */
  keepStopped?: boolean;
}

/** One thing that could not be done: `object` is a container's name, `sandbox`, `volume NAME` or `pod directory`. */
export interface StopFailure {
  object: string;
  step: "stop" | "remove";
  message: string;
}

export interface StopPodResult {
  /** Init and app containers removed (the infra container is not counted). */
  containers: number;
  volumes: number;
  failures: StopFailure[];
  /** preStop hooks that failed (the container was stopped anyway, as on a node). */
  hookFailures: { container: string; message: string }[];
}

export interface StopPlan {
  /** Running app containers: hooks, then stops, together. */
  apps: ContainerState[];
  /** Running sidecars, in reverse init order: stopped one at a time after the apps. */
  sidecars: ContainerState[];
  /** Running init containers (not sidecars), newest first: stopped one at a time after the sidecars. */
  inits: ContainerState[];
  /** Every container, in removal order: apps newest first, then sidecars and inits newest first. */
  removal: ContainerState[];
}

/** What `down` stops and in which order (pure): the reverse of the order `up` started them in. */
export function planStop(pod: PodRecord): StopPlan {
  // groupPods lists each kind oldest first: sidecars and init containers in init order.
  const apps = [...pod.appContainers].reverse();
  const inits = [...pod.initContainers].reverse();
  return {
    apps: apps.filter((c) => c.running),
    sidecars: inits.filter((c) => c.running && isSidecarState(c)),
    inits: inits.filter((c) => c.running && !isSidecarState(c)),
    removal: [...apps, ...inits],
  };
}

/** The pod's grace period: --grace-period, else the manifest's, else the containers' label, else 30 s. */
export function resolveGracePeriod(pod: PodRecord, manifest: Pod | undefined, override: number | undefined): number {
  if (override !== undefined) return override;
  const fromManifest = manifest?.spec?.terminationGracePeriodSeconds;
  if (fromManifest !== undefined && fromManifest !== null) return fromManifest;
  for (const state of [...pod.appContainers, ...pod.initContainers]) {
    const fromLabel = readStopLabels(state.labels).gracePeriodSeconds;
    if (fromLabel !== undefined) return fromLabel;
  }
  return DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
}

export async function stopPod(deps: StopPodDeps, options: StopPodOptions): Promise<StopPodResult> {
  const plan = planStop(options.pod);
  const failures: StopFailure[] = [];
  const hookFailures: StopPodResult["hookFailures"] = [];
  // Step 1: the kubelet's killPod: preStop hooks and stops, within the grace period.
  await stopContainers(deps, options, plan, failures, hookFailures);
  if (options.keepStopped) return { containers: 0, volumes: 0, failures, hookFailures };
  // Step 2: what `down` removes besides: containers, sandbox, volumes, the pod's directory.
  const { containers, volumes } = await removePod(deps.runtime, options, plan, failures);
  return { containers, volumes, failures, hookFailures };
}

// Killing for each app container and sidecar, every preStop hook at once, then the app
// containers' stops, then each sidecar's, newest first; the init containers last.
async function stopContainers(
  deps: StopPodDeps,
  options: StopPodOptions,
  plan: StopPlan,
  failures: StopFailure[],
  hookFailures: StopPodResult["hookFailures"],
): Promise<void> {
  const { runtime } = deps;
  const clock = deps.clock ?? Date.now;
  const { pod } = options;
  const override = options.gracePeriodOverride;
  const grace = resolveGracePeriod(pod, options.manifest, override);
  const remainingSeconds = startGraceCountdown(grace, clock);
  // The kubelet never gives less than its minimum; an explicit --grace-period is taken as said.
  const stopTimeout = () =>
    override !== undefined ? remainingSeconds() : Math.max(MIN_GRACE_PERIOD_SECONDS, remainingSeconds());
  const objectOf = (state: ContainerState, init: boolean) =>
    toInvolvedObject(pod, { name: kubeContainerName(state), init });
  const killing = (state: ContainerState, init: boolean) =>
    deps.recorder.event(objectOf(state, init), "Normal", "Killing", `Stopping container ${kubeContainerName(state)}`);
  // --grace-period 0 leaves no time to give: the `rm -f` below is the kill (SIGKILL, as `stop -t 0`
  // sends), one command for every container rather than a stop for each and then the removal.
  const killByRemoval = override === 0 && !options.keepStopped;
  const stop = async (state: ContainerState) => {
    if (killByRemoval) return;
    try {
      await runtime.stopContainer(state.id, stopTimeout());
    } catch (error) {
      failures.push({ object: kubeContainerName(state), step: "stop", message: describeError(error) });
    }
  };

  for (const state of plan.apps) killing(state, false);
  for (const state of plan.sidecars) killing(state, true);
  const podIP = pod.infra?.ip || [...plan.apps, ...plan.sidecars].find((c) => c.ip)?.ip || "127.0.0.1";
  const runPreStop = async (state: ContainerState, init: boolean) => {
    const handler = findPreStop(state, options.manifest);
    if (!handler || grace <= 0) return;
    try {
      await runHookWithin(handler, state, podIP, remainingSeconds(), runtime);
    } catch (error) {
      // The kubelet's fixed text in the event: the hook's own output may hold secrets.
      deps.recorder.event(objectOf(state, init), "Warning", "FailedPreStopHook", "PreStopHook failed");
      hookFailures.push({
        container: kubeContainerName(state),
        message: error instanceof HookError ? error.message : describeError(error),
      });
    }
  };
  const sidecarHooks = plan.sidecars.map((state) => runPreStop(state, true));
  await Promise.all(plan.apps.map((state) => runPreStop(state, false)));
  await Promise.all(plan.apps.map(stop));
  for (const [index, state] of plan.sidecars.entries()) {
    await sidecarHooks[index];
    await stop(state);
  }
  for (const state of plan.inits) {
    killing(state, true);
    await stop(state);
  }
}

// Each removal's failure is collected, not thrown: the rest is still removed.
async function removePod(
  runtime: ContainerRuntime,
  options: StopPodOptions,
  plan: StopPlan,
  failures: StopFailure[],
): Promise<{ containers: number; volumes: number }> {
  const containers = await removeContainers(runtime, plan.removal, failures);
  if (options.pod.infra) {
    try {
      await runtime.removeSandbox(sandboxRuntimeName(options.pod));
    } catch (error) {
      failures.push({ object: "sandbox", step: "remove", message: describeError(error) });
    }
  }
  const volumes = await removeVolumes(
    runtime,
    options.volumes.map((v) => v.name),
    failures,
  );
  if (options.podDir !== undefined) {
    await removePodDirectory(options.podDir).catch((error: unknown) =>
      failures.push({ object: "pod directory", step: "remove", message: describeError(error) }),
    );
  }
  return { containers, volumes };
}

/** The container's preStop handler: from the manifest when it has that container, else from its label. */
function findPreStop(state: ContainerState, manifest: Pod | undefined): LifecycleHandler | undefined {
  const name = kubeContainerName(state);
  const container = [...(manifest?.spec?.containers ?? []), ...(manifest?.spec?.initContainers ?? [])].find(
    (c) => c.name === name,
  );
  if (container) return container.lifecycle?.preStop;
  return readStopLabels(state.labels).preStop;
}

/** Runs a hook for at most `seconds`: past the deadline the container is stopped anyway (the kubelet's way). */
async function runHookWithin(
  handler: LifecycleHandler,
  state: ContainerState,
  podIP: string,
  seconds: number,
  runtime: ContainerRuntime,
): Promise<void> {
  if (seconds <= 0) return;
  // A sleep longer than the grace period (only a --grace-period override allows one) is cut to it.
  const bounded = handler.sleep && handler.sleep.seconds > seconds ? { ...handler, sleep: { seconds } } : handler;
  await runLifecycleHandler(bounded, {
    runtime,
    containerId: state.id,
    container: { name: kubeContainerName(state) },
    podIP,
    timeoutMs: seconds * 1000,
  });
}

/** One `rm` for all; if it fails, one per container, so that each failure names its container. */
async function removeContainers(
  runtime: ContainerRuntime,
  states: readonly ContainerState[],
  failures: StopFailure[],
): Promise<number> {
  if (states.length === 0) return 0;
  try {
    await runtime.removeContainers(states.map((s) => s.id));
    return states.length;
  } catch {
    // Which one failed is found below: each is removed alone, and its own error kept.
    const results = await Promise.allSettled(states.map((s) => runtime.removeContainers([s.id])));
    results.forEach((result, i) => {
      if (result.status === "rejected")
        failures.push({ object: kubeContainerName(states[i]!), step: "remove", message: describeError(result.reason) });
    });
    return results.filter((r) => r.status === "fulfilled").length;
  }
}

async function removeVolumes(
  runtime: ContainerRuntime,
  names: readonly string[],
  failures: StopFailure[],
): Promise<number> {
  if (names.length === 0) return 0;
  try {
    await runtime.removeVolumes(names);
    return names.length;
  } catch {
    // Which one failed is found below: each is removed alone, and its own error kept.
    const results = await Promise.allSettled(names.map((name) => runtime.removeVolumes([name])));
    results.forEach((result, i) => {
      if (result.status === "rejected")
        failures.push({ object: `volume ${names[i]}`, step: "remove", message: describeError(result.reason) });
    });
    return results.filter((r) => r.status === "fulfilled").length;
  }
}
