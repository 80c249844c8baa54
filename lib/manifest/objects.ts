import { FieldPath } from "./field-path.js";
import type { FieldError } from "./field-error.js";
import type { SourceMap } from "./source-map.js";
import type { YamlDocument } from "./parse-yaml.js";
import { KIND_API_VERSIONS, NOT_RUN_KINDS } from "./kinds.js";

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
 * not run (a Service) is one Warning; any other kind is an error naming it: podman skips unknown
 * kinds silently, and users lose a typo'd kind.
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
      checkApiVersion(value, sourceMap, prefix, reject);
      const items = value.items;
      if (!Array.isArray(items)) {
        reject({ type: "Required", path: root.child("items") }, sourceMap, prefix);
        return;
      }
      items.forEach((item, i) => visit(item, sourceMap.subtree(["items", i]), `items[${i}]`, false));
      return;
    }
    if (typeof kind === "string" && known.warned.has(kind)) {
      const name = asName(value.metadata);
      warnings.push({
        error: { type: "Forbidden", path: root.child("kind"), detail: `${kind}/${name}: not run by podrun` },
        sourceMap,
        prefix,
      });
      return;
    }
    const apiVersion = typeof kind === "string" ? known.apiVersions.get(kind) : undefined;
    if (typeof kind !== "string" || apiVersion === undefined) {
      const supported = allowList ? [...supportedKinds, "List"] : [...supportedKinds];
      reject({ type: "Unsupported", path: root.child("kind"), value: kind, supported }, sourceMap, prefix);
      return;
    }
    if (!checkApiVersion(value, sourceMap, prefix, reject, apiVersion)) return;
    objects.push({ kind, value, sourceMap, prefix });
  };

  for (const doc of documents) {
    // An empty document (a trailing `---`, a file of comments) is not an object and not an error.
    if (doc.value === null) continue;
    visit(doc.value, doc.sourceMap, "", true);
  }
  return { objects, errors, warnings };
}

function asName(metadata: unknown): string {
  const name = isObject(metadata) ? metadata.name : undefined;
  return typeof name === "string" && name !== "" ? name : "<unnamed>";
}

function checkApiVersion(
  value: Record<string, unknown>,
  sourceMap: SourceMap,
  prefix: string,
  reject: (error: FieldError, sourceMap: SourceMap, prefix: string) => void,
  expected = "v1",
): boolean {
  const path = FieldPath.root().child("apiVersion");
  if (value.apiVersion === undefined || value.apiVersion === null) {
    reject({ type: "Required", path }, sourceMap, prefix);
    return false;
  }
  if (value.apiVersion !== expected) {
    reject({ type: "Unsupported", path, value: value.apiVersion, supported: [expected] }, sourceMap, prefix);
    return false;
  }
  return true;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  return typeof value === "string" ? `the string ${JSON.stringify(value)}` : `${typeof value} ${String(value)}`;
}
