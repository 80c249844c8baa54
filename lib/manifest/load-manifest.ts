import type { ConfigMap, PersistentVolumeClaim, Pod, Secret } from "kubernetes-types/core/v1.js";
import { ManifestError } from "../errors.js";
import { defaultConfigMap, defaultPod, defaultSecret } from "./defaults.js";
import { formatFieldError, type FieldError } from "./field-error.js";
import { FieldPath } from "./field-path.js";
import { collectManifestPaths, type ExpandOptions } from "./manifest-paths.js";
import { collectObjects, type LocatedError, type ManifestObject } from "./objects.js";
import { parseYamlDocuments } from "./parse-yaml.js";
import { readManifestSource, type ManifestSource } from "./read-source.js";
import { DEFAULT_NAMESPACE, toObjectKey } from "./rules/context.js";
import { asObject, asString } from "./rules/raw.js";
import { checkSchema } from "./schema.js";
import { findIgnoredFields } from "./support.js";
import { findEngineSecurityWarnings } from "./security-warnings.js";
import { findEnginePodResourceWarnings } from "./pod-resources-support.js";
import type { RuntimeName } from "../runtime/detect.js";
import { buildObjectIndex, validateConfigMap, validatePod, validateSecret } from "./validate-objects.js";
import {
  claimKeyOf,
  findClaimWarnings,
  findMissingClaims,
  validatePersistentVolumeClaim,
} from "./rules/persistent-volume-claim.js";
import { isWorkloadKind } from "./kinds.js";
import { findInTemplate, validateWorkload } from "./rules/workloads.js";
import { expandWorkload, type Workload } from "../workloads/expand.js";

/** The valid objects of one file of the set, with the API server's defaults applied. */
export interface ManifestFile {
  /** The file name used in messages (`<stdin>` for `-`). */
  source: string;
  pods: Pod[];
  configMaps: ConfigMap[];
  secrets: Secret[];
  /** Claims podrun gives an engine volume each (lib/pod/volumes/claim-volumes.ts). */
  persistentVolumeClaims?: PersistentVolumeClaim[];
  /** Deployments, StatefulSets, Jobs… with the pods their controllers would create (not run by `up` yet). */
  workloads: Workload[];
}

/**
 * The valid manifests given to one command (one file, or several and directories), defaulted.
 * `configMaps` and `secrets` are those of every file: any pod may use them (a PodObjects).
 */
export interface Manifest {
  /** The names of the files read, in order, joined by ", ": for messages about the whole set. */
  source: string;
  /** The names of the files read, in order. */
  sources: string[];
  /** Each file's objects, in the order read. */
  files: ManifestFile[];
  /** Every file's pods, in file order, then document order. */
  pods: Pod[];
  /** The file each pod came from. */
  podSources: ReadonlyMap<Pod, string>;
  configMaps: ConfigMap[];
  secrets: Secret[];
  /** Every file's PersistentVolumeClaims: any pod of the set may mount them. */
  persistentVolumeClaims?: PersistentVolumeClaim[];
  /** Formatted warning lines (`pod.yaml:9:7: Warning: spec.nodeSelector: …`), file by file. */
  warnings: string[];
  /** Warning lines that hold on one engine only (security-warnings.ts, pod-resources-support.ts), for `up` to print those of its engine. */
  engineWarnings?: Partial<Record<RuntimeName, string[]>>;
}

export interface LoadOptions extends ExpandOptions {
  /** What `-` reads (default: process.stdin). */
  stdin?: NodeJS.ReadableStream;
  /**
   * false: a reference to a ConfigMap or Secret in none of the files is not an error (`down`
   * needs a pod's name and hooks, not its ConfigMaps). Default true.
   */
  checkReferences?: boolean;
}

/** Reads, validates and defaults one manifest file; throws ManifestError listing every error. */
export async function loadManifest(path: string, options: LoadOptions = {}): Promise<Manifest> {
  return loadManifests([path], options);
}

/**
 * Reads, validates and defaults the manifests of `paths` (files, directories, `-`) as one set, as
 * `kubectl apply -f a -f dir/` sends them to one API server: a Pod may use a ConfigMap or Secret
 * of any file. Throws ManifestError with every error of every file, each line naming its file.
 */
export async function loadManifests(paths: readonly string[], options: LoadOptions = {}): Promise<Manifest> {
  const { files, errors } = await collectManifestPaths(paths, options);
  const sources: ManifestSource[] = [];
  for (const file of files) {
    try {
      sources.push(await readManifestSource(file, options.stdin));
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      errors.push(...error.lines);
    }
  }
  return checkManifests(sources, { earlier: errors, checkReferences: options.checkReferences !== false });
}

/** Validates and defaults one manifest already read. */
export function checkManifest(source: ManifestSource): Manifest {
  return checkManifests([source]);
}

/** One file being checked: its objects, and the errors found in it. */
interface FileCheck {
  source: ManifestSource;
  objects: ManifestObject[];
  errors: LocatedError[];
  /** Kinds podrun does not run (a Service). */
  warnings: LocatedError[];
}

/**
 * Validates and defaults manifests already read, as one set. `earlier` are error lines found
 * before (files that could not be read): they are reported first, with those of the set.
 */
export function checkManifests(
  sources: readonly ManifestSource[],
  { earlier = [], checkReferences = true }: { earlier?: readonly string[]; checkReferences?: boolean } = {},
): Manifest {
  const checks: FileCheck[] = sources.map((source) => ({ source, ...collectObjects(parseYamlDocuments(source)) }));
  const collect = (check: FileCheck, object: ManifestObject) => (error: FieldError) =>
    check.errors.push({ error, sourceMap: object.sourceMap, prefix: object.prefix });

  // Structure first; the semantic rules then skip values of the wrong type, already reported.
  for (const check of checks)
    for (const object of check.objects) checkSchema(object.value, object.kind, collect(check, object));
  findDuplicateObjects(checks);
  const index = buildObjectIndex(
    checks.flatMap((check) =>
      check.objects
        .filter((o) => o.kind !== "Pod")
        .map((o) => ({ kind: o.kind, value: o.value, place: placeOfName(check, o) })),
    ),
    { files: sources.map((source) => source.name), partial: !checkReferences },
  );
  for (const check of checks) {
    for (const object of check.objects) {
      if (object.kind === "Pod") validatePod(object.value, index, collect(check, object));
      else if (object.kind === "ConfigMap") validateConfigMap(object.value, collect(check, object));
      else if (object.kind === "PersistentVolumeClaim")
        validatePersistentVolumeClaim(object.value, collect(check, object));
      else if (isWorkloadKind(object.kind))
        validateWorkload(object.kind, object.value, index, collect(check, object), validatePod);
      else validateSecret(object.value, collect(check, object));
    }
  }
  const errorLines = [...earlier, ...checks.flatMap((check) => formatErrors(check.source.name, check.errors))];
  if (errorLines.length > 0) throw new ManifestError(errorLines);

  const manifest: Manifest = {
    source: sources.map((source) => source.name).join(", "),
    sources: sources.map((source) => source.name),
    files: [],
    pods: [],
    podSources: new Map(),
    configMaps: [],
    secrets: [],
    warnings: [],
  };
  const podSources = new Map<Pod, string>();
  const claimKeys = new Set(
    checks.flatMap((check) =>
      check.objects.filter((o) => o.kind === "PersistentVolumeClaim").flatMap((o) => claimKeyOf(o.value) ?? []),
    ),
  );
  for (const check of checks) {
    const file: ManifestFile = { source: check.source.name, pods: [], configMaps: [], secrets: [], workloads: [] };
    const warnings: LocatedError[] = [...check.warnings];
    const engineWarnings: Partial<Record<RuntimeName, LocatedError[]>> = {};
    for (const object of check.objects) {
      if (object.kind === "Pod") {
        findIgnoredFields(object.value, (error) =>
          warnings.push({ error, sourceMap: object.sourceMap, prefix: object.prefix }),
        );
        if (checkReferences)
          findMissingClaims(object.value, claimKeys, (error) =>
            warnings.push({ error, sourceMap: object.sourceMap, prefix: object.prefix }),
          );
        findEngineSecurityWarnings(object.value, (engine, error) =>
          (engineWarnings[engine] ??= []).push({ error, sourceMap: object.sourceMap, prefix: object.prefix }),
        );
        findEnginePodResourceWarnings(object.value, (engine, error) =>
          (engineWarnings[engine] ??= []).push({ error, sourceMap: object.sourceMap, prefix: object.prefix }),
        );
        const pod = defaultPod(object.value);
        file.pods.push(pod);
        podSources.set(pod, file.source);
      } else if (object.kind === "ConfigMap") file.configMaps.push(defaultConfigMap(object.value));
      else if (object.kind === "PersistentVolumeClaim") {
        findClaimWarnings(object.value, (error) =>
          warnings.push({ error, sourceMap: object.sourceMap, prefix: object.prefix }),
        );
        (file.persistentVolumeClaims ??= []).push(object.value);
      } else if (isWorkloadKind(object.kind)) {
        findInTemplate(object.value, findIgnoredFields, (error) =>
          warnings.push({ error, sourceMap: object.sourceMap, prefix: object.prefix }),
        );
        file.workloads.push(expandWorkload({ ...object.value, kind: object.kind }));
      } else file.secrets.push(defaultSecret(object.value));
    }
    manifest.files.push(file);
    manifest.pods.push(...file.pods);
    manifest.configMaps.push(...file.configMaps);
    manifest.secrets.push(...file.secrets);
    if (file.persistentVolumeClaims) (manifest.persistentVolumeClaims ??= []).push(...file.persistentVolumeClaims);
    // A StatefulSet's claims are made by its controller, not written in the file: they join the set's claims.
    for (const workload of file.workloads)
      if (workload.claims.length > 0) (manifest.persistentVolumeClaims ??= []).push(...workload.claims);
    manifest.warnings.push(...formatWarnings(file.source, warnings));
    for (const [engine, located] of Object.entries(engineWarnings) as [RuntimeName, LocatedError[]][]) {
      ((manifest.engineWarnings ??= {})[engine] ??= []).push(...formatWarnings(file.source, located));
    }
  }
  manifest.podSources = podSources;
  return manifest;
}

/**
 * Two objects of one kind, namespace and name, in one file or across files, are an error at the
 * second, naming the first. kubectl would apply the second over the first; podrun has no API
 * server keeping the last write: two Pods of one name cannot both run (their containers have the
 * same names), and with two ConfigMaps or Secrets of one name what a pod reads would depend on
 * the order of the files. Even identical copies are refused: one of them is stale sooner or later.
 */
function findDuplicateObjects(checks: readonly FileCheck[]): void {
  const first = new Map<string, string>();
  for (const check of checks) {
    for (const object of check.objects) {
      const meta = asObject(object.value.metadata);
      const name = asString(meta?.name);
      if (!name) continue; // a missing name is reported as such
      const namespace = asString(meta?.namespace) || DEFAULT_NAMESPACE;
      const key = `${object.kind}:${toObjectKey(namespace, name)}`;
      const place = placeOfName(check, object);
      const earlier = first.get(key);
      if (earlier === undefined) {
        first.set(key, place);
        continue;
      }
      check.errors.push({
        error: {
          type: "Duplicate",
          path: FieldPath.root().child("metadata").child("name"),
          value: name,
          detail: `${object.kind} "${name}" in namespace "${namespace}" is also defined at ${earlier}`,
        },
        sourceMap: object.sourceMap,
        prefix: object.prefix,
      });
    }
  }
}

/** `cm.yaml:4:9`: where an object's metadata.name is written. */
function placeOfName(check: FileCheck, object: ManifestObject): string {
  const { line, col } = object.sourceMap.locate(["metadata", "name"]);
  return `${check.source.name}:${line}:${col}`;
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

function formatWarnings(file: string, warnings: readonly LocatedError[]): string[] {
  return sortByPosition(file, warnings).map(
    ({ where, error, prefix }) =>
      `${where}: Warning: ${[error.path, ...(error.others ?? [])].map((path) => prefixed(path.display, prefix)).join(", ")}: ${error.detail ?? ""}`,
  );
}

function sortByPosition(file: string, errors: readonly LocatedError[]) {
  return errors
    .map((located, order) => {
      const { error } = located;
      // An unknown field's path is its parent's: point at the unknown key itself.
      const segments =
        error.type === "UnknownField" && error.field !== undefined
          ? [...error.path.segments, error.field]
          : error.path.segments;
      const { line, col } = located.sourceMap.locate(segments, error.atKey ?? false);
      return { ...located, line, col, order, where: `${file}:${line}:${col}` };
    })
    .sort((a, b) => a.line - b.line || a.col - b.col || a.order - b.order);
}

// Items of a `kind: List` are named `items[2].spec…`, as kubectl names them.
function prefixed(text: string, prefix: string): string {
  return prefix ? `${prefix}.${text}` : text;
}
