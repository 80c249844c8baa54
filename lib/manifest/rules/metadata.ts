import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { DEFAULT_NAMESPACE } from "../defaults.js";
import { reportInvalid } from "./context.js";
import {
  findDns1123LabelErrors,
  findLabelValueErrors,
  findObjectNameErrors,
  findQualifiedNameErrors,
} from "./names.js";
import { asObject, asString, countBytes, isSet } from "./raw.js";

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/**
 * ValidateObjectMeta for a namespaced object whose name is a DNS subdomain (Pod, ConfigMap,
 * Secret), or passes `nameErrors` (a Service's name is a DNS-1123 label). Returns the namespace
 * the object lives in.
 */
export function validateObjectMeta(
  object: Record<string, unknown>,
  report: Reporter,
  nameErrors: (name: string) => string[] = findObjectNameErrors,
): string {
  const path = FieldPath.root().child("metadata");
  const meta = asObject(object.metadata) ?? {};
  validateName(meta, path, report, nameErrors);

  const namespace = asString(meta.namespace);
  if (namespace) reportInvalid(report, path.child("namespace"), namespace, findDns1123LabelErrors(namespace));

  const labels = asObject(meta.labels) ?? {};
  for (const [key, value] of Object.entries(labels)) {
    const keyPath = path.child("labels").key(key);
    reportInvalid(report, keyPath, key, findQualifiedNameErrors(key), true);
    if (typeof value === "string") reportInvalid(report, keyPath, value, findLabelValueErrors(value));
  }

  const annotations = asObject(meta.annotations) ?? {};
  let size = 0;
  for (const [key, value] of Object.entries(annotations)) {
    // Annotation keys are qualified names in any case.
    reportInvalid(report, path.child("annotations").key(key), key, findQualifiedNameErrors(key.toLowerCase()), true);
    size += countBytes(key) + (typeof value === "string" ? countBytes(value) : 0);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) {
    report({
      type: "TooLong",
      path: path.child("annotations"),
      detail: `must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`,
    });
  }
  return namespace || DEFAULT_NAMESPACE;
}

function validateName(
  meta: Record<string, unknown>,
  path: FieldPath,
  report: Reporter,
  nameErrors: (name: string) => string[],
): void {
  // A name of the wrong type is the structural checker's to report.
  if (isSet(meta.name) && typeof meta.name !== "string") return;
  const name = asString(meta.name);
  if (name) {
    reportInvalid(report, path.child("name"), name, nameErrors(name));
    return;
  }
  const generateName = asString(meta.generateName);
  if (generateName) {
    // An API server appends a random suffix; a local run needs a name it can find again.
    report({
      type: "Forbidden",
      path: path.child("generateName"),
      detail: "not supported by podrun, which runs a pod under a fixed name: set metadata.name instead",
    });
    return;
  }
  report({ type: "Required", path: path.child("name"), detail: "name or generateName is required" });
}

const POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";

/**
 * ValidatePodSpecificAnnotations' deletion cost: with the PodDeletionCost gate (beta, on by default
 * since v1.22) the annotation must be a 32-bit integer, as strconv.ParseInt(value, 10, 32) reads it.
 */
export function validatePodAnnotations(object: Record<string, unknown>, report: Reporter): void {
  const value = asObject(asObject(object.metadata)?.annotations)?.[POD_DELETION_COST];
  if (typeof value !== "string") return;
  const parsed = /^[+-]?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isInteger(parsed) && parsed >= -(2 ** 31) && parsed <= 2 ** 31 - 1) return;
  const path = FieldPath.root().child("metadata").child("annotations").key(POD_DELETION_COST);
  report({ type: "Invalid", path, value, detail: "must be a 32bit integer" });
}
