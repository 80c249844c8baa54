import type { ClusterNetwork } from "../cluster-network.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import type { ContainerRuntime, ContainerState } from "../../runtime/types.js";
import { groupPods, kubeContainerName } from "../status/find-pods.js";
import { podSelector, sandboxRuntimeName, type PodIdentity } from "../identity.js";
import { killContainers } from "../stop/kill-containers.js";
import { describeNameClashes, findNameClashes, namesToCreate, type NamedObject } from "./name-clash.js";
import { describeDesiredPod, planPod, type PodPlan } from "./reconcile-plan.js";
import { stopPod } from "../stop/stop-pod.js";
import type { PodObjects } from "../../manifest/pod-objects.js";

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
    cluster?: ClusterNetwork | undefined;
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
  // Both questions in one listing: what this pod has (its labels), and who holds the names it may
  // need. Every name of the pod starts with `<namespace>_<pod>_`. A podman pod of the pod's name
  // that podrun did not make is told by podman itself, at `pod create` (name-clash.ts).
  const found = await runtime.listContainersNamed(`${sandboxRuntimeName(options.identity)}_`);
  const selector = podSelector(options.identity);
  const existing = found.filter((state) =>
    Object.entries(selector).every(([key, value]) => state.labels[key] === value),
  );
  const named = found.map((state): NamedObject => ({ kind: "container", id: state.id, name: state.name }));

  const plan = planPod(existing, describeDesiredPod(options), { replace: options.replace });
  const identity = plan.uid ? { ...options.identity, uid: plan.uid } : options.identity;
  const clashes = findNameClashes(named, existing, namesToCreate(plan, { identity, hostNetwork, initContainers }));
  if (clashes.length > 0) throw new PodrunError("NameConflict", describeNameClashes(clashes, runtime.binary));
  options.onPlan?.(plan);

  const [record] = groupPods(existing);
  if (plan.action === "recreate-pod" && record) {
    // The kubelet's words for a sandbox it kills to make anew; the events belong to the old pod.
    deps.recorder.event(
      toInvolvedObject(record),
      "Normal",
      "SandboxChanged",
      "Pod sandbox changed, it will be killed and re-created.",
    );
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
        message: notRunning.has(name)
          ? `Stopping container ${name}`
          : `Container ${name} definition changed, will be restarted`,
      })),
      ...plan.remove.map((name) => ({ state: byName.get(name)!, message: `Stopping container ${name}` })),
    ];
    await killContainers(deps, { identity, manifest: pod, targets, podIP: record.infra?.ip || "127.0.0.1" });
  }
  return { plan, identity, existing, ...(plan.action === "keep" && record?.infra ? { infra: record.infra } : {}) };
}
