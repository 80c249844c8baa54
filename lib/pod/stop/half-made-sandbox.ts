import { formatInfraName, getDialect } from "../../runtime/dialects.js";
import type { NamedObject } from "../../runtime/find-named.js";
import { LABEL_MANAGED, LABEL_POD_NAME, LABEL_POD_NAMESPACE, type ContainerRuntime } from "../../runtime/types.js";
import { sandboxRuntimeName, type PodIdentity } from "../identity.js";

// A podman pod that a killed run left half made. `podman pod create` registers the pod, with
// podrun's labels, before it makes the infra container: killed in between (a CI job's timeout
// kills the whole process group), it leaves a pod with no infra container, so no container
// carries the labels by which `down` and `up` find a pod, and the infra container's name may
// still be held by a container that podman's storage made but its database never recorded
// (`podman ps --external` lists it). `up` would then report the pod's own name as taken, and
// `down` would not see it. Both take such a pod as the pod's own, by its labels, and remove it.
// docker and nerdctl make the infra container in one daemon request: nothing is half made there.

/** Whether `object` is a podman pod of `pod` (by podrun's labels) that has no infra container. */
export function isHalfMadeSandbox(object: NamedObject, pod: Pick<PodIdentity, "name" | "namespace">): boolean {
  const labels = object.labels ?? {};
  return object.kind === "pod" && object.infraId === undefined && labels[LABEL_MANAGED] === "true" && labels[LABEL_POD_NAME] === pod.name && labels[LABEL_POD_NAMESPACE] === pod.namespace;
}

/**
 * Removes the half-made pod `sandbox`, then whatever holds its infra container's name. The
 * caller has made sure that no container in the engine's database holds that name (`up`'s name
 * check, or findNamed below): only a container in podman's storage alone can, and `podman rm`
 * removes that one too.
 */
export async function removeHalfMadeSandbox(runtime: ContainerRuntime, sandbox: string): Promise<void> {
  await runtime.removeSandbox(sandbox);
  await runtime.removeContainers([formatInfraName(sandbox)]);
}

/**
 * `down`, for a pod whose infra container it did not find: removes the half-made podman pod a
 * killed run left, if any. True when there was one.
 */
export async function removeHalfMadeSandboxOf(runtime: ContainerRuntime, pod: Pick<PodIdentity, "name" | "namespace">): Promise<boolean> {
  if (getDialect(runtime.name).sandbox !== "pod") return false;
  const sandbox = sandboxRuntimeName({ ...pod, uid: "" });
  const infra = formatInfraName(sandbox);
  const named = await runtime.findNamed({ containers: [infra], sandbox });
  const halfMade = named.find((object) => isHalfMadeSandbox(object, pod));
  if (!halfMade) return false;
  // A container with the infra name in the database is not this pod's (its own would carry its labels): left alone.
  if (named.some((object) => object.kind === "container")) await runtime.removeSandbox(sandbox);
  else await removeHalfMadeSandbox(runtime, sandbox);
  return true;
}
