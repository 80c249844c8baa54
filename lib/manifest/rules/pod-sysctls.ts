import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { asObject, asString, listObjectItems, type RawObject } from "./raw.js";

// The API server's validateSysctls and IsValidSysctlName (pkg/apis/core/validation/validation.go):
// a name of dot- or slash-separated segments, at most 253 characters, each name once. Whether a
// sysctl is safe is the kubelet's admission, not validation: podrun passes any valid one on.

const SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
const SYSCTL_NAME_PATTERN = `^(${SYSCTL_SEGMENT}[\\./])*${SYSCTL_SEGMENT}$`;
const SYSCTL_NAME = new RegExp(SYSCTL_NAME_PATTERN);
const SYSCTL_MAX_LENGTH = 253;

/** spec.securityContext.sysctls: each name required, valid and given once. */
export function validatePodSysctls(report: Reporter, spec: RawObject): void {
  const path = FieldPath.root().child("spec").child("securityContext").child("sysctls");
  const names = new Set<string>();
  for (const [i, sysctl] of listObjectItems(asObject(spec.securityContext)?.sysctls)) {
    const namePath = path.index(i).child("name");
    const name = asString(sysctl.name) ?? "";
    if (name === "") report({ type: "Required", path: namePath });
    else if (name.length > SYSCTL_MAX_LENGTH || !SYSCTL_NAME.test(name)) {
      report({
        type: "Invalid",
        path: namePath,
        value: name,
        detail: `must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${SYSCTL_NAME_PATTERN}`,
      });
    } else if (names.has(name)) report({ type: "Duplicate", path: namePath, value: name });
    names.add(name);
  }
}
