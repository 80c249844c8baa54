import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { checkLocalDescendingPath } from "./paths.js";
import { asObject, listObjectItems, type RawObject } from "./raw.js";

/**
 * validateSeccompProfileField (pkg/apis/core/validation) for the pod's and each container's
 * seccompProfile: a Localhost profile names a path below the profiles root, and only it may.
 */
export function validateSeccompProfiles(spec: RawObject, report: Reporter): void {
  const specPath = FieldPath.root().child("spec");
  checkProfile(
    asObject(asObject(spec.securityContext)?.seccompProfile),
    specPath.child("securityContext").child("seccompProfile"),
    report,
  );
  for (const list of ["initContainers", "containers"]) {
    for (const [i, container] of listObjectItems(spec[list])) {
      const path = specPath.child(list).index(i).child("securityContext").child("seccompProfile");
      checkProfile(asObject(asObject(container.securityContext)?.seccompProfile), path, report);
    }
  }
}

function checkProfile(profile: RawObject | undefined, path: FieldPath, report: Reporter): void {
  if (!profile) return;
  const local = profile.localhostProfile;
  const localPath = path.child("localhostProfile");
  if (profile.type === "Localhost") {
    if (local === undefined || local === null)
      report({ type: "Required", path: localPath, detail: "must be set when seccomp type is Localhost" });
    else if (typeof local === "string") checkLocalDescendingPath(report, localPath, local);
  } else if (local !== undefined && local !== null) {
    report({
      type: "Invalid",
      path: localPath,
      value: profile,
      detail: "can only be set when seccomp type is Localhost",
    });
  }
}
