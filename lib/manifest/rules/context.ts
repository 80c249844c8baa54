import type { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import type { RawObject } from "./raw.js";

/** The ConfigMaps and Secrets of the manifest, by `namespace/name`, that a Pod may refer to. */
export interface ObjectIndex {
  configMaps: ReadonlySet<string>;
  secrets: ReadonlySet<string>;
  /** The keys (data and binaryData) of each ConfigMap; no entry means its keys are unknown. */
  configMapKeys?: ReadonlyMap<string, ReadonlySet<string>>;
  /** The keys (data and stringData) of each Secret; no entry means its keys are unknown. */
  secretKeys?: ReadonlyMap<string, ReadonlySet<string>>;
  /** The type of each Secret (`Opaque` when unset); no entry means its type is unknown. */
  secretTypes?: ReadonlyMap<string, string>;
  /** The files the objects were read from: named when a reference resolves in none of them. */
  files?: readonly string[];
  /** Where each object is defined (`cm.yaml:4:9`), by `Kind:namespace/name`. */
  places?: ReadonlyMap<string, string>;
  /** The pods' ConfigMaps and Secrets may be elsewhere (`down FILE`): references are not checked. */
  partial?: boolean;
}

/** What the rules of one Pod share. */
export interface PodContext {
  report: Reporter;
  index: ObjectIndex;
  /** metadata.namespace, or "default". */
  namespace: string;
  /** The pod's volumes by name (the first of each name). */
  volumes: ReadonlyMap<string, RawObject>;
  /** spec.terminationGracePeriodSeconds as defaulted (30), bounding sleep actions. */
  gracePeriod: number;
}

// load-manifest.ts reads the default namespace here; its one definition is in defaults.ts.
export { DEFAULT_NAMESPACE } from "../defaults.js";

export function toObjectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** One Invalid error per message, as apimachinery reports each broken rule of a value. */
export function reportInvalid(
  report: Reporter,
  path: FieldPath,
  value: unknown,
  messages: readonly string[],
  atKey = false,
): void {
  for (const detail of messages) report({ type: "Invalid", path, value, detail, atKey });
}
