// Reads registry credentials the way the kubelet decodes a pull secret
// (kubernetes/kubernetes pkg/credentialprovider/config.go, secrets/secrets.go): the entries of
// a docker config, keyed by registry as written, before the keyring normalises the keys.

/** One entry of a docker config, its `auth` field already decoded. */
export interface DockerConfigEntry {
  username: string;
  password: string;
  email: string;
}

/** Registry (as written in the file) → credentials, in the file's order. */
export type DockerConfig = ReadonlyArray<readonly [registry: string, entry: DockerConfigEntry]>;

/** A docker config that cannot be decoded. The message names a field, never a value. */
export class DockerConfigError extends Error {
  override readonly name = "DockerConfigError";
}

export const DOCKER_CONFIG_JSON_TYPE = "kubernetes.io/dockerconfigjson";
export const DOCKER_CONFIG_JSON_KEY = ".dockerconfigjson";
export const DOCKERCFG_TYPE = "kubernetes.io/dockercfg";
export const DOCKERCFG_KEY = ".dockercfg";

const AUTH_FORMAT = "unable to parse auth field, must be formatted as base64(username:password)";

/** `{"auths": {...}, "HttpHeaders": {...}}`: a `.dockerconfigjson`, docker's config.json, podman's auth.json. */
export function parseDockerConfigJson(text: string): DockerConfig {
  const parsed = parseJson(text);
  if (parsed === null) return [];
  const object = expectObject(parsed, "Go value of type credentialprovider.DockerConfigJSON");
  // encoding/json matches struct fields case-insensitively; the last such key wins.
  let auths: unknown = null;
  for (const [key, value] of Object.entries(object)) {
    if (key.toLowerCase() === "auths") auths = value;
    else if (key.toLowerCase() === "httpheaders" && value !== null) checkHeaders(value);
  }
  return auths === null
    ? []
    : readEntries(auths, "Go struct field DockerConfigJSON.auths of type credentialprovider.DockerConfig");
}

/** The legacy `.dockercfg`: the `auths` map alone. */
export function parseDockercfg(text: string): DockerConfig {
  const parsed = parseJson(text);
  return parsed === null ? [] : readEntries(parsed, "Go value of type credentialprovider.DockerConfig");
}

/**
 * `auth` is base64(username:password), padded or not: the kubelet picks the padded decoder when
 * the text ends in `=`, and the unpadded one otherwise.
 */
export function decodeAuthField(field: string): { username: string; password: string } {
  const decoded = decodeGoBase64(field, field.trim().endsWith("="));
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new DockerConfigError(AUTH_FORMAT);
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function readEntries(value: unknown, target: string): DockerConfig {
  const entries: [string, DockerConfigEntry][] = [];
  for (const [registry, raw] of Object.entries(expectObject(value, target))) {
    entries.push([registry, readEntry(raw)]);
  }
  return entries;
}

function readEntry(value: unknown): DockerConfigEntry {
  const entry: DockerConfigEntry = { username: "", password: "", email: "" };
  if (value === null) return entry;
  let auth = "";
  for (const [key, field] of Object.entries(
    expectObject(value, "Go value of type credentialprovider.dockerConfigEntryWithAuth"),
  )) {
    const name = key.toLowerCase();
    if (name !== "username" && name !== "password" && name !== "email" && name !== "auth") continue;
    if (field === null) continue;
    if (typeof field !== "string") {
      throw new DockerConfigError(
        `json: cannot unmarshal ${goKind(field)} into Go struct field dockerConfigEntryWithAuth.${name} of type string`,
      );
    }
    if (name === "auth") auth = field;
    else entry[name] = field;
  }
  return auth ? { ...entry, ...decodeAuthField(auth) } : entry;
}

function checkHeaders(value: unknown): void {
  for (const [key, header] of Object.entries(
    expectObject(value, "Go struct field DockerConfigJSON.HttpHeaders of type map[string]string"),
  )) {
    if (header !== null && typeof header !== "string") {
      throw new DockerConfigError(
        `json: cannot unmarshal ${goKind(header)} into Go struct field DockerConfigJSON.HttpHeaders.${key} of type string`,
      );
    }
  }
}

// Never the parser's message: V8's quotes the text it could not parse.
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new DockerConfigError("invalid JSON");
  }
}

// `target` as encoding/json names it: `Go value of type T` or `Go struct field S.f of type T`.
function expectObject(value: unknown, target: string): Record<string, unknown> {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new DockerConfigError(`json: cannot unmarshal ${goKind(value)} into ${target}`);
}

function goKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

// Go's base64.StdEncoding (padded) or RawStdEncoding: CR and LF ignored, anything else outside
// the alphabet, or a length that cannot be, fails with the offending position.
function decodeGoBase64(text: string, padded: boolean): string {
  const compact = text.replace(/[\r\n]/g, "");
  const bad = compact.search(padded ? /[^A-Za-z0-9+/=]|=[^=]|={3}/ : /[^A-Za-z0-9+/]/);
  if (bad >= 0) throw new DockerConfigError(`illegal base64 data at input byte ${bad}`);
  const length = compact.length;
  if (padded ? length % 4 !== 0 : length % 4 === 1) {
    throw new DockerConfigError(`illegal base64 data at input byte ${padded ? length : length - 1}`);
  }
  return Buffer.from(compact, "base64").toString("utf8");
}
