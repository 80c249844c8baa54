import type { ConfigMap, Pod, Secret } from "kubernetes-types/core/v1.js";
import { ManifestError } from "../errors.js";
import { defaultConfigMap, defaultPod, defaultSecret } from "./defaults.js";
import { formatFieldError, type FieldError } from "./field-error.js";
import { collectObjects, type LocatedError, type ManifestObject } from "./objects.js";
import { parseYamlDocuments } from "./parse-yaml.js";
import { readManifestSource, type ManifestSource } from "./read-source.js";
import { checkSchema } from "./schema.js";
import { findIgnoredFields } from "./support.js";
import { buildObjectIndex, validateConfigMap, validatePod, validateSecret } from "./validate-objects.js";

/** A valid manifest, with the API server's defaults applied. */
export interface Manifest {
  /** The file name used in messages (`<stdin>` for `-`). */
  source: string;
  pods: Pod[];
  configMaps: ConfigMap[];
  secrets: Secret[];
  /** Formatted warning lines (`pod.yaml:9:7: Warning: spec.nodeSelector: …`). */
  warnings: string[];
}

/** Reads, validates and defaults one manifest file; throws ManifestError listing every error. */
export async function loadManifest(path: string): Promise<Manifest> {
  return checkManifest(await readManifestSource(path));
}

export function checkManifest(source: ManifestSource): Manifest {
  const { objects, errors } = collectObjects(parseYamlDocuments(source));
  const collect = (object: ManifestObject) => (error: FieldError) =>
    errors.push({ error, sourceMap: object.sourceMap, prefix: object.prefix });

  // Structure first; the semantic rules then skip values of the wrong type, already reported.
  for (const object of objects) checkSchema(object.value, object.kind, collect(object));
  const index = buildObjectIndex(objects.filter((o) => o.kind !== "Pod").map((o) => ({ kind: o.kind, value: o.value })));
  for (const object of objects) {
    if (object.kind === "Pod") validatePod(object.value, index, collect(object));
    else if (object.kind === "ConfigMap") validateConfigMap(object.value, collect(object));
    else validateSecret(object.value, collect(object));
  }
  if (errors.length > 0) throw new ManifestError(formatErrors(source.name, errors));

  const warnings: LocatedError[] = [];
  const pods: Pod[] = [];
  const configMaps: ConfigMap[] = [];
  const secrets: Secret[] = [];
  for (const object of objects) {
    if (object.kind === "Pod") {
      findIgnoredFields(object.value, (error) => warnings.push({ error, sourceMap: object.sourceMap, prefix: object.prefix }));
      pods.push(defaultPod(object.value as Pod));
    } else if (object.kind === "ConfigMap") configMaps.push(defaultConfigMap(object.value as ConfigMap));
    else secrets.push(defaultSecret(object.value as Secret));
  }
  const warningLines = sortByPosition(source.name, warnings).map(
    ({ where, error, prefix }) => `${where}: Warning: ${prefixed(error.path.display, prefix)}: ${error.detail ?? ""}`,
  );
  return { source: source.name, pods, configMaps, secrets, warnings: warningLines };
}

/** One line per distinct error, in source order: `pod.yaml:14:9: spec.containers[1].name: …`. */
function formatErrors(file: string, errors: readonly LocatedError[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const { where, error, prefix } of sortByPosition(file, errors)) {
    // The structural and semantic checks may both find a missing required field, in other words.
    const text = prefixed(formatFieldError(error), prefix);
    const key = error.type === "Required" ? `${prefix}|${error.path.display}|Required` : text;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`${where}: ${text}`);
  }
  return lines;
}

function sortByPosition(file: string, errors: readonly LocatedError[]) {
  return errors
    .map((located, order) => {
      const { error } = located;
      // An unknown field's path is its parent's: point at the unknown key itself.
      const segments = error.type === "UnknownField" && error.field !== undefined ? [...error.path.segments, error.field] : error.path.segments;
      const { line, col } = located.sourceMap.locate(segments, error.atKey ?? false);
      return { ...located, line, col, order, where: `${file}:${line}:${col}` };
    })
    .sort((a, b) => a.line - b.line || a.col - b.col || a.order - b.order);
}

// Items of a `kind: List` are named `items[2].spec…`, as kubectl names them.
function prefixed(text: string, prefix: string): string {
  return prefix ? `${prefix}.${text}` : text;
}
