import type { Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import type { ContainerRuntime, ContainerState } from "../../runtime/types.js";
import { groupPods, kubeContainerName } from "../status/find-pods.js";
import { podSelector, type PodIdentity } from "../identity.js";
import { killContainers } from "../stop/kill-containers.js";
import { describeNameClashes, findNameClashes, namesToCreate, podNames } from "./name-clash.js";
import { describeDesiredPod, planPod, type PodPlan } from "./reconcile-plan.js";
import { stopPod } from "../stop/stop-pod.js";
import { isHalfMadeSandbox, removeHalfMadeSandbox } from "../stop/half-made-sandbox.js";
import type { PodObjects } from "../spec/pod-objects.js";

// The first half of an idempotent `up` (the kubelet's SyncPod steps 1–3): read the pod back from
// the engine, plan (reconcile-plan.ts), make sure no name it needs belongs to someone else, then kill
// what must go: the whole pod, or the containers that changed or left the manifest. startPod
// then creates what the plan says.

export interface ReconcileResult {
  plan: PodPlan;
  /** The pod's identity from here on: the existing UID when the pod is kept. */
  identity: PodIdentity;
  /** What the engine had before anything was removed. */
  existing: ContainerState[];
  /** The kept sandbox's infra container (action keep). */
  infra?: ContainerState;
}

export async function reconcilePod(
  deps: { runtime: ContainerRuntime; recorder: Pick<EventRecorder, "event"> },
  options: {
    pod: Pod;
    /** The ConfigMaps and Secrets the pod's env reads: a changed value changes the container's hash. */
    objects?: PodObjects;
    identity: PodIdentity;
    infraImage: string;
    publishAll: boolean;
    replace: boolean;
    /** Told the plan once it is certain to be carried out, before anything is removed. */
    onPlan?: (plan: PodPlan) => void;
  },
): Promise<ReconcileResult> {
  const { runtime } = deps;
  const { pod } = options;
  const spec = pod.spec!;
  const hostNetwork = spec.hostNetwork === true;
  const initContainers = (spec.initContainers ?? []).map((c) => c.name);
  // Both questions at once: what this pod has (by label), and who holds the names it may need.
  const allNames = podNames({ identity: options.identity, hostNetwork, initContainers, containers: spec.containers.map((c) => c.name) });
  const [existing, found] = await Promise.all([runtime.listContainers(podSelector(options.identity)), runtime.findNamed(allNames)]);
  // A podman pod a killed run left half made is the pod's own: removed below, not reported.
  const halfMade = found.filter((object) => isHalfMadeSandbox(object, options.identity));
  const named = found.filter((object) => !halfMade.includes(object));

  const plan = planPod(existing, describeDesiredPod(options), { replace: options.replace });
  const identity = plan.uid ? { ...options.identity, uid: plan.uid } : options.identity;
  const clashes = findNameClashes(named, existing, namesToCreate(plan, { identity, hostNetwork, initContainers }));
  if (clashes.length > 0) throw new PodrunError("NameConflict", describeNameClashes(clashes, runtime.binary));
  for (const sandbox of halfMade) await removeHalfMadeSandbox(runtime, sandbox.name);
  options.onPlan?.(plan);

  const [record] = groupPods(existing);
  if (plan.action === "recreate-pod" && record) {
    // The kubelet's words for a sandbox it kills to make anew; the events belong to the old pod.
    deps.recorder.event(toInvolvedObject(record), "Normal", "SandboxChanged", "Pod sandbox changed, it will be killed and re-created.");
    // The old pod goes as `down` takes it: preStop hooks and grace period from its own labels.
    const volumes = await runtime.listVolumes(podSelector(identity));
    const result = await stopPod(deps, { pod: record, volumes });
    if (result.failures.length > 0) {
      const first = result.failures[0]!;
      throw new PodrunError("FailedKillPod", `could not remove the old pod: ${first.object}: ${first.message}`);
    }
  }
  if (plan.action === "keep" && record) {
    const byName = new Map(existing.map((state) => [kubeContainerName(state), state]));
    const notRunning = new Set(plan.notRunning);
    const targets = [
      ...plan.recreate.map((name) => ({
        state: byName.get(name)!,
        // The kubelet's Killing message for a changed container (computePodActions).
        message: notRunning.has(name) ? `Stopping container ${name}` : `Container ${name} definition changed, will be restarted`,
      })),
      ...plan.remove.map((name) => ({ state: byName.get(name)!, message: `Stopping container ${name}` })),
    ];
    await killContainers(deps, { identity, manifest: pod, targets, podIP: record.infra?.ip || "127.0.0.1" });
  }
  return { plan, identity, existing, ...(plan.action === "keep" && record?.infra ? { infra: record.infra } : {}) };
}
