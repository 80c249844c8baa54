import { formatInfraName } from "../../runtime/dialects.js";
import type { ContainerState } from "../../runtime/types.js";
import { containerRuntimeName, sandboxRuntimeName, type PodIdentity } from "../identity.js";
import type { PodPlan } from "./reconcile-plan.js";

// A name `up` is about to take that something else holds: a container (or podman pod) that
// podrun did not make for this pod. It is reported before anything is created or removed, never
// replaced: podrun removes only what carries its labels (pure).

/** An engine object that holds one of the names asked about. */
export interface NamedObject {
  kind: "container" | "pod";
  /** Empty when the engine did not say (a podman pod named in `pod create`'s error). */
  id: string;
  name: string;
  /** podman pods: the ID of the pod's infra container. */
  infraId?: string;
}

interface PodShape {
  identity: Pick<PodIdentity, "name" | "namespace">;
  hostNetwork: boolean;
  initContainers: readonly string[];
}

/** Every engine name of the pod: the sandbox (podman's pod, the infra container) and each container. */
export function podNames(options: PodShape & { containers: readonly string[] }): {
  containers: string[];
  sandbox?: string;
} {
  const pod = { ...options.identity, uid: "" };
  const sandbox = sandboxRuntimeName(pod);
  return {
    containers: [
      ...(options.hostNetwork ? [] : [formatInfraName(sandbox)]),
      ...[...options.initContainers, ...options.containers].map((name) => containerRuntimeName(pod, name)),
    ],
    ...(options.hostNetwork ? {} : { sandbox }),
  };
}

/** The engine names a plan creates: a kept pod's new and recreated containers, else the whole pod. */
export function namesToCreate(plan: PodPlan, options: PodShape): { containers: string[]; sandbox?: string } {
  if (plan.action !== "keep") return podNames({ ...options, containers: plan.create });
  const pod = { ...options.identity, uid: "" };
  return { containers: [...plan.create, ...plan.recreate].map((name) => containerRuntimeName(pod, name)) };
}

/** The objects in `found` that hold one of `names` and are not this pod's own (`ours`, found by its labels). */
export function findNameClashes(
  found: readonly NamedObject[],
  ours: readonly ContainerState[],
  names: { containers: readonly string[]; sandbox?: string },
): NamedObject[] {
  const own = new Set(ours.map((state) => state.id));
  const wanted = new Set(names.containers);
  return found.filter((object) =>
    object.kind === "container"
      ? wanted.has(object.name) && !own.has(object.id)
      : // A podman pod is ours when its infra container is.
        object.name === names.sandbox && !(object.infraId !== undefined && own.has(object.infraId)),
  );
}

/** One line: what holds which name, and how to free it. */
export function describeNameClashes(clashes: readonly NamedObject[], binary: string): string {
  const parts = clashes.map((object) =>
    object.kind === "pod"
      ? `pod name "${object.name}" is taken by a ${binary} pod podrun did not create (${short(object.id)}\`${binary} pod rm -f ${object.name}\` removes it)`
      : `container name "${object.name}" is taken by a container podrun did not create (${short(object.id)}\`${binary} rm -f ${object.name}\` removes it)`,
  );
  return `${parts.join("; ")}: podrun never replaces what it did not create; remove or rename it, or give the pod another name or namespace`;
}

/**
 * podman's answer to `pod create` of a name another pod holds (libpod's ErrPodExists: `name "x"
 * is in use: pod already exists`), as the clash it is.
 */
export function findPodNameClash(message: string, sandbox: string): NamedObject | undefined {
  return message.includes("pod already exists") && message.includes(`"${sandbox}"`)
    ? { kind: "pod", id: "", name: sandbox }
    : undefined;
}

function short(id: string): string {
  return id === "" ? "" : `${id.slice(0, 12)}; `;
}
