import type { ConfigMap, PersistentVolumeClaim, Secret } from "kubernetes-types/core/v1.js";
import { renderKustomization } from "./kustomize.js";
import { ManifestError } from "../errors.js";
import { formatFieldError, type FieldError } from "./field-error.js";
import { FieldPath } from "./field-path.js";
import type { ManifestItem, ManifestKind } from "./kind-hooks.js";
import { collectManifestPaths, type ExpandOptions } from "./manifest-paths.js";
import { collectObjects, type LocatedError, type ManifestObject } from "./objects.js";
import { parseYamlDocuments } from "./parse-yaml.js";
import { readManifestSource, type ManifestSource } from "./read-source.js";
import { DEFAULT_NAMESPACE, toObjectKey } from "./rules/context.js";
import { asObject, asString } from "./rules/raw.js";
import { checkSchema, hasSchema } from "./schema.js";
import { dropDisabledFields } from "./feature-gates.js";
import { overridePodSpecImages, type ImageOverride } from "./image-overrides.js";
import { podSpecPath } from "./kinds.js";
import type { RuntimeName } from "../runtime/detect.js";
import { buildObjectIndex } from "./validate-objects.js";
import { claimKeyOf } from "./rules/persistent-volume-claim.js";

/** The valid objects of one file of the set, with the API server's defaults applied. */
export interface ManifestFile {
  /** The file name used in messages (`<stdin>` for `-`). */
  source: string;
  /** Its objects, in document order, each admitted by its kind (lib/kinds/). */
  items: ManifestItem[];
}

/**
 * The valid manifests given to one command (one file, or several and directories), defaulted.
 * `configMaps`, `secrets` and `persistentVolumeClaims` are what every file gives the pods of the
 * set to read (a PodObjects): any pod may use them.
 */
export interface Manifest {
  /** The names of the files read, in order, joined by ", ": for messages about the whole set. */
  source: string;
  /** The names of the files read, in order. */
  sources: string[];
  /** Each file's objects, in the order read. */
  files: ManifestFile[];
  /** Every file's objects, in file order, then document order. */
  items: ManifestItem[];
  configMaps: ConfigMap[];
  secrets: Secret[];
  /** Every file's PersistentVolumeClaims (and those a StatefulSet makes): any pod of the set may mount them. */
  persistentVolumeClaims?: PersistentVolumeClaim[];
  /** Formatted warning lines (`pod.yaml:9:7: Warning: spec.nodeSelector: …`), file by file. */
  warnings: string[];
  /** Warning lines that hold on one engine only (security-warnings.ts, pod-resources-support.ts), for `up` to print those of its engine. */
  engineWarnings?: Partial<Record<RuntimeName, string[]>>;
}

/** The kinds the reader knows, each with its hooks (lib/kinds/ table), and those it warns of. */
export interface KindSet {
  kinds: readonly ManifestKind[];
  /** Built-in kinds podrun does not run: skipped with a Warning. */
  warned: ReadonlySet<string>;
}

export interface LoadOptions extends ExpandOptions {
  /** The kinds read (lib/kinds/ KINDS). */
  kinds: KindSet;
  /** What `-` reads (default: process.stdin). */
  stdin?: NodeJS.ReadableStream;
  /** `-k DIR`: the kustomization of DIR, rendered (kustomize.ts), read with the files. */
  kustomize?: string | undefined;
  /**
   * false: a reference to a ConfigMap or Secret in none of the files is not an error (`down`
   * needs a pod's name and hooks, not its ConfigMaps). Default true.
   */
  checkReferences?: boolean;
  /** What only the kubelet finds (FieldError.kubelet): errors (`up`, the default) or Warnings (`validate`). */
  kubeletChecks?: KubeletChecks;
  /** `--image NAME=REF`, applied to every pod spec before the rules run. */
  images?: readonly ImageOverride[];
}

/**
 * What becomes of a value an API server accepts and a node's kubelet fails on (an image name it
 * cannot parse, a ConfigMap in none of the files): `validate` agrees with the API server and warns;
 * `up` refuses it before creating anything, naming the kubelet's reason.
 */
export type KubeletChecks = "error" | "warn";

/** Reads, validates and defaults one manifest file; throws ManifestError listing every error. */
export async function loadManifest(path: string, options: LoadOptions): Promise<Manifest> {
  return loadManifests([path], options);
}

/**
 * Reads, validates and defaults the manifests of `paths` (files, directories, `-`) as one set, as
 * `kubectl apply -f a -f dir/` sends them to one API server: a Pod may use a ConfigMap or Secret
 * of any file. Throws ManifestError with every error of every file, each line naming its file.
 */
export async function loadManifests(paths: readonly string[], options: LoadOptions): Promise<Manifest> {
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
  if (options.kustomize !== undefined) {
    try {
      sources.push(await renderKustomization(options.kustomize));
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      errors.push(...error.lines);
    }
  }
  return checkManifests(sources, {
    kinds: options.kinds,
    earlier: errors,
    checkReferences: options.checkReferences !== false,
    kubeletChecks: options.kubeletChecks ?? "error",
    ...(options.images && { images: options.images }),
  });
}

/** One file being checked: its objects, and the errors found in it. */
interface FileCheck {
  source: ManifestSource;
  objects: ManifestObject[];
  errors: LocatedError[];
  /** Kinds podrun does not run (a Service). */
  warnings: LocatedError[];
}

export interface CheckOptions {
  kinds: KindSet;
  /** Error lines found before (files that could not be read): reported first, with those of the set. */
  earlier?: readonly string[];
  checkReferences?: boolean;
  kubeletChecks?: KubeletChecks;
  /** `--image NAME=REF`: the images put in place of those written (image-overrides.ts). */
  images?: readonly ImageOverride[];
}

/** Validates and defaults manifests already read, as one set; throws ManifestError listing every error. */
export function checkManifests(sources: readonly ManifestSource[], options: CheckOptions): Manifest {
  const { kinds, earlier = [], checkReferences = true, kubeletChecks = "error", images = [] } = options;
  const byKind = new Map(kinds.kinds.map((k) => [k.kind, k]));
  const apiVersions = new Map(kinds.kinds.map((k) => [k.kind, k.apiVersion]));
  const checks: FileCheck[] = sources.map((source) => ({
    source,
    ...collectObjects(parseYamlDocuments(source), { apiVersions, warned: kinds.warned }),
  }));
  const collect = (check: FileCheck, object: ManifestObject) => (error: FieldError) =>
    (error.kubelet !== undefined && kubeletChecks === "warn" ? check.warnings : check.errors).push({
      error,
      sourceMap: object.sourceMap,
      prefix: object.prefix,
    });

  // Structure first; the semantic rules then skip values of the wrong type, already reported.
  for (const check of checks)
    for (const object of check.objects)
      if (hasSchema(object.kind)) checkSchema(object.value, object.kind, collect(check, object));
  // Then what the API server drops, its feature gate being off (feature-gates.ts), before its rules;
  // and the images `--image` puts in place, so that the rules check what will run.
  const usedOverrides = new Set<ImageOverride>();
  for (const check of checks)
    for (const object of check.objects) {
      dropDisabledFields(object.kind, object.value, (error) =>
        check.warnings.push({ error, sourceMap: object.sourceMap, prefix: object.prefix }),
      );
      const spec = images.length > 0 ? podSpecOf(object) : undefined;
      if (spec) for (const used of overridePodSpecImages(spec, images)) usedOverrides.add(used);
    }
  findDuplicateObjects(checks);
  const index = buildObjectIndex(
    checks.flatMap((check) =>
      check.objects
        .filter((o) => byKind.get(o.kind)!.referable)
        .map((o) => ({ kind: o.kind, value: o.value, place: placeOfName(check, o) })),
    ),
    { files: sources.map((source) => source.name), partial: !checkReferences },
  );
  for (const check of checks)
    for (const object of check.objects)
      byKind.get(object.kind)!.validate(object.value, { index, report: collect(check, object) });
  for (const kind of kinds.kinds)
    kind.validateSet?.(
      checks.flatMap((check) =>
        check.objects.filter((o) => o.kind === kind.kind).map((o) => ({ value: o.value, report: collect(check, o) })),
      ),
    );
  // An object the API server refuses is not admitted; one only a kubelet fails on is, so that the
  // kinds' own findings of that sort join its errors (admitAll).
  if (earlier.length > 0 || checks.some((check) => check.errors.some(({ error }) => error.kubelet === undefined))) {
    const errorLines = [...earlier, ...checks.flatMap((check) => formatErrors(check.source.name, check.errors))];
    throw new ManifestError([...errorLines, ...hintLines(checks.map((c) => c.errors))]);
  }
  const manifest = admitAll(checks, byKind, { checkReferences, kubeletChecks });
  for (const unused of images.filter((override) => !usedOverrides.has(override)))
    manifest.warnings.push(`Warning: --image ${unused.flag}: no container image of the files read is ${unused.name}`);
  return manifest;
}

/** The valid objects, each admitted by its kind, gathered into one Manifest. */
function admitAll(
  checks: readonly FileCheck[],
  byKind: ReadonlyMap<string, ManifestKind>,
  { checkReferences, kubeletChecks }: { checkReferences: boolean; kubeletChecks: KubeletChecks },
): Manifest {
  const names = checks.map((check) => check.source.name);
  const manifest: Manifest = {
    source: names.join(", "),
    sources: names,
    files: [],
    items: [],
    configMaps: [],
    secrets: [],
    warnings: [],
  };
  const claimKeys = new Set(
    checks.flatMap((check) =>
      check.objects.filter((o) => o.kind === "PersistentVolumeClaim").flatMap((o) => claimKeyOf(o.value) ?? []),
    ),
  );
  // What the kinds find at admission that only a kubelet would (a claim in none of the files, a
  // hostPath that is not there): errors, under `up`, thrown once every file is admitted.
  const kubeletErrors: string[] = [];
  const located: LocatedError[][] = [];
  for (const check of checks) {
    const file: ManifestFile = { source: check.source.name, items: [] };
    const warnings: LocatedError[] = [...check.warnings];
    const errors: LocatedError[] = [...check.errors];
    const engineWarnings: Partial<Record<RuntimeName, LocatedError[]>> = {};
    for (const object of check.objects) {
      const at = (error: FieldError): LocatedError => ({ error, sourceMap: object.sourceMap, prefix: object.prefix });
      const item = byKind.get(object.kind)!.admit(object.value, {
        warn: (error) => (error.kubelet !== undefined && kubeletChecks === "error" ? errors : warnings).push(at(error)),
        warnOn: (engine, error) => (engineWarnings[engine] ??= []).push(at(error)),
        claimKeys,
        checkReferences,
      });
      item.source = file.source;
      file.items.push(item);
      addPodObjects(manifest, item);
    }
    manifest.files.push(file);
    manifest.items.push(...file.items);
    kubeletErrors.push(...formatErrors(file.source, errors));
    located.push(warnings, errors);
    manifest.warnings.push(...formatWarnings(file.source, warnings));
    for (const [engine, located] of Object.entries(engineWarnings) as [RuntimeName, LocatedError[]][]) {
      ((manifest.engineWarnings ??= {})[engine] ??= []).push(...formatWarnings(file.source, located));
    }
  }
  if (kubeletErrors.length > 0) throw new ManifestError([...kubeletErrors, ...hintLines(located)]);
  manifest.warnings.push(...hintLines(located));
  return manifest;
}

/** `hint: …`, once each, for the hints the errors or warnings carry (FieldError.hint). */
function hintLines(located: readonly (readonly LocatedError[])[]): string[] {
  const hints = new Set(located.flat().flatMap(({ error }) => (error.hint === undefined ? [] : [error.hint])));
  return [...hints].map((hint) => `hint: ${hint}`);
}

/** ` (the kubelet's FailedMount)` after an error only a kubelet finds; a Warning adds that `up` refuses it. */
function kubeletSuffix(error: FieldError, warning: boolean): string {
  if (error.kubelet === undefined) return "";
  return warning ? ` (the kubelet's ${error.kubelet}: up refuses it)` : ` (the kubelet's ${error.kubelet})`;
}

function addPodObjects(manifest: Manifest, item: ManifestItem): void {
  const given = item.podObjects;
  if (!given) return;
  manifest.configMaps.push(...(given.configMaps ?? []));
  manifest.secrets.push(...(given.secrets ?? []));
  if (given.persistentVolumeClaims?.length)
    (manifest.persistentVolumeClaims ??= []).push(...given.persistentVolumeClaims);
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
    const text = prefixed(formatFieldError(error), prefix) + kubeletSuffix(error, false);
    const key = error.type === "Required" ? `${prefix}|${error.path.display}|Required` : text;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`${where}: ${text}`);
  }
  return lines;
}

function formatWarnings(file: string, warnings: readonly LocatedError[]): string[] {
  return sortByPosition(file, warnings).map(({ where, error, prefix }) =>
    // An error only a kubelet finds is written as the error it is at `up`; other warnings are their detail.
    error.kubelet !== undefined
      ? `${where}: Warning: ${prefixed(formatFieldError(error), prefix)}${kubeletSuffix(error, true)}`
      : `${where}: Warning: ${[error.path, ...(error.others ?? [])].map((path) => prefixed(path.display, prefix)).join(", ")}: ${error.detail ?? ""}`,
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

/** The pod spec of a Pod or a workload's template, if the object has one. */
function podSpecOf(object: ManifestObject): Record<string, unknown> | undefined {
  const path = podSpecPath(object.kind);
  if (!path) return undefined;
  let value: unknown = object.value;
  for (const field of path) value = asObject(value)?.[field];
  return asObject(value);
}
