import type { Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import type { ContainerRuntime, ContainerState } from "../../runtime/types.js";
import { isSidecarState, kubeContainerName } from "../status/find-pods.js";
import { runLifecycleHandler } from "../hooks.js";
import type { PodIdentity } from "../identity.js";
import { describeError } from "../../runtime/engine-error.js";
import { readStopLabels } from "../spec/stop-labels.js";
import { startGraceCountdown } from "./grace-countdown.js";
import { DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS } from "../../manifest/defaults.js";
import { MIN_GRACE_PERIOD_SECONDS } from "./stop-pod.js";

// Some app containers of a pod that stays (reconcile-plan.ts "keep"), killed the way the kubelet's
// killContainer kills one (pkg/kubelet/kuberuntime/kuberuntime_container.go): `Killing` with the reason, the preStop hook, the
// stop signal with what is left of the grace period (at least the kubelet's 2 s), then removal.
// The whole pod's teardown is stop-pod.ts; this is the same thing for a few of its containers.

export interface KillTarget {
  state: ContainerState;
  /** The Killing event's message: `Container app definition changed, will be restarted`, … */
  message: string;
}

/**
 * Kills and removes `targets` (running or not: only running ones get Killing, hook and stop).
 * A failure to remove one is an error (its name would block the new container), after all were tried.
 */
export async function killContainers(
  deps: { runtime: ContainerRuntime; recorder: Pick<EventRecorder, "event"> },
  options: { identity: PodIdentity; manifest: Pod; targets: readonly KillTarget[]; podIP: string },
): Promise<void> {
  const { runtime } = deps;
  const { manifest, targets } = options;
  if (targets.length === 0) return;
  const grace = manifest.spec!.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  const remaining = startGraceCountdown(grace);
  const running = targets.filter((target) => target.state.running);
  // Only app containers are killed one by one (a changed sidecar is a changed pod), but the label decides.
  const objectOf = (state: ContainerState) =>
    toInvolvedObject(options.identity, { name: kubeContainerName(state), init: isSidecarState(state) });
  for (const { state, message } of running) deps.recorder.event(objectOf(state), "Normal", "Killing", message);
  await Promise.all(
    running.map(async ({ state }) => {
      // The kubelet runs the hook of the spec it has (the manifest), else the one the container recorded.
      const name = kubeContainerName(state);
      const container = [...manifest.spec!.containers, ...(manifest.spec!.initContainers ?? [])].find(
        (c) => c.name === name,
      );
      const preStop = container ? container.lifecycle?.preStop : readStopLabels(state.labels).preStop;
      if (preStop && grace > 0) {
        await runLifecycleHandler(preStop, {
          runtime,
          containerId: state.id,
          container: container ?? { name },
          podIP: options.podIP,
          timeoutMs: remaining() * 1000,
        }).catch(() => {
          // The kubelet's fixed text: the hook's own output may hold secrets. The stop goes on.
          deps.recorder.event(objectOf(state), "Warning", "FailedPreStopHook", "PreStopHook failed");
        });
      }
      await runtime.stopContainer(state.id, Math.max(MIN_GRACE_PERIOD_SECONDS, remaining())).catch(() => undefined); // removal below forces it
    }),
  );
  const results = await Promise.allSettled(targets.map(({ state }) => runtime.removeContainers([state.id])));
  const failed = results.flatMap((result, index) =>
    result.status === "rejected"
      ? [`${kubeContainerName(targets[index]!.state)}: ${describeError(result.reason)}`]
      : [],
  );
  if (failed.length > 0) throw new PodrunError("FailedKillPod", `could not remove ${failed.join("; ")}`);
}
