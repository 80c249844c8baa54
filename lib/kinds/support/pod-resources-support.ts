import type { RuntimeName } from "../../runtime/detect.js";
import { FieldPath } from "../../manifest/field-path.js";
import type { FieldError } from "../../manifest/field-error.js";
import { asObject, isSet, type RawObject } from "../../manifest/rules/raw.js";

// What of spec.resources an engine cannot make (lib/runtime/pod-resource-args.ts). podman's pod
// has a cgroup of its own that `pod create` limits; docker and nerdctl have none above the
// containers of a pod (a cgroup parent would have to be made and written by podrun itself), so
// there each container's own resources are all that apply. The engine's warnings are printed by
// `up`, which knows the engine; `validate` knows none and prints none of them.

const specPath = FieldPath.root().child("spec");

/** Warnings that hold whatever the engine: a hostNetwork pod has no sandbox to carry spec.resources. */
export function findPodResourceWarnings(spec: RawObject, report: (warning: FieldError) => void): void {
  if (spec.hostNetwork !== true || !setsCpuOrMemory(spec)) return;
  report({
    type: "Forbidden",
    path: specPath.child("resources"),
    detail: "not applied by podrun to a hostNetwork pod: ignored; each container's own resources still apply",
    atKey: true,
  });
}

/** Warnings that hold on one engine, each naming it. */
export function findEnginePodResourceWarnings(
  pod: unknown,
  report: (engine: RuntimeName, warning: FieldError) => void,
): void {
  const spec = asObject(asObject(pod)?.spec);
  if (!spec || spec.hostNetwork === true || !setsCpuOrMemory(spec)) return;
  const path = specPath.child("resources");
  for (const engine of ["docker", "nerdctl"] as const) {
    report(engine, {
      type: "Forbidden",
      path,
      detail: `${engine} has no pod-level cgroup to limit: ignored; each container's own resources still apply`,
      atKey: true,
    });
  }
  if (isSet(asObject(asObject(spec.resources)?.requests)?.memory)) {
    const detail = "podman's pod create has no memory reservation: ignored; each container's own request still applies";
    report("podman", { type: "Forbidden", path: path.child("requests").child("memory"), detail, atKey: true });
  }
}

function setsCpuOrMemory(spec: RawObject): boolean {
  const resources = asObject(spec.resources);
  return [asObject(resources?.limits), asObject(resources?.requests)].some(
    (list) => isSet(list?.cpu) || isSet(list?.memory),
  );
}
