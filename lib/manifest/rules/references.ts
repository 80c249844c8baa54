import type { FieldPath } from "../field-path.js";
import { DEFAULT_NAMESPACE, toObjectKey, type ObjectIndex, type PodContext } from "./context.js";
import { asObject, asString } from "./raw.js";

// A pod may only use ConfigMaps and Secrets of the same file and namespace: podrun has no API
// server to fetch others from, and a reference that resolves nowhere would fail at start anyway
// (CreateContainerConfigError, or a volume that never mounts) unless it is optional.

/** Indexes the ConfigMaps and Secrets of a manifest, with their keys, for validatePod. */
export function buildObjectIndex(objects: readonly { kind: string; value: unknown }[]): ObjectIndex {
  const configMaps = new Set<string>();
  const secrets = new Set<string>();
  const configMapKeys = new Map<string, Set<string>>();
  const secretKeys = new Map<string, Set<string>>();
  for (const { kind, value } of objects) {
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
    }
  }
  return { configMaps, secrets, configMapKeys, secretKeys };
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
}

/** Reports a reference to a ConfigMap or Secret that is not in the file, or a key it lacks. */
export function checkObjectRef(ctx: PodContext, ref: ObjectRef): void {
  if (ref.optional || ref.name === "") return;
  const key = toObjectKey(ctx.namespace, ref.name);
  const known = ref.kind === "ConfigMap" ? ctx.index.configMaps : ctx.index.secrets;
  if (!known.has(key)) {
    ctx.report({ type: "NotFound", path: ref.namePath, value: ref.name });
    return;
  }
  const knownKeys = (ref.kind === "ConfigMap" ? ctx.index.configMapKeys : ctx.index.secretKeys)?.get(key);
  for (const wanted of ref.keys ?? []) {
    if (knownKeys && wanted.value !== "" && !knownKeys.has(wanted.value)) {
      ctx.report({ type: "NotFound", path: wanted.path, value: wanted.value });
    }
  }
}
