import type { FieldPath } from "../field-path.js";
import { reportInvalid, type PodContext } from "./context.js";
import { checkEnvFieldRef, checkEnvResourceFieldRef } from "./downward.js";
import { findConfigMapKeyErrors, findDns1123LabelErrors, findEnvVarNameErrors, findObjectNameErrors } from "./names.js";
import { checkNoBacksteps } from "./paths.js";
import { asObject, asString, isBlank, isSet, listObjectItems, type RawObject } from "./raw.js";
import { checkObjectRef } from "./references.js";

// ValidateEnv and ValidateEnvFrom, plus the references they make to the file's ConfigMaps and Secrets.

/** The kubelet's reason when a container's environment names a ConfigMap or Secret (or key) that is not there. */
const CONFIG_ERROR = "CreateContainerConfigError";

export function validateEnv(ctx: PodContext, container: RawObject, containerPath: FieldPath): void {
  for (const [i, env] of listObjectItems(container.env)) {
    const path = containerPath.child("env").index(i);
    const name = asString(env.name);
    if (isBlank(env.name)) ctx.report({ type: "Required", path: path.child("name") });
    else if (name !== undefined) reportInvalid(ctx.report, path.child("name"), name, findEnvVarNameErrors(name));
    const valueFrom = asObject(env.valueFrom);
    if (valueFrom) checkValueFrom(ctx, valueFrom, path.child("valueFrom"), asString(env.value) ?? "");
  }
}

function checkValueFrom(ctx: PodContext, valueFrom: RawObject, path: FieldPath, value: string): void {
  let sources = 0;
  const fieldRef = asObject(valueFrom.fieldRef);
  if (isSet(valueFrom.fieldRef)) sources++;
  if (fieldRef) checkEnvFieldRef(ctx.report, fieldRef, path.child("fieldRef"));
  const resourceFieldRef = asObject(valueFrom.resourceFieldRef);
  if (isSet(valueFrom.resourceFieldRef)) sources++;
  if (resourceFieldRef) checkEnvResourceFieldRef(ctx.report, resourceFieldRef, path.child("resourceFieldRef"));
  for (const [field, kind] of [
    ["configMapKeyRef", "ConfigMap"],
    ["secretKeyRef", "Secret"],
  ] as const) {
    if (!isSet(valueFrom[field])) continue;
    sources++;
    const selector = asObject(valueFrom[field]);
    if (selector) checkKeySelector(ctx, selector, path.child(field), kind);
  }

  if (isSet(valueFrom.fileKeyRef)) sources++;
  const fileKeyRef = asObject(valueFrom.fileKeyRef);
  if (fileKeyRef) checkFileKeySelector(ctx, fileKeyRef, path.child("fileKeyRef"));

  const invalid = (detail: string) => ctx.report({ type: "Invalid", path, value: "", detail });
  if (sources === 0)
    invalid("must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`");
  else if (value !== "") invalid("may not be specified when `value` is not empty");
  else if (sources > 1) invalid("may not have more than one field specified at a time");
}

/**
 * validateFileKeySelector and validateFileKeyRefVolumes (the EnvFiles gate, beta and on by
 * default since 1.35): a key of the env file an init container writes in an emptyDir of the pod.
 * The volume need not be mounted by the container that reads it; the path is the file's in the
 * volume, without `..` (an absolute one is not refused: the kubelet joins it to the volume).
 */
function checkFileKeySelector(ctx: PodContext, selector: RawObject, path: FieldPath): void {
  const key = asString(selector.key);
  if (isBlank(selector.key)) ctx.report({ type: "Required", path: path.child("key") });
  else if (key !== undefined) reportInvalid(ctx.report, path.child("key"), key, findEnvVarNameErrors(key));
  const volumeName = asString(selector.volumeName);
  if (isBlank(selector.volumeName)) ctx.report({ type: "Required", path: path.child("volumeName") });
  else if (volumeName !== undefined) {
    const errors = findDns1123LabelErrors(volumeName);
    reportInvalid(ctx.report, path.child("volumeName"), volumeName, errors);
    const volume = ctx.volumes.get(volumeName);
    if (errors.length > 0) {
      // Already said.
    } else if (!volume) ctx.report({ type: "NotFound", path: path.child("volumeName"), value: volumeName });
    else if (!isSet(volume.emptyDir))
      ctx.report({
        type: "Invalid",
        path: path.child("volumeName"),
        value: volumeName,
        detail: "referenced volume must be of type emptyDir",
      });
  }
  const filePath = asString(selector.path);
  if (isBlank(selector.path)) ctx.report({ type: "Required", path: path.child("path") });
  else if (filePath !== undefined) checkNoBacksteps(ctx.report, path.child("path"), filePath);
}

function checkKeySelector(ctx: PodContext, selector: RawObject, path: FieldPath, kind: "ConfigMap" | "Secret"): void {
  // The API server checks the name's format even when it is empty.
  const name = asString(selector.name) ?? (isSet(selector.name) ? undefined : "");
  if (name !== undefined) reportInvalid(ctx.report, path.child("name"), name, findObjectNameErrors(name));
  const key = asString(selector.key);
  const keyErrors = key ? findConfigMapKeyErrors(key) : [];
  if (isBlank(selector.key)) ctx.report({ type: "Required", path: path.child("key") });
  else if (key !== undefined) reportInvalid(ctx.report, path.child("key"), key, keyErrors);
  if (name) {
    // A malformed key is already reported; looking it up would only repeat the complaint.
    const keys = key && keyErrors.length === 0 ? [{ value: key, path: path.child("key") }] : [];
    const optional = selector.optional === true;
    checkObjectRef(ctx, { kind, name, namePath: path.child("name"), optional, keys, reason: CONFIG_ERROR });
  }
}

export function validateEnvFrom(ctx: PodContext, container: RawObject, containerPath: FieldPath): void {
  for (const [i, source] of listObjectItems(container.envFrom)) {
    const path = containerPath.child("envFrom").index(i);
    const prefix = asString(source.prefix);
    if (prefix) reportInvalid(ctx.report, path.child("prefix"), prefix, findEnvVarNameErrors(prefix));
    let sources = 0;
    for (const [field, kind] of [
      ["configMapRef", "ConfigMap"],
      ["secretRef", "Secret"],
    ] as const) {
      if (!isSet(source[field])) continue;
      sources++;
      const ref = asObject(source[field]);
      if (!ref) continue;
      const name = asString(ref.name);
      const namePath = path.child(field).child("name");
      if (isBlank(ref.name)) ctx.report({ type: "Required", path: namePath });
      else if (name !== undefined) {
        reportInvalid(ctx.report, namePath, name, findObjectNameErrors(name, true));
        checkObjectRef(ctx, { kind, name, namePath, optional: ref.optional === true, reason: CONFIG_ERROR });
      }
    }
    // The API server puts these two on `envFrom`; the index says which entry is meant.
    if (sources === 0)
      ctx.report({ type: "Invalid", path, value: "", detail: "must specify one of: `configMapRef` or `secretRef`" });
    else if (sources > 1)
      ctx.report({ type: "Invalid", path, value: "", detail: "may not have more than one field specified at a time" });
  }
}
