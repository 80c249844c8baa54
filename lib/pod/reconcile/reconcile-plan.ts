import type { ClusterNetwork } from "../cluster-network.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import {
  INFRA_CONTAINER_NAME,
  LABEL_CONTAINER_KIND,
  LABEL_CONTAINER_NAME,
  LABEL_POD_UID,
  type ContainerState,
} from "../../runtime/types.js";
import { buildContainerSpec, computePodHash, isSidecar } from "../spec/container-spec.js";
import type { PodIdentity } from "../identity.js";
import type { PodObjects } from "../../manifest/pod-objects.js";
import { LABEL_POD_HASH, LABEL_SPEC_HASH } from "../spec/spec-hash.js";

// What `podrun up` does with a pod that is already there: the kubelet's computePodActions
// (pkg/kubelet/kuberuntime/kuberuntime_manager.go) reduced to one machine, with the hash labels of spec-hash.ts as the record of
// what each container was made from. Pure: the engine's answer and the manifest go in, a plan
// comes out; apply-plan.ts and start-pod.ts carry it out.

export type RestartPolicy = "Always" | "OnFailure" | "Never";

/** The pod as the manifest wants it, reduced to what the plan compares. */
export interface DesiredPod {
  podHash: string;
  hostNetwork: boolean;
  restartPolicy: RestartPolicy;
  /** metadata.uid when the manifest sets one: another UID is another pod. */
  uid?: string;
  /** App containers in manifest order, with their spec hashes. */
  containers: { name: string; hash: string }[];
  initContainers: string[];
  /** Those of initContainers that are sidecars (`restartPolicy: Always`). */
  sidecars?: string[];
}

/** Why the whole pod is recreated. */
export type RecreateCause =
  /** `up --replace`. */
  | "replace"
  /** A pod-level field (ports, hostNetwork, volumes, labels, init containers and sidecars…) changed. */
  | "pod-changed"
  /** The sandbox is gone or stopped: the containers in it have no network. */
  | "sandbox-not-running"
  /** An init container did not complete, or a sidecar was never started (a run that was killed half-way). */
  | "init-incomplete";

export interface PodPlan {
  /** create: nothing is there; keep: the sandbox stays; recreate-pod: everything goes, then a new pod. */
  action: "create" | "keep" | "recreate-pod";
  cause?: RecreateCause;
  /** App containers left as they are. */
  keep: string[];
  /** App containers removed and created anew in the kept sandbox. */
  recreate: string[];
  /** Those of `recreate` that were not running: nothing to stop, so no Killing event. */
  notRunning: string[];
  /** App containers created (new in the manifest, or all of them for create and recreate-pod). */
  create: string[];
  /** Containers removed for good: no longer in the manifest (every container for recreate-pod). */
  remove: string[];
  /** The UID the pod keeps (keep, or a sandbox that merely died); undefined: a new pod, a new UID. */
  uid?: string;
}

/** The manifest side of the comparison, hashed exactly as `up` will label the containers. */
export function describeDesiredPod(options: {
  pod: Pod;
  identity: PodIdentity;
  infraImage: string;
  publishAll: boolean;
  cluster?: ClusterNetwork | undefined;
  objects?: PodObjects;
}): DesiredPod {
  const { pod, identity, objects } = options;
  const spec = pod.spec!;
  return {
    podHash: computePodHash(options),
    hostNetwork: spec.hostNetwork === true,
    restartPolicy: (spec.restartPolicy ?? "Always") as RestartPolicy,
    uid: pod.metadata?.uid || undefined,
    containers: spec.containers.map((container) => ({
      name: container.name,
      hash: buildContainerSpec({ pod, identity, container, kind: "app", imageRef: container.image!, objects }).labels[
        LABEL_SPEC_HASH
      ]!,
    })),
    initContainers: (spec.initContainers ?? []).map((container) => container.name),
    sidecars: (spec.initContainers ?? []).filter(isSidecar).map((container) => container.name),
  };
}

/**
 * The plan for a pod whose containers (found by its labels) are `existing`:
 * - none: create everything;
 * - `replace`, another pod hash or UID, a sandbox that is not running, an init container that
 *   did not complete, or a sidecar that is missing or never started: recreate the whole pod (its
 *   init containers run again). A changed sidecar changes the pod hash, as a changed init
 *   container does: the pod is recreated;
 * - otherwise the sandbox stays and each app container is kept when its hash matches and it is
 *   running or settled under the restart policy (see isSettled), else recreated; containers no
 *   longer in the manifest are removed, new ones created. Init containers that completed are not
 *   run again, as on a node; sidecars that have started are kept, running or not (the engine
 *   restarts them: their restart policy is always).
 */
export function planPod(
  existing: readonly ContainerState[],
  desired: DesiredPod,
  options: { replace?: boolean } = {},
): PodPlan {
  const plan: PodPlan = { action: "create", keep: [], recreate: [], notRunning: [], create: [], remove: [] };
  const wanted = desired.containers.map((c) => c.name);
  if (existing.length === 0) return { ...plan, create: wanted };

  const byName = new Map(existing.map((state) => [nameOf(state), state]));
  const infra = existing.find(isInfra);
  const uids = new Set(existing.map((state) => state.labels[LABEL_POD_UID] ?? ""));
  const existingUid = infra?.labels[LABEL_POD_UID] ?? [...uids][0] ?? "";
  const cause = findRecreateCause(existing, desired, { infra, uids, existingUid, replace: options.replace === true });
  if (cause) {
    return {
      ...plan,
      action: "recreate-pod",
      cause,
      create: wanted,
      remove: existing.map(nameOf),
      // A sandbox that died is the same pod restarted (the kubelet's SandboxChanged); anything
      // the user changed, or asked to replace, is a new pod.
      ...(cause === "sandbox-not-running" && existingUid !== "" ? { uid: existingUid } : {}),
    };
  }

  plan.action = "keep";
  plan.uid = existingUid;
  for (const { name, hash } of desired.containers) {
    const state = byName.get(name);
    if (!state) plan.create.push(name);
    else if (state.labels[LABEL_SPEC_HASH] !== hash) {
      plan.recreate.push(name);
      if (!state.running) plan.notRunning.push(name);
    } else if (isSettled(state, desired.restartPolicy)) plan.keep.push(name);
    else {
      plan.recreate.push(name);
      plan.notRunning.push(name);
    }
  }
  const known = new Set([...wanted, ...desired.initContainers, INFRA_CONTAINER_NAME]);
  plan.remove = existing.map(nameOf).filter((name) => !known.has(name));
  return plan;
}

function findRecreateCause(
  existing: readonly ContainerState[],
  desired: DesiredPod,
  context: { infra: ContainerState | undefined; uids: Set<string>; existingUid: string; replace: boolean },
): RecreateCause | undefined {
  if (context.replace) return "replace";
  // Every container carries the pod hash: hostNetwork pods have no infra container to hold it.
  if (existing.some((state) => state.labels[LABEL_POD_HASH] !== desired.podHash)) return "pod-changed";
  if (desired.uid !== undefined && (context.uids.size !== 1 || context.existingUid !== desired.uid))
    return "pod-changed";
  if (!desired.hostNetwork && (!context.infra || !context.infra.running)) return "sandbox-not-running";
  // Two runs' containers mixed: not one pod any more.
  if (context.uids.size > 1) return "sandbox-not-running";
  const inits = existing.filter((state) => state.labels[LABEL_CONTAINER_KIND] === "init");
  if (inits.some((state) => !(hasExited(state) && state.exitCode === 0))) return "init-incomplete";
  const sidecars = new Map(
    existing.filter((state) => state.labels[LABEL_CONTAINER_KIND] === "sidecar").map((state) => [nameOf(state), state]),
  );
  if ((desired.sidecars ?? []).some((name) => !sidecars.get(name)?.startedAt)) return "init-incomplete";
  return undefined;
}

/**
 * Whether a container whose spec is unchanged is fine as it is. Running, or being restarted by
 * the engine under its policy: yes. Exited: under Never, it ran, and the kubelet would not run it
 * again (`--replace` does); under OnFailure, only if it succeeded; under Always, no (the engine
 * gave up, or someone stopped it). Created but never started, paused, dead: no.
 */
export function isSettled(state: ContainerState, policy: RestartPolicy): boolean {
  if (state.running || state.status === "restarting") return true;
  if (!hasExited(state)) return false;
  if (policy === "Never") return true;
  return policy === "OnFailure" && state.exitCode === 0;
}

// docker and nerdctl say "exited"; podman "exited", or "stopped" for a container it stopped.
function hasExited(state: ContainerState): boolean {
  return !state.running && (state.status === "exited" || state.status === "stopped");
}

function nameOf(state: ContainerState): string {
  return state.labels[LABEL_CONTAINER_NAME] ?? state.name;
}

function isInfra(state: ContainerState): boolean {
  const kind = state.labels[LABEL_CONTAINER_KIND];
  return kind === "infra" || (kind === undefined && state.labels[LABEL_CONTAINER_NAME] === INFRA_CONTAINER_NAME);
}
