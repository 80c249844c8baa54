import { KIND_API_VERSIONS } from "../manifest/kinds.js";
import { defaultPod } from "../manifest/defaults.js";
import { findIgnoredFields } from "./support/support.js";
import { findMissingClaims } from "../manifest/rules/persistent-volume-claim.js";
import { findEngineSecurityWarnings } from "./support/security-warnings.js";
import { findHostPathFailures } from "./support/host-paths.js";
import { findEnginePodResourceWarnings } from "./support/pod-resources-support.js";
import { validatePod } from "../manifest/validate-objects.js";
import { metaOf } from "./meta.js";
import { describePod } from "./describe.js";
import type { KindEntry } from "./types.js";

// A bare Pod: run as it is written (lib/pod/), found by its name.
export const POD_KIND: KindEntry = {
  kind: "Pod",
  apiVersion: KIND_API_VERSIONS.Pod,
  referable: false,
  resource: { plural: "pods", singular: "pod", short: "po" },
  ownsPods: false,
  // A pod's conditions, as the kubelet sets them (pkg/kubelet/status/generate.go).
  conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"],
  order: 4,
  run: "pods",
  validate: (value, { index, report }) => validatePod(value, index, report),
  admit(value, { warn, warnOn, claimKeys, checkReferences }) {
    findIgnoredFields(value, warn);
    if (checkReferences) findMissingClaims(value, claimKeys, warn);
    findHostPathFailures(value, warn);
    findEngineSecurityWarnings(value, warnOn);
    findEnginePodResourceWarnings(value, warnOn);
    const pod = defaultPod(value);
    return { kind: "Pod", ...metaOf(pod), object: pod as Record<string, unknown>, pods: [pod], source: "" };
  },
  describe: (item) => `Pod ${item.name} (${describePod(item.pods[0]!)})`,
};
