// Structural check of a manifest's objects against the Kubernetes OpenAPI schema, as strict as
// `kubectl apply --validate=strict`: unknown fields, wrong JSON types, values outside an enum and
// missing OpenAPI-required fields. Semantic rules (names, ranges, duplicates) live elsewhere.
// The schema is generated at build time (scripts/gen-schema.ts) so that start-up loads no model
// package: only a small JSON text for the kinds podrun runs, and, parsed when a manifest holds
// one, another for every other built-in kind (an Ingress, a Role, a CronJob), which podrun checks
// as strictly before it skips them with a Warning.
import { FieldPath } from "./field-path.js";
import type { FieldError, Reporter } from "./field-error.js";
import { OTHER_SCHEMA_JSON, SCHEMA } from "./schema.generated.js";

export type SchemaKind =
  | "Pod"
  | "ConfigMap"
  | "Secret"
  | "PersistentVolumeClaim"
  | "Deployment"
  | "ReplicaSet"
  | "StatefulSet"
  | "DaemonSet"
  | "Job"
  | "Service";

/**
 * A field's type in the generated schema:
 * - a scalar: `string`, `boolean`, `integer` (int64), `int32`, `number` (float64), `quantity` (string or number, a
 *   resource.Quantity), `int-or-string` (intstr.IntOrString), `time` (an RFC 3339 string),
 *   `bytes` (a base64 string, Go's []byte), `object` (any JSON object) or `any` (any JSON value);
 * - `["[]", T]`: a list of T; `["{}", T]`: a map from string keys to T;
 * - any other string: the name of a struct in `types` (it contains dots, scalars do not).
 */
export type TypeExpr = string | readonly ["[]" | "{}", TypeExpr];

export interface StructSchema {
  /** Fields and their types, in the model's order. */
  f: Record<string, TypeExpr>;
  /** Fields the OpenAPI schema marks required. */
  r?: string[];
  /** Enum values of string fields (of each item, for a list of strings). */
  e?: Record<string, string[]>;
}

export interface CompactSchema {
  /** The model packages (name@version) the schema was generated from. */
  source: string;
  roots: Record<SchemaKind, string>;
  types: Record<string, StructSchema>;
}

/** The other built-in kinds: roots keyed `apiVersion/kind` (`networking.k8s.io/v1/Ingress`), and the types only they reach. */
export interface OtherSchema {
  roots: Record<string, string>;
  types: Record<string, StructSchema>;
}

/** The schema the checker uses (exported for tests and tools). */
export const schema: CompactSchema = SCHEMA;

let others: OtherSchema | undefined;

/** The other kinds' schema, parsed on first use. */
export function otherSchema(): OtherSchema {
  return (others ??= JSON.parse(OTHER_SCHEMA_JSON) as OtherSchema);
}

/**
 * Reports every structural error of an object of a built-in kind podrun does not run, at one of
 * the versions served (served-kinds.ts); returns false when the schema has no such root.
 */
export function checkOtherKind(value: unknown, apiVersion: string, kind: string, report: Reporter): boolean {
  const root = otherSchema().roots[`${apiVersion}/${kind}`];
  if (root === undefined) return false;
  checkRoot(value, root, FieldPath.root(), report);
  return true;
}

/** Whether the generated schema has `kind` (a kind registered without one is checked by its own rules alone). */
export function hasSchema(kind: string): kind is SchemaKind {
  return Object.hasOwn(schema.roots, kind);
}

/** Reports every structural error of `value` as an object of kind `kind`. Never throws on any input. */
export function checkSchema(
  value: unknown,
  kind: SchemaKind,
  report: Reporter,
  root: FieldPath = FieldPath.root(),
): void {
  checkRoot(value, schema.roots[kind], root, report);
}

/** checkStruct from a root type; never throws. */
function checkRoot(value: unknown, type: string, root: FieldPath, report: Reporter): void {
  try {
    checkStruct(value, type, root, report);
  } catch (error) {
    // Only a hostile object (a throwing getter, a Proxy) gets here: parsed YAML never does.
    report({ type: "Invalid", path: root, value: undefined, detail: `cannot be checked: ${String(error)}` });
  }
}

/**
 * True when the path (field names, numbers for list indexes, keys for map entries) names a field
 * the schema knows for `kind`; the empty path names the object itself.
 */
export function isKnownField(kind: SchemaKind, segments: readonly (string | number)[]): boolean {
  let type: TypeExpr = schema.roots[kind];
  for (const segment of segments) {
    if (typeof type !== "string") {
      if ((type[0] === "[]") !== (typeof segment === "number")) return false;
      type = type[1];
      continue;
    }
    const struct = structOf(type);
    if (!struct || typeof segment !== "string" || !Object.hasOwn(struct.f, segment)) return false;
    type = struct.f[segment]!;
  }
  return true;
}

function structOf(name: string): StructSchema | undefined {
  if (Object.hasOwn(schema.types, name)) return schema.types[name];
  // A scalar's name has no dot (TypeExpr); a struct outside the main schema is reached only by
  // another kind's check, which has parsed the rest already.
  if (!name.includes(".")) return undefined;
  const rest = otherSchema().types;
  return Object.hasOwn(rest, name) ? rest[name] : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function typeError(path: FieldPath, value: unknown, detail: string): FieldError {
  return { type: "TypeInvalid", path, value, detail };
}

function checkStruct(value: unknown, name: string, path: FieldPath, report: Reporter): void {
  const struct = structOf(name);
  if (!struct) return; // cannot happen with a generated schema; never throw over it
  if (!isPlainObject(value)) {
    report(typeError(path, value, "must be an object"));
    return;
  }
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(struct.f, key)) {
      report({ type: "UnknownField", path, field: key, atKey: true });
      continue;
    }
    const field = value[key];
    // An explicit null is an absent field, as the API server decodes it; required ones below.
    if (field === null || field === undefined) continue;
    checkValue(field, struct.f[key]!, path.child(key), report, struct.e?.[key]);
  }
  for (const key of struct.r ?? []) {
    if (!Object.hasOwn(value, key) || value[key] === null || value[key] === undefined) {
      report({ type: "Required", path: path.child(key) });
    }
  }
}

function checkValue(
  value: unknown,
  type: TypeExpr,
  path: FieldPath,
  report: Reporter,
  allowed?: readonly string[],
): void {
  if (Array.isArray(type)) {
    const [wrapper, item] = type as readonly ["[]" | "{}", TypeExpr];
    if (wrapper === "[]") {
      if (!Array.isArray(value)) return report(typeError(path, value, "must be a list"));
      value.forEach((element, i) => checkItem(element, item, path.index(i), report, allowed));
    } else {
      if (!isPlainObject(value)) return report(typeError(path, value, "must be an object"));
      for (const key of Object.keys(value)) checkItem(value[key], item, path.key(key), report, allowed);
    }
    return;
  }
  const problem = scalarProblem(value, type as string);
  if (problem === undefined) {
    if (allowed && !allowed.includes(value as string)) report({ type: "Unsupported", path, value, supported: allowed });
  } else if (problem === STRUCT) {
    checkStruct(value, type as string, path, report);
  } else {
    report(typeError(path, value, problem));
  }
}

// A null list item or map value decodes to the zero value in Go (`""`, 0, an empty struct), so
// the API server accepts it; an empty struct must still have its required fields.
function checkItem(
  value: unknown,
  type: TypeExpr,
  path: FieldPath,
  report: Reporter,
  allowed?: readonly string[],
): void {
  if (value === null || value === undefined) {
    if (typeof type === "string" && structOf(type)) checkStruct({}, type, path, report);
    return;
  }
  checkValue(value, type, path, report, allowed);
}

const STRUCT = Symbol("struct");
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
// Go's int64 bounds; js numbers past 2^53 are already rounded, which the API server would not do,
// but a manifest with such a number is wrong anyway.
const INT64_LIMIT = 2 ** 63;
// resource.ParseQuantity: a signed decimal, then a binary or decimal SI suffix or an exponent.
const QUANTITY = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[KMGTPE]i|[numkMGTPE]|[eE][+-]?\d+)?$/;
const QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
// Go's base64.StdEncoding, which ignores line breaks.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Why `value` is not of scalar type `type`, STRUCT when `type` names a struct, undefined when fine. */
function scalarProblem(value: unknown, type: string): string | typeof STRUCT | undefined {
  switch (type) {
    case "string":
      return typeof value === "string" ? undefined : "must be a string";
    case "time":
      return typeof value === "string" || value instanceof Date ? undefined : "must be a string";
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be a boolean";
    case "integer":
      return Number.isInteger(value) && Math.abs(value as number) <= INT64_LIMIT ? undefined : "must be an integer";
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? undefined : "must be a number";
    case "int32":
      if (!Number.isInteger(value)) return "must be an integer";
      return (value as number) >= INT32_MIN && (value as number) <= INT32_MAX ? undefined : "must be a 32-bit integer";
    case "int-or-string":
      // intstr.IntOrString holds an int32.
      if (typeof value === "string") return undefined;
      if (!Number.isInteger(value)) return "must be a string or an integer";
      return (value as number) >= INT32_MIN && (value as number) <= INT32_MAX
        ? undefined
        : "must be a string or a 32-bit integer";
    case "quantity":
      if (typeof value === "number") return Number.isFinite(value) ? undefined : "must be a string or a number";
      if (typeof value !== "string") return "must be a string or a number";
      return QUANTITY.test(value.trim()) ? undefined : QUANTITY_ERROR;
    case "bytes":
      if (typeof value !== "string") return "must be a string";
      return BASE64.test(value.replace(/[\r\n]/g, "")) ? undefined : "must be base64-encoded";
    case "object":
      return isPlainObject(value) ? undefined : "must be an object";
    case "any":
      return undefined;
    default:
      return STRUCT;
  }
}
