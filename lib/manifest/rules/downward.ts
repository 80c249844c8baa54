import type { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { reportInvalid } from "./context.js";
import { findQualifiedNameErrors } from "./names.js";
import { asString, isBlank, type RawObject } from "./raw.js";

// env[].valueFrom.fieldRef and .resourceFieldRef (validateObjectFieldSelector and friends).

/** What ConvertDownwardAPIFieldLabel knows for v1 pods. */
const CONVERTIBLE_FIELD_PATHS = new Set([
  "metadata.annotations",
  "metadata.labels",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.restartPolicy",
  "spec.serviceAccountName",
  "spec.schedulerName",
  "status.phase",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
]);

/** What an environment variable may read, sorted as the API server lists them. */
const ENV_FIELD_PATHS = [
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
];

/** What a downwardAPI volume file may hold (validVolumeDownwardAPIFieldPathExpressions), sorted. */
export const VOLUME_FIELD_PATHS = [
  "metadata.annotations",
  "metadata.labels",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
];

const CONTAINER_RESOURCES = [
  "limits.cpu",
  "limits.ephemeral-storage",
  "limits.memory",
  "requests.cpu",
  "requests.ephemeral-storage",
  "requests.memory",
];

/** validateObjectFieldSelector: `supported` are the paths the place allows (an env var's by default). */
export function checkEnvFieldRef(
  report: Reporter,
  ref: RawObject,
  path: FieldPath,
  supported: readonly string[] = ENV_FIELD_PATHS,
): void {
  // An empty apiVersion is defaulted to v1.
  const apiVersion = asString(ref.apiVersion) || "v1";
  const fieldPath = asString(ref.fieldPath);
  const fieldPathPath = path.child("fieldPath");
  if (isBlank(ref.fieldPath)) {
    report({ type: "Required", path: fieldPathPath });
    return;
  }
  if (fieldPath === undefined) return;
  const convertError = (reason: string) =>
    report({ type: "Invalid", path: fieldPathPath, value: fieldPath, detail: `error converting fieldPath: ${reason}` });
  if (apiVersion !== "v1") return convertError(`unsupported pod version: ${apiVersion}`);

  const subscripted = splitSubscript(fieldPath);
  if (subscripted) {
    const [base, subscript] = subscripted;
    if (base === "metadata.annotations")
      reportInvalid(report, path, subscript, findQualifiedNameErrors(subscript.toLowerCase()));
    else if (base === "metadata.labels") reportInvalid(report, path, subscript, findQualifiedNameErrors(subscript));
    else convertError("field label does not support subscript");
    return;
  }
  // `spec.host` is how old clients spelled spec.nodeName.
  const converted = fieldPath === "spec.host" ? "spec.nodeName" : fieldPath;
  if (!CONVERTIBLE_FIELD_PATHS.has(converted)) return convertError(`field label not supported: ${fieldPath}`);
  if (!supported.includes(converted)) report({ type: "Unsupported", path: fieldPathPath, value: converted, supported });
}

// fieldpath.SplitMaybeSubscriptedPath: `metadata.labels['app']`.
function splitSubscript(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const inner = fieldPath.slice(0, -2);
  const open = inner.indexOf("['");
  if (open <= 0) return undefined;
  return [inner.slice(0, open), inner.slice(open + 2)];
}

export function checkEnvResourceFieldRef(report: Reporter, ref: RawObject, path: FieldPath): void {
  const resource = asString(ref.resource);
  if (isBlank(ref.resource)) report({ type: "Required", path: path.child("resource") });
  else if (
    resource !== undefined &&
    !CONTAINER_RESOURCES.includes(resource) &&
    !/^(requests|limits)\.hugepages-/.test(resource)
  ) {
    report({ type: "Unsupported", path: path.child("resource"), value: resource, supported: CONTAINER_RESOURCES });
  }
}
