import { FieldPath } from "../../manifest/field-path.js";
import type { FieldError } from "../../manifest/field-error.js";

// livenessProbe is acted on only while `podrun up --wait` waits (lib/pod/readiness/liveness.ts): once
// podrun returns, nothing probes, where a kubelet goes on for the pod's life. One Warning names
// every container that has one, at the first, so that a pod of several says it once.

export const LIVENESS_WARNING =
  "probed only while `podrun up --wait` waits (a failure restarts the container, as the kubelet does): not probed once podrun returns";

export function findLivenessProbes(spec: Record<string, unknown>, report: (warning: FieldError) => void): void {
  const paths = (["initContainers", "containers"] as const).flatMap((list) => {
    const containers = spec[list];
    if (!Array.isArray(containers)) return [];
    return containers.flatMap((container: unknown, index) => {
      const probe = (container as { livenessProbe?: unknown } | null)?.livenessProbe;
      return probe === undefined || probe === null
        ? []
        : [FieldPath.root().child("spec").child(list).index(index).child("livenessProbe")];
    });
  });
  const [first, ...others] = paths;
  if (first)
    report({
      type: "Forbidden",
      path: first,
      ...(others.length > 0 ? { others } : {}),
      detail: LIVENESS_WARNING,
      atKey: true,
    });
}
