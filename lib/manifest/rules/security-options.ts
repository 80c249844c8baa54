import { sysctlNamespace } from "../safe-sysctls.js";
import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { asObject, asString, listObjectItems, type RawObject } from "./raw.js";

/** The deprecated per-container annotation, still read by the kubelet after the fields. */
export const APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/";

// The API server's rules (pkg/apis/core/validation/validation.go) on hostUsers, procMount,
// appArmorProfile and its deprecated annotation, and on sysctls of a namespace the pod shares
// with the host: validateHostUsers, ValidateSecurityContext, ValidateAppArmorProfileField,
// ValidateAppArmorPodAnnotations and validateAppArmorAnnotationsAndFieldsMatchOnCreate,
// ValidateHostSysctl.

const specPath = FieldPath.root().child("spec");

export function validateSecurityOptions(report: Reporter, pod: RawObject, spec: RawObject): void {
  const podContext = asObject(spec.securityContext);
  const hostUsers = spec.hostUsers !== false;
  if (!hostUsers) {
    // A user namespace of the pod's own cannot go with the host's other namespaces.
    for (const field of ["hostNetwork", "hostPID", "hostIPC"]) {
      if (spec[field] === true)
        report({ type: "Forbidden", path: specPath.child(field), detail: "when `pod.Spec.HostUsers` is false" });
    }
  }
  checkAppArmorProfile(
    report,
    asObject(podContext?.appArmorProfile),
    specPath.child("securityContext").child("appArmorProfile"),
  );
  const names = new Set<string>();
  for (const list of ["initContainers", "containers"]) {
    for (const [i, container] of listObjectItems(spec[list])) {
      const name = asString(container.name);
      if (name) names.add(name);
      const context = asObject(container.securityContext);
      const path = specPath.child(list).index(i).child("securityContext");
      checkAppArmorProfile(report, asObject(context?.appArmorProfile), path.child("appArmorProfile"));
      checkAnnotationMatchesField(
        report,
        pod,
        name,
        asObject(context?.appArmorProfile) ?? asObject(podContext?.appArmorProfile),
        path.child("appArmorProfile"),
      );
      if (context?.procMount === "Unmasked" && hostUsers) {
        report({
          type: "Invalid",
          path: path.child("procMount"),
          value: "Unmasked",
          detail: "`hostUsers` must be false to use `Unmasked`",
        });
      }
    }
  }
  checkAppArmorAnnotations(report, asObject(asObject(pod.metadata)?.annotations), names);
  checkHostSysctls(report, spec, podContext);
}

function checkAppArmorProfile(report: Reporter, profile: RawObject | undefined, path: FieldPath): void {
  if (!profile) return;
  const local = profile.localhostProfile;
  const localPath = path.child("localhostProfile");
  if (profile.type === "Localhost") {
    if (typeof local !== "string")
      report({ type: "Required", path: localPath, detail: "must be set when AppArmor type is Localhost" });
    else if (local.trim() === "")
      report({ type: "Invalid", path: localPath, value: local, detail: "must not be padded with whitespace" });
  } else if (local !== undefined && local !== null) {
    report({
      type: "Invalid",
      path: localPath,
      value: local,
      detail: "can only be set when AppArmor type is Localhost",
    });
  }
}

// validateAppArmorAnnotationsAndFieldsMatchOnCreate: a container's effective profile and its
// annotation, when both are written, say the same.
function checkAnnotationMatchesField(
  report: Reporter,
  pod: RawObject,
  container: string | undefined,
  profile: RawObject | undefined,
  path: FieldPath,
): void {
  if (!container || !profile) return;
  const annotation = asObject(asObject(pod.metadata)?.annotations)?.[`${APPARMOR_ANNOTATION_PREFIX}${container}`];
  if (typeof annotation !== "string") return;
  const typeMismatch = () =>
    report({ type: "Forbidden", path: path.child("type"), detail: "apparmor type in annotation and field must match" });
  if (profile.type === "Unconfined" && annotation !== "unconfined") typeMismatch();
  else if (profile.type === "RuntimeDefault" && annotation !== "runtime/default") typeMismatch();
  else if (profile.type === "Localhost") {
    if (!annotation.startsWith("localhost/")) typeMismatch();
    else if (annotation.slice("localhost/".length) !== profile.localhostProfile) {
      report({
        type: "Forbidden",
        path: path.child("localhostProfile"),
        detail: "apparmor profile in annotation and field must match",
      });
    }
  }
}

function checkAppArmorAnnotations(
  report: Reporter,
  annotations: RawObject | undefined,
  containers: ReadonlySet<string>,
): void {
  for (const [key, value] of Object.entries(annotations ?? {})) {
    if (!key.startsWith(APPARMOR_ANNOTATION_PREFIX)) continue;
    const path = FieldPath.root().child("metadata").child("annotations").key(key);
    const container = key.slice(APPARMOR_ANNOTATION_PREFIX.length);
    if (!containers.has(container)) report({ type: "Invalid", path, value: container, detail: "container not found" });
    const profile = typeof value === "string" ? value : "";
    if (
      profile !== "" &&
      profile !== "runtime/default" &&
      profile !== "unconfined" &&
      !profile.startsWith("localhost/")
    ) {
      report({
        type: "Invalid",
        path,
        value: profile,
        detail: `invalid AppArmor profile name: ${JSON.stringify(profile)}`,
      });
    }
  }
}

// A pod in the host's network (or IPC) namespace would set the host's own value.
function checkHostSysctls(report: Reporter, spec: RawObject, context: RawObject | undefined): void {
  const path = specPath.child("securityContext").child("sysctls");
  for (const [i, sysctl] of listObjectItems(context?.sysctls)) {
    const name = asString(sysctl.name);
    if (!name) continue;
    const namespace = sysctlNamespace(name);
    const shared =
      namespace === "net" && spec.hostNetwork === true
        ? "hostNetwork"
        : namespace === "ipc" && spec.hostIPC === true
          ? "hostIPC"
          : undefined;
    if (shared)
      report({
        type: "Invalid",
        path: path.index(i).child("name"),
        value: name,
        detail: `may not be specified when '${shared}' is true`,
      });
  }
}
