import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { reportInvalid } from "./context.js";
import { validateObjectMeta } from "./metadata.js";
import { findConfigMapKeyErrors } from "./names.js";
import { asObject, countBytes } from "./raw.js";

// ValidateConfigMap, and the base64 rule the API server's decoder applies to binaryData.

/** core.MaxSecretSize, which also bounds a ConfigMap: etcd takes objects of about this size. */
export const MAX_DATA_SIZE = 1024 * 1024;
export const TOO_LONG_DETAIL = `must have at most ${MAX_DATA_SIZE} bytes`;
/** Shown in place of a value that may be secret, or too long to be worth printing. */
export const REDACTED = "<redacted>";

/**
 * Decodes base64 as Go's encoding/json decodes a []byte (standard alphabet, padding required,
 * CR and LF ignored); undefined when the text is not valid base64.
 */
export function decodeBase64(text: string): Buffer | undefined {
  const compact = text.replace(/[\r\n]/g, "");
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return undefined;
  return Buffer.from(compact, "base64");
}

export function validateConfigMap(configMap: unknown, report: Reporter): void {
  const object = asObject(configMap);
  if (!object) return;
  validateObjectMeta(object, report);
  const root = FieldPath.root();
  const data = asObject(object.data) ?? {};
  const binaryData = asObject(object.binaryData) ?? {};
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    const path = root.child("data").key(key);
    reportInvalid(report, path, key, findConfigMapKeyErrors(key), true);
    if (Object.hasOwn(binaryData, key))
      reportInvalid(report, path, key, ["duplicate of key present in binaryData"], true);
    if (typeof value === "string") size += countBytes(value);
  }
  for (const [key, value] of Object.entries(binaryData)) {
    const path = root.child("binaryData").key(key);
    reportInvalid(report, path, key, findConfigMapKeyErrors(key), true);
    if (typeof value !== "string") continue;
    const bytes = decodeBase64(value);
    if (bytes) size += bytes.length;
    else report({ type: "Invalid", path, value: REDACTED, detail: "illegal base64 data" });
  }
  // The API server names no field here: the limit is on the object as a whole.
  if (size > MAX_DATA_SIZE) report({ type: "TooLong", path: root, detail: TOO_LONG_DETAIL });
}
