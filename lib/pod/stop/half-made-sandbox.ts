import { formatInfraName } from "../../runtime/dialects.js";
import {
  LABEL_MANAGED,
  LABEL_POD_NAME,
  LABEL_POD_NAMESPACE,
  type ContainerRuntime,
  type PodInfo,
} from "../../runtime/types.js";
import { sandboxRuntimeName, type PodIdentity } from "../identity.js";

// A podman pod that a killed run left half made. `podman pod create` registers the pod, with
// podrun's labels, before it makes the infra container: killed in between (a CI job's timeout
// kills the whole process group), it leaves a pod with no infra container, so no container
// carries the labels by which `down` and `up` find a pod, and the infra container's name may
// still be held by a container that podman's storage made but its database never recorded
// (`podman ps --external` lists it). `up` would then report the pod's own name as taken, and
// `down` would not see it. Both take such a pod as the pod's own, by its labels, and remove it.
// docker and nerdctl make the infra container in one daemon request: nothing is half made there.

/** Whether `found` is a podman pod of `pod` (by podrun's labels) that has no infra container. */
export function isHalfMadeSandbox(found: PodInfo, pod: Pick<PodIdentity, "name" | "namespace">): boolean {
  const { labels } = found;
  return (
    found.infraId === undefined &&
    labels[LABEL_MANAGED] === "true" &&
    labels[LABEL_POD_NAME] === pod.name &&
    labels[LABEL_POD_NAMESPACE] === pod.namespace
  );
}

/**
 * Removes the half-made podman pod of `pod`, if there is one, then whatever holds its infra
 * container's name unless the engine's database knows that holder (the pod's own would carry
 * its labels and have been found as its infra container: another's is left alone). True when
 * there was one. `down` asks for a pod whose infra container it did not find; `up` when
 * `pod create` says the name is taken.
 */
export async function removeHalfMadeSandbox(
  runtime: ContainerRuntime,
  pod: Pick<PodIdentity, "name" | "namespace">,
): Promise<boolean> {
  if (runtime.capabilities.sandbox !== "pod") return false;
  const sandbox = sandboxRuntimeName({ ...pod, uid: "" });
  const found = await runtime.findPod(sandbox);
  if (!found || !isHalfMadeSandbox(found, pod)) return false;
  const infra = formatInfraName(sandbox);
  const known = (await runtime.listContainersNamed(infra)).some((state) => state.name === infra);
  await runtime.removeSandbox(sandbox);
  // Only a container in podman's storage alone can hold the name now, and `podman rm` removes it too.
  if (!known) await runtime.removeContainers([infra]);
  return true;
}
