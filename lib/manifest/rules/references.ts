import type { KubeletReason } from "../field-error.js";
import type { FieldPath } from "../field-path.js";
import { DEFAULT_NAMESPACE } from "../defaults.js";
import { toObjectKey, type ObjectIndex, type PodContext } from "./context.js";
import { asObject, asString } from "./raw.js";

// A pod may only use ConfigMaps and Secrets of the same namespace in the files given to one
// command: podrun has no API server to fetch others from. An API server accepts a pod whose
// reference resolves nowhere; the kubelet then fails it at start (CreateContainerConfigError for
// the environment, FailedMount for a volume) unless it is optional. So a missing reference is a
// kubelet's error (FieldError.kubelet): a Warning at `validate`, refused by `up`.

/** At most this many files are named in a message; a directory may hold many more. */
const MAX_FILES_NAMED = 3;

/** Said once after the lines naming a missing ConfigMap or Secret that could be optional. */
const OPTIONAL_HINT =
  "podrun reads only the files given: pass the file that defines each ConfigMap and Secret, or mark a reference that may be absent `optional: true`";

export interface IndexedObject {
  kind: string;
  value: unknown;
  /** Where the object is defined (`cm.yaml:4:9`), for messages. */
  place?: string;
}

/** Indexes the ConfigMaps and Secrets of the manifests, with their keys, for validatePod. */
export function buildObjectIndex(
  objects: readonly IndexedObject[],
  options: { files?: readonly string[]; partial?: boolean } = {},
): ObjectIndex {
  const configMaps = new Set<string>();
  const secrets = new Set<string>();
  const configMapKeys = new Map<string, Set<string>>();
  const secretKeys = new Map<string, Set<string>>();
  const secretTypes = new Map<string, string>();
  const places = new Map<string, string>();
  for (const { kind, value, place } of objects) {
    const object = asObject(value);
    const meta = asObject(object?.metadata);
    const name = asString(meta?.name);
    if (!object || !name) continue;
    const key = toObjectKey(asString(meta?.namespace) || DEFAULT_NAMESPACE, name);
    if (kind === "ConfigMap") {
      configMaps.add(key);
      configMapKeys.set(key, collectKeys(object.data, object.binaryData));
    } else if (kind === "Secret") {
      secrets.add(key);
      secretKeys.set(key, collectKeys(object.data, object.stringData));
      secretTypes.set(key, asString(object.type) || "Opaque");
    } else continue;
    if (place !== undefined && !places.has(`${kind}:${key}`)) places.set(`${kind}:${key}`, place);
  }
  return {
    configMaps,
    secrets,
    configMapKeys,
    secretKeys,
    secretTypes,
    places,
    files: options.files,
    partial: options.partial,
  };
}

function collectKeys(...maps: unknown[]): Set<string> {
  return new Set(maps.flatMap((map) => Object.keys(asObject(map) ?? {})));
}

export interface ObjectRef {
  kind: "ConfigMap" | "Secret";
  name: string;
  namePath: FieldPath;
  /** Set when the pod tolerates the object (or key) being absent. */
  optional: boolean;
  /** The keys the pod reads from the object. */
  keys?: readonly { value: string; path: FieldPath }[];
  /** What the kubelet reports when it is missing. */
  reason: KubeletReason;
  /** false: the reference has no `optional` field (a pull secret). Default true. */
  canBeOptional?: boolean;
}

/** Reports a reference to a ConfigMap or Secret that is in none of the files, or a key it lacks. */
export function checkObjectRef(ctx: PodContext, ref: ObjectRef): void {
  if (ref.optional || ref.name === "" || ctx.index.partial) return;
  const key = toObjectKey(ctx.namespace, ref.name);
  const known = ref.kind === "ConfigMap" ? ctx.index.configMaps : ctx.index.secrets;
  if (!known.has(key)) {
    ctx.report({
      type: "NotFound",
      path: ref.namePath,
      value: ref.name,
      kubelet: ref.reason,
      ...withDetail(explainMissingObject(ctx, ref)),
      ...(ref.canBeOptional !== false && { hint: OPTIONAL_HINT }),
    });
    return;
  }
  const knownKeys = (ref.kind === "ConfigMap" ? ctx.index.configMapKeys : ctx.index.secretKeys)?.get(key);
  const place = ctx.index.places?.get(`${ref.kind}:${key}`);
  for (const wanted of ref.keys ?? []) {
    if (knownKeys && wanted.value !== "" && !knownKeys.has(wanted.value)) {
      const detail =
        place === undefined ? undefined : `${ref.kind} "${ref.name}" (${place}) has no key "${wanted.value}"`;
      ctx.report({
        type: "NotFound",
        path: wanted.path,
        value: wanted.value,
        kubelet: ref.reason,
        ...withDetail(detail),
      });
    }
  }
}

const withDetail = (detail: string | undefined) => (detail === undefined ? {} : { detail });

/**
 * `no ConfigMap "app-config" in namespace "default" in the files read (cm.yaml, pod.yaml)`, and
 * where one of that name is defined in another namespace, if any: the likely mistake.
 */
function explainMissingObject(ctx: PodContext, ref: ObjectRef): string | undefined {
  const files = ctx.index.files;
  if (files === undefined) return undefined;
  const named =
    files.length > MAX_FILES_NAMED
      ? [...files.slice(0, MAX_FILES_NAMED), `${files.length - MAX_FILES_NAMED} more`]
      : files;
  // Quoted as the field errors quote values: a name with a line break stays on the error's line.
  const text = `no ${ref.kind} ${JSON.stringify(ref.name)} in namespace ${JSON.stringify(ctx.namespace)} in the ${files.length === 1 ? "file" : `${files.length} files`} read (${named.join(", ")})`;
  for (const [key, place] of ctx.index.places ?? []) {
    const [kind, namespace, ...rest] = key.split(/[:/]/);
    if (kind === ref.kind && rest.join("/") === ref.name && namespace !== ctx.namespace) {
      return `${text}; ${place} defines one in namespace "${namespace}"`;
    }
  }
  return text;
}
