import { FieldPath } from "./field-path.js";
import type { FieldError } from "./field-error.js";
import type { SourceMap } from "./source-map.js";
import type { YamlDocument } from "./parse-yaml.js";
import { KIND_API_VERSIONS, NOT_RUN_KINDS } from "./kinds.js";
import { describeNoMatch, matchKind } from "./served-kinds.js";
import { checkOtherKind } from "./schema.js";

/** The kinds read, by their one apiVersion, and the kinds skipped with a Warning. */
export interface KnownKinds {
  apiVersions: ReadonlyMap<string, string>;
  warned: ReadonlySet<string>;
}

/** The kinds of the generated schema (lib/manifest/kinds.ts): what the reader knows without a kind table. */
export const SCHEMA_KINDS: KnownKinds = {
  apiVersions: new Map(Object.entries(KIND_API_VERSIONS)),
  warned: NOT_RUN_KINDS,
};

/** One Kubernetes object of the manifest, with what is needed to point at its source. */
export interface ManifestObject {
  /** One of the kinds read (KnownKinds.apiVersions). */
  kind: string;
  value: Record<string, unknown>;
  sourceMap: SourceMap;
  /** `items[2]` for an item of a `kind: List`, else "": prefixes field paths in messages. */
  prefix: string;
}

/** An error of one object, or of a whole document (an unsupported kind, a non-object). */
export interface LocatedError {
  error: FieldError;
  sourceMap: SourceMap;
  prefix: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Splits the documents into supported objects, expanding `kind: List`. A built-in kind podrun does
 * not run (an Ingress), or a custom resource, is one Warning; a kind at a version the API server
 * does not serve, or a typo, is an error (judgeOtherKind): podman skips unknown kinds silently,
 * and users lose a typo'd kind.
 */
export function collectObjects(
  documents: readonly YamlDocument[],
  known: KnownKinds = SCHEMA_KINDS,
): {
  objects: ManifestObject[];
  errors: LocatedError[];
  warnings: LocatedError[];
} {
  const objects: ManifestObject[] = [];
  const errors: LocatedError[] = [];
  const warnings: LocatedError[] = [];
  const supportedKinds = [...known.apiVersions.keys()];
  const reject = (error: FieldError, sourceMap: SourceMap, prefix: string) => errors.push({ error, sourceMap, prefix });

  const visit = (value: unknown, sourceMap: SourceMap, prefix: string, allowList: boolean) => {
    const root = FieldPath.root();
    if (!isObject(value)) {
      reject(
        {
          type: "Forbidden",
          path: FieldPath.root(prefix),
          detail: `expected a Kubernetes object (a mapping with apiVersion and kind), got ${describe(value)}`,
        },
        sourceMap,
        "",
      );
      return;
    }
    const kind = value.kind;
    if (kind === undefined || kind === null || kind === "") {
      reject(
        {
          type: "Required",
          path: root.child("kind"),
          detail: `supported kinds: ${[...supportedKinds, "List"].join(", ")}`,
        },
        sourceMap,
        prefix,
      );
      return;
    }
    if (kind === "List" && allowList) {
      checkApiVersion(value, sourceMap, prefix, reject, "v1");
      const items = value.items;
      if (!Array.isArray(items)) {
        reject({ type: "Required", path: root.child("items") }, sourceMap, prefix);
        return;
      }
      items.forEach((item, i) => visit(item, sourceMap.subtree(["items", i]), `items[${i}]`, false));
      return;
    }
    if (typeof kind !== "string") {
      const supported = allowList ? [...supportedKinds, "List"] : [...supportedKinds];
      reject({ type: "Unsupported", path: root.child("kind"), value: kind, supported }, sourceMap, prefix);
      return;
    }
    const runAt = known.apiVersions.get(kind);
    // (A kind podrun does not run has no runAt: found by the fuzzing test, `kind: Config` and no apiVersion.)
    if (runAt !== undefined && value.apiVersion === runAt) {
      objects.push({ kind, value, sourceMap, prefix });
      return;
    }
    if (!checkApiVersion(value, sourceMap, prefix, reject, runAt)) return;
    const { warning, error } = judgeOtherKind(value, kind, known);
    // A built-in kind podrun skips is still checked as strictly as one it runs, as an API server would.
    if (warning && known.warned.has(kind)) checkSkippedKind(value, kind, (found) => reject(found, sourceMap, prefix));
    if (warning) warnings.push({ error: warning, sourceMap, prefix });
    if (error) reject(error, sourceMap, prefix);
  };

  for (const doc of documents) {
    // An empty document (a trailing `---`, a file of comments) is not an object and not an error.
    if (doc.value === null) continue;
    visit(doc.value, doc.sourceMap, "", true);
  }
  return { objects, errors, warnings };
}

/**
 * A kind podrun does not run, or not at that apiVersion: what a v1.36 API server would make of it
 * (served-kinds.ts). A built-in kind it serves there, or another group's (a custom resource), is
 * one Warning; anything else is kubectl's "no matches for kind".
 */
function judgeOtherKind(
  value: Record<string, unknown>,
  kind: string,
  known: KnownKinds,
): { warning?: FieldError; error?: FieldError } {
  const root = FieldPath.root();
  const apiVersion = value.apiVersion as string;
  const match = matchKind(apiVersion, kind);
  const name = asName(value.metadata);
  const warning = (detail: string) => ({ warning: { type: "Forbidden" as const, path: root.child("kind"), detail } });
  if (match.status === "served" && known.warned.has(kind)) return warning(`${kind}/${name}: not run by podrun`);
  if (match.status === "custom-resource")
    return warning(`${kind}/${name}: a custom resource (${apiVersion}) that podrun does not know: not run`);
  if (match.status === "kustomization")
    return warning(
      `${kind}: a kustomize file, not applied (kubectl apply -f refuses it): render its directory with -k DIR`,
    );
  const path = root.child(match.status === "unknown-kind" ? "kind" : "apiVersion");
  return { error: { type: "NoKindMatch", path, detail: describeNoMatch(apiVersion, kind, match) } };
}

/** A built-in kind podrun does not run: its schema (schema.ts) and its name. */
function checkSkippedKind(value: Record<string, unknown>, kind: string, report: (error: FieldError) => void): void {
  checkOtherKind(value, value.apiVersion as string, kind, report);
  checkNamed(value, report);
}

/** Every object an API server stores has a name (ValidateObjectMeta); the kinds podrun runs check theirs in their rules. */
function checkNamed(value: Record<string, unknown>, report: (error: FieldError) => void): void {
  const meta = isObject(value.metadata) ? value.metadata : {};
  if (typeof meta.name === "string" && meta.name !== "") return;
  if (typeof meta.generateName === "string" && meta.generateName !== "") return;
  const path = FieldPath.root().child("metadata").child("name");
  report({ type: "Required", path, detail: "name or generateName is required" });
}

function asName(metadata: unknown): string {
  const name = isObject(metadata) ? metadata.name : undefined;
  return typeof name === "string" && name !== "" ? name : "<unnamed>";
}

/**
 * An apiVersion given, a string (of the one version `expected`, a List's v1, when it says). A
 * kind's version beyond that is served-kinds.ts's business.
 */
function checkApiVersion(
  value: Record<string, unknown>,
  sourceMap: SourceMap,
  prefix: string,
  reject: (error: FieldError, sourceMap: SourceMap, prefix: string) => void,
  expected?: string,
): boolean {
  const path = FieldPath.root().child("apiVersion");
  if (value.apiVersion === undefined || value.apiVersion === null || value.apiVersion === "") {
    reject({ type: "Required", path }, sourceMap, prefix);
    return false;
  }
  if (typeof value.apiVersion !== "string") {
    reject(
      { type: "Unsupported", path, value: value.apiVersion, supported: expected ? [expected] : [] },
      sourceMap,
      prefix,
    );
    return false;
  }
  if (expected === "v1" && value.kind === "List" && value.apiVersion !== expected) {
    reject({ type: "Unsupported", path, value: value.apiVersion, supported: [expected] }, sourceMap, prefix);
    return false;
  }
  return true;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  return typeof value === "string" ? `the string ${JSON.stringify(value)}` : `${typeof value} ${String(value)}`;
}
