import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { reportInvalid } from "./context.js";
import { decodeBase64, MAX_DATA_SIZE, REDACTED, TOO_LONG_DETAIL } from "./config-map.js";
import { validateObjectMeta } from "./metadata.js";
import { findConfigMapKeyErrors } from "./names.js";
import { asObject, asString } from "./raw.js";
import {
  DOCKER_CONFIG_JSON_KEY,
  DOCKER_CONFIG_JSON_TYPE,
  DOCKERCFG_KEY,
  DOCKERCFG_TYPE,
  DockerConfigError,
  parseDockercfg,
  parseDockerConfigJson,
} from "../../credentials/docker-config.js";

// ValidateSecret. No message may carry a value of `data` or `stringData`: errors about contents
// show a placeholder, never the text.

interface Entry {
  /** Where the key is written: `data[k]`, or `stringData[k]`, which the API server merges into data. */
  path: FieldPath;
  /** The decoded bytes; absent when the base64 was invalid (already reported). */
  bytes?: Buffer;
}

export function validateSecret(secret: unknown, report: Reporter): void {
  const object = asObject(secret);
  if (!object) return;
  validateObjectMeta(object, report);
  const entries = collectEntries(object, report);
  const size = [...entries.values()].reduce((total, entry) => total + (entry.bytes?.length ?? 0), 0);
  if (size > MAX_DATA_SIZE) report({ type: "TooLong", path: FieldPath.root().child("data"), detail: TOO_LONG_DETAIL });
  checkType(object, entries, report);
}

function collectEntries(object: Record<string, unknown>, report: Reporter): Map<string, Entry> {
  const root = FieldPath.root();
  const entries = new Map<string, Entry>();
  for (const [key, value] of Object.entries(asObject(object.data) ?? {})) {
    const path = root.child("data").key(key);
    reportInvalid(report, path, key, findConfigMapKeyErrors(key), true);
    if (value === null) entries.set(key, { path, bytes: Buffer.alloc(0) });
    if (typeof value !== "string") continue;
    const bytes = decodeBase64(value);
    if (!bytes) report({ type: "Invalid", path, value: REDACTED, detail: "illegal base64 data" });
    entries.set(key, bytes ? { path, bytes } : { path });
  }
  // stringData is plain text and wins over data for the same key.
  for (const [key, value] of Object.entries(asObject(object.stringData) ?? {})) {
    const path = root.child("stringData").key(key);
    reportInvalid(report, path, key, findConfigMapKeyErrors(key), true);
    if (typeof value === "string") entries.set(key, { path, bytes: Buffer.from(value, "utf8") });
  }
  return entries;
}

function checkType(object: Record<string, unknown>, entries: Map<string, Entry>, report: Reporter): void {
  const dataPath = FieldPath.root().child("data");
  const require = (...keys: string[]) => {
    for (const key of keys) if (!entries.has(key)) report({ type: "Required", path: dataPath.key(key) });
  };
  switch (asString(object.type)) {
    case "kubernetes.io/service-account-token": {
      const key = "kubernetes.io/service-account.name";
      if (!asString(asObject(asObject(object.metadata)?.annotations)?.[key])) {
        report({ type: "Required", path: FieldPath.root().child("metadata").child("annotations").key(key) });
      }
      return;
    }
    case DOCKERCFG_TYPE:
      return checkJsonKey(entries, DOCKERCFG_KEY, dataPath, report, parseDockercfg);
    case DOCKER_CONFIG_JSON_TYPE:
      return checkJsonKey(entries, DOCKER_CONFIG_JSON_KEY, dataPath, report, parseDockerConfigJson);
    case "kubernetes.io/basic-auth":
      // Either may be empty, but one of them must be there.
      if (!entries.has("username") && !entries.has("password")) require("username", "password");
      return;
    case "kubernetes.io/ssh-auth":
      if (!entries.get("ssh-privatekey")?.bytes?.length)
        report({ type: "Required", path: dataPath.key("ssh-privatekey") });
      return;
    case "kubernetes.io/tls":
      require("tls.crt", "tls.key");
      return;
  }
}

/**
 * The key must hold a JSON object, as the API server checks. Beyond it, podrun checks what the
 * kubelet decodes when it pulls (the `auths` map, its entries, each `auth` field): a cluster
 * would accept such a Secret and then fail every pull that names it.
 */
function checkJsonKey(
  entries: Map<string, Entry>,
  key: string,
  dataPath: FieldPath,
  report: Reporter,
  decode: (text: string) => unknown,
): void {
  const entry = entries.get(key);
  if (!entry) {
    report({ type: "Required", path: dataPath.key(key) });
    return;
  }
  if (!entry.bytes) return;
  const text = entry.bytes.toString("utf8");
  const problem = describeJsonProblem(text) ?? describeDecodeProblem(text, decode);
  // The API server's own placeholder for this value.
  if (problem) report({ type: "Invalid", path: entry.path, value: "<secret contents redacted>", detail: problem });
}

// The decoder's messages name fields and Go types, never a value.
function describeDecodeProblem(text: string, decode: (text: string) => unknown): string | undefined {
  // The kubelet skips an empty key: nothing to decode.
  if (text.length === 0) return undefined;
  try {
    decode(text);
    return undefined;
  } catch (error) {
    if (error instanceof DockerConfigError) return `the kubelet cannot read it to pull: ${error.message}`;
    throw error;
  }
}

// Never the parser's message: V8's quotes the text it could not parse.
function describeJsonProblem(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The API server's words, not V8's (see above).
    return "must be valid JSON";
  }
  if (parsed === null || (typeof parsed === "object" && !Array.isArray(parsed))) return undefined;
  const kind = Array.isArray(parsed) ? "array" : typeof parsed === "boolean" ? "bool" : typeof parsed;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}
