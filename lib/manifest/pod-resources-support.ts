import { FieldPath } from "./field-path.js";
import type { FieldError } from "./field-error.js";
import { asObject, isSet } from "./rules/raw.js";

// What of spec.resources an engine cannot make (lib/runtime/pod-resource-args.ts). podman's pod
// has a cgroup of its own that `pod create` limits; docker and nerdctl have none above the
// containers of a pod (a cgroup parent would have to be made and written by podrun itself), so
// there each container's own resources are all that apply. These warnings name their engine:
// `up` prints those of the engine it runs on, `validate` (no engine) none of them.

const specPath = FieldPath.root().child("spec");

/** Warnings about spec.resources as written; engine-specific ones carry `engines`. */
export function findPodResourceWarnings(spec: Record<string, unknown>, report: (warning: FieldError) => void): void {
  const resources = asObject(spec.resources);
  const limits = asObject(resources?.limits) ?? {};
  const requests = asObject(resources?.requests) ?? {};
  const acted = ["cpu", "memory"].some((name) => isSet(limits[name]) || isSet(requests[name]));
  if (!acted) return;
  const path = specPath.child("resources");
  // A hostNetwork pod has no sandbox of its own (lib/pod/spec/pod-settings.ts).
  if (spec.hostNetwork === true) {
    report({ type: "Forbidden", path, detail: "not applied by podrun to a hostNetwork pod: ignored; each container's own resources still apply", atKey: true });
    return;
  }
  for (const engine of ["docker", "nerdctl"]) {
    report({ type: "Forbidden", path, detail: `${engine} has no pod-level cgroup to limit: ignored; each container's own resources still apply`, atKey: true, engines: [engine] });
  }
  if (isSet(requests.memory)) {
    const detail = "podman's pod create has no memory reservation: ignored; each container's own request still applies";
    report({ type: "Forbidden", path: path.child("requests").child("memory"), detail, atKey: true, engines: ["podman"] });
  }
}
