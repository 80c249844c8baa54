import { FieldPath } from "./field-path.js";
import type { Reporter } from "./field-error.js";
import { validateContainers, validateInitContainers } from "./rules/containers.js";
import type { ObjectIndex, PodContext } from "./rules/context.js";
import { validateObjectMeta, validatePodAnnotations } from "./rules/metadata.js";
import { validatePodOS } from "./rules/pod-os.js";
import { checkGracePeriod, validatePodFields } from "./rules/pod-spec.js";
import { asObject, isSet } from "./rules/raw.js";
import { validateSeccompProfiles } from "./rules/seccomp.js";
import { validateSecurityOptions } from "./rules/security-options.js";
import { collectVolumes, validateVolumeSources } from "./rules/volumes.js";

// The semantic rules of ValidatePod, ValidateConfigMap and ValidateSecret
// (pkg/apis/core/validation) that a local run needs, so that a manifest podrun accepts is one a
// cluster accepts too. They run after the structural checker on the same raw objects: a value of
// the wrong JSON type is skipped here (already reported), and nothing here throws. Every error
// is reported, not only the first.

export type { ObjectIndex } from "./rules/context.js";
export { buildObjectIndex } from "./rules/references.js";
export { validateConfigMap } from "./rules/config-map.js";
export { validateSecret } from "./rules/secret.js";

/** Validates a Pod; `index` holds the ConfigMaps and Secrets of the same manifest. */
export function validatePod(pod: unknown, index: ObjectIndex, report: Reporter): void {
  const object = asObject(pod);
  if (!object) return;
  const namespace = validateObjectMeta(object, report);
  validatePodAnnotations(object, report);
  const spec = asObject(object.spec);
  if (!spec) {
    // No spec at all means no containers; a spec of another type is the structural checker's.
    if (!isSet(object.spec)) report({ type: "Required", path: FieldPath.root().child("spec").child("containers") });
    return;
  }
  const gracePeriod = checkGracePeriod(spec, report);
  const volumes = collectVolumes(spec, report);
  const ctx: PodContext = { report, index, namespace, volumes, gracePeriod };
  const hostNetwork = spec.hostNetwork === true;
  validateVolumeSources(ctx, spec);
  validateContainers(ctx, spec, hostNetwork);
  validateInitContainers(ctx, spec, hostNetwork);
  validatePodFields(ctx, spec);
  validatePodOS(spec, report);
  validateSeccompProfiles(spec, report);
  validateSecurityOptions(report, object, spec);
}
