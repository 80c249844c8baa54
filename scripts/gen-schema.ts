// Generates lib/manifest/schema.generated.ts: the compact structural schema of the core/v1 Pod,
// ConfigMap, Secret and PersistentVolumeClaim, and of the workloads (apps/v1 Deployment,
// ReplicaSet, StatefulSet, DaemonSet; batch/v1 Job) and of the core/v1 Service, that
// lib/manifest/schema.ts checks manifests against. The workloads share the core/v1 types of their
// pod template, so they add little.
//
// Source: the `kubernetes-models` package (pinned in devDependencies), which is generated from
// the Kubernetes OpenAPI spec. It ships no raw JSON schema, so two of its faces are read:
//  - its .d.ts declarations, parsed with the TypeScript compiler: fields, nesting, lists, maps,
//    enums (string-literal unions) and required fields (non-optional properties);
//  - its compiled validators (ajv), probed with wrong values: they alone tell an integer from a
//    float (.d.ts says `number`), int32 from int64, and base64 (`format: byte`) strings. The
//    probes also cross-check the enums and required fields read from the .d.ts.
// Run with `npm run gen:schema`; test/manifest/schema.test.ts checks the committed file is current.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import type { CompactSchema, OtherSchema, SchemaKind, StructSchema, TypeExpr } from "../lib/manifest/schema.js";
import { KIND_API_VERSIONS } from "../lib/manifest/kinds.js";
import { SERVED_KINDS } from "../lib/manifest/served-kinds.js";

export const OUTPUT_FILE = fileURLToPath(new URL("../lib/manifest/schema.generated.ts", import.meta.url));
// Each kind's kubernetes-models directory is its apiVersion (`v1`, `apps/v1`, `batch/v1`): the
// kinds podrun reads, and those whose schema comes ahead of their kind table entry (a Service).
const KIND_DIRS: Record<SchemaKind, string> = KIND_API_VERSIONS;
const KINDS = Object.keys(KIND_DIRS) as SchemaKind[];

/** Served kinds kubernetes-models has no model for: checked by their apiVersion and kind alone. */
const NOT_MODELLED = new Set<string>([]);

/** One root of the schema: a kind at one apiVersion, keyed by its kind (podrun runs it) or `apiVersion/kind`. */
interface Root {
  key: string;
  kind: string;
  apiVersion: string;
}

// The kinds podrun runs, then every other built-in kind at each version a v1.36 API server serves
// it at (served-kinds.ts), which podrun checks as strictly and then skips with a Warning.
const RUN_ROOTS: Root[] = KINDS.map((kind) => ({ key: kind, kind, apiVersion: KIND_DIRS[kind] }));
const OTHER_ROOTS: Root[] = Object.entries(SERVED_KINDS)
  .filter(([kind]) => !Object.hasOwn(KIND_DIRS, kind))
  .flatMap(([kind, versions]) => versions.map((apiVersion) => ({ key: `${apiVersion}/${kind}`, kind, apiVersion })))
  .filter((root) => !NOT_MODELLED.has(root.key));
const ROOTS = [...RUN_ROOTS, ...OTHER_ROOTS];
const rootFile = (modelsDir: string, root: Root) => join(modelsDir, root.apiVersion, `${root.kind}.d.ts`);

// Aliases of apimachinery whose JSON form is not their TypeScript form.
const SPECIAL_ALIASES: Record<string, TypeExpr> = {
  "io.k8s.apimachinery.pkg.api.resource.Quantity": "quantity",
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "int-or-string",
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "time",
  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "time",
};

/** A field's type as read from the .d.ts, before the probes refine `number`/`string`. */
interface Read {
  expr: TypeExpr;
  enum?: string[];
}

/** How to reach a struct from a root object, to build probe documents: field, list item or map value. */
type Step = { field: string } | "[]" | "{}";

interface Struct {
  name: string;
  decl: ts.InterfaceDeclaration;
  steps: Step[];
  /** The key of the root it was first reached from, whose validator probes it. */
  root: string;
}

interface AjvError {
  instancePath: string;
  keyword: string;
  params: { type?: string | string[]; format?: string; allowedValues?: string[]; missingProperty?: string };
}
type Validator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

function packageDir(specifier: string): string {
  // kubernetes-models exports only `import` conditions, so resolve one of its modules.
  return join(dirname(fileURLToPath(import.meta.resolve(`${specifier}/v1/Pod`))), "..");
}

function readVersion(dir: string): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

// The OpenAPI package of each API group's types, where it is not `io.k8s.api.<first label>`.
const GROUP_PACKAGES: Record<string, string> = {
  "": "io.k8s.api.core",
  "apiextensions.k8s.io": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
  "apiregistration.k8s.io": "io.k8s.kube-aggregator.pkg.apis.apiregistration",
};

/** `io.k8s.api.core.v1.Container` from the declaration file the type lives in. */
function officialName(file: string): string {
  const posix = file.replaceAll("\\", "/");
  const core = /\/kubernetes-models\/(v1)\/([A-Za-z0-9]+)\.d\.ts$/.exec(posix);
  const grouped = core
    ? undefined
    : /\/kubernetes-models\/([a-z0-9.-]+)\/(v[a-z0-9]+)\/([A-Za-z0-9]+)\.d\.ts$/.exec(posix);
  if (core) return `io.k8s.api.core.v1.${core[2]}`;
  if (grouped) {
    const [, group = "", version, kind] = grouped;
    return `${GROUP_PACKAGES[group] ?? `io.k8s.api.${group.split(".")[0]}`}.${version}.${kind}`;
  }
  const machinery = /\/@kubernetes-models\/apimachinery\/((?:[a-z0-9]+\/)+)([A-Za-z0-9]+)\.d\.ts$/.exec(posix);
  if (machinery) return `io.k8s.apimachinery.pkg.${machinery[1]!.split("/").filter(Boolean).join(".")}.${machinery[2]}`;
  throw new Error(`gen-schema: no Kubernetes name for a type declared in ${file}`);
}

/** kubernetes-models' spelling of an official name: `IoK8sApiCoreV1Container`. */
function camelName(name: string): string {
  return name
    .split(/[.-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

function sameMembers(a: ts.TypeLiteralNode, b: ts.InterfaceDeclaration): boolean {
  // Names, and the declared types but those of apiVersion and kind (literals in a kind's own
  // interface): a Pod and a PersistentVolumeClaim have the same member names.
  const names = (members: ts.NodeArray<ts.TypeElement>) =>
    members
      .map((m) => {
        const name = m.name?.getText().replaceAll('"', "") ?? "";
        return name === "apiVersion" || name === "kind" || !ts.isPropertySignature(m)
          ? name
          : `${name}:${m.type?.getText() ?? ""}`;
      })
      .sort()
      .join(",");
  return names(a.members) === names(b.members);
}

export interface Generated {
  /** The text of lib/manifest/schema.generated.ts. */
  text: string;
  schema: CompactSchema;
  others: OtherSchema;
}

/** Builds the schema in memory (used by the test that checks the committed file is current). */
export async function generateSchema(): Promise<Generated> {
  const modelsDir = packageDir("kubernetes-models");
  const models = readVersion(modelsDir);
  const program = ts.createProgram(
    ROOTS.map((root) => rootFile(modelsDir, root)),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      types: [],
      noLib: true, // only the model's own declarations are read; lib.d.ts costs a second more
    },
  );
  const checker = program.getTypeChecker();
  const types: Record<string, StructSchema> = {};
  const structs: Struct[] = [];
  const queue: Struct[] = [];
  const seen = new Set<string>();
  let machineryDir: string | undefined;

  const interfaceOf = (file: string, kind: string): ts.InterfaceDeclaration => {
    const source = program.getSourceFile(file);
    const decl = source?.statements.find(
      (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === `I${kind}`,
    );
    if (!decl) throw new Error(`gen-schema: interface I${kind} not found in ${file}`);
    return decl;
  };

  const enqueue = (decl: ts.InterfaceDeclaration, steps: Step[], root: string): string => {
    const file = decl.getSourceFile().fileName;
    const name = officialName(file);
    // Guard the path-to-name mapping with the package's own alias of the type.
    if (!decl.getSourceFile().text.includes(` as I${camelName(name)}`)) {
      throw new Error(`gen-schema: ${file} does not export I${camelName(name)}`);
    }
    if (name.startsWith("io.k8s.apimachinery."))
      machineryDir ??= file.slice(0, file.indexOf("/apimachinery/") + "/apimachinery".length);
    if (!seen.has(name)) {
      seen.add(name);
      const struct = { name, decl, steps, root };
      structs.push(struct);
      queue.push(struct);
    }
    return name;
  };

  // Reads one property type node of the .d.ts into a TypeExpr.
  const read = (node: ts.TypeNode, steps: Step[], root: string): Read => {
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { expr: "string" };
      case ts.SyntaxKind.NumberKeyword:
        return { expr: "number" };
      case ts.SyntaxKind.BooleanKeyword:
        return { expr: "boolean" };
      case ts.SyntaxKind.AnyKeyword:
      case ts.SyntaxKind.UnknownKeyword:
        return { expr: "any" };
    }
    if (ts.isLiteralTypeNode(node) && ts.isStringLiteral(node.literal))
      return { expr: "string", enum: [node.literal.text] };
    if (ts.isUnionTypeNode(node)) {
      const values = node.types.map((t) =>
        ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? t.literal.text : undefined,
      );
      if (values.every((v): v is string => v !== undefined)) return { expr: "string", enum: values };
    }
    if (ts.isTypeLiteralNode(node)) {
      if (node.members.length === 0) return { expr: "object" };
      // An embedded object (a StatefulSet's volumeClaimTemplates) is spelled inline, with the
      // members of one of the kinds: it is that kind, whose root already reads apiVersion/kind as optional strings.
      const embedded = RUN_ROOTS.find((r) => sameMembers(node, interfaceOf(rootFile(modelsDir, r), r.kind)));
      if (embedded)
        return { expr: enqueue(interfaceOf(rootFile(modelsDir, embedded), embedded.kind), [], embedded.key) };
      const index = node.members[0];
      if (node.members.length === 1 && index && ts.isIndexSignatureDeclaration(index)) {
        const inner = read(index.type, [...steps, "{}"], root);
        return { expr: ["{}", inner.expr], ...(inner.enum ? { enum: inner.enum } : {}) };
      }
    }
    if (ts.isTypeReferenceNode(node)) {
      const arg = node.typeArguments?.[0];
      if (ts.isIdentifier(node.typeName) && node.typeName.text === "Array" && arg && node.typeArguments.length === 1) {
        const inner = read(arg, [...steps, "[]"], root);
        return { expr: ["[]", inner.expr], ...(inner.enum ? { enum: inner.enum } : {}) };
      }
      let symbol = checker.getSymbolAtLocation(node.typeName);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const decl = symbol?.declarations?.[0];
      if (decl && ts.isInterfaceDeclaration(decl)) {
        // An interface without members is a free-form object (FieldsV1).
        if (decl.members.length === 0) return { expr: "object" };
        return { expr: enqueue(decl, steps, root) };
      }
      if (decl && ts.isTypeAliasDeclaration(decl)) {
        const special = SPECIAL_ALIASES[officialName(decl.getSourceFile().fileName)];
        if (special) return { expr: special };
        return read(decl.type, steps, root);
      }
    }
    throw new Error(`gen-schema: unsupported type \`${node.getText()}\` in ${node.getSourceFile().fileName}`);
  };

  const rootNames = new Map(
    ROOTS.map((root) => [root.key, enqueue(interfaceOf(rootFile(modelsDir, root), root.kind), [], root.key)]),
  );
  const enums = new Map<string, Record<string, string[]>>();
  for (let struct = queue.shift(); struct; struct = queue.shift()) {
    const f: Record<string, TypeExpr> = {};
    const r: string[] = [];
    const e: Record<string, string[]> = {};
    const isRoot = struct.steps.length === 0;
    for (const member of struct.decl.members) {
      if (
        !ts.isPropertySignature(member) ||
        !member.type ||
        !(ts.isStringLiteral(member.name) || ts.isIdentifier(member.name))
      ) {
        throw new Error(`gen-schema: unexpected member \`${member.getText()}\` of ${struct.name}`);
      }
      const field = member.name.text;
      // kubernetes-models types apiVersion/kind as required literals ("v1", "Pod"); in the OpenAPI
      // spec they are optional strings, and the caller has already dispatched on them.
      if (isRoot && (field === "apiVersion" || field === "kind")) {
        f[field] = "string";
        continue;
      }
      const got = read(member.type, [...struct.steps, { field }], struct.root);
      f[field] = got.expr;
      if (got.enum) e[field] = got.enum;
      if (!member.questionToken) r.push(field);
    }
    types[struct.name] = { f, ...(r.length ? { r } : {}) };
    if (Object.keys(e).length) enums.set(struct.name, e);
  }

  await refineWithValidators(structs, types, enums, rootNames);
  for (const [name, e] of enums) types[name]!.e = e;

  const machinery = machineryDir ? readVersion(machineryDir) : undefined;
  const source = [models, ...(machinery ? [machinery] : [])].map((p) => `${p.name}@${p.version}`).join(" + ");
  // The kinds podrun runs and the types they reach load with podrun; the other kinds' own types
  // only when a manifest holds one of them.
  const runRoots = RUN_ROOTS.map((root) => rootNames.get(root.key)!);
  const reached = reachable(types, runRoots);
  const pick = (names: readonly string[]) => Object.fromEntries([...names].sort().map((name) => [name, types[name]!]));
  const schema: CompactSchema = {
    source,
    roots: Object.fromEntries(RUN_ROOTS.map((root) => [root.key, rootNames.get(root.key)!])) as Record<
      SchemaKind,
      string
    >,
    types: pick([...reached]),
  };
  const others: OtherSchema = {
    roots: Object.fromEntries(OTHER_ROOTS.map((root) => [root.key, rootNames.get(root.key)!])),
    types: pick(Object.keys(types).filter((name) => !reached.has(name))),
  };
  return { schema, others, text: render(schema, others) };
}

/** The struct names reached from `roots` through the fields' types. */
function reachable(types: Readonly<Record<string, StructSchema>>, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (expr: TypeExpr): void => {
    if (typeof expr !== "string") return visit(expr[1]);
    if (seen.has(expr) || !Object.hasOwn(types, expr)) return;
    seen.add(expr);
    for (const field of Object.values(types[expr]!.f)) visit(field);
  };
  for (const root of roots) visit(root);
  return seen;
}

// Asks kubernetes-models' compiled validators what the .d.ts cannot say. Each probe is a root
// document (Pod, ConfigMap, Secret) holding one bad value at one field; only the errors at that
// field's path are read, so the other errors of the sparse document do not matter.
async function refineWithValidators(
  structs: readonly Struct[],
  types: Record<string, StructSchema>,
  enums: Map<string, Record<string, string[]>>,
  rootNames: ReadonlyMap<string, string>,
): Promise<void> {
  const validators = new Map<string, Validator>();
  for (const [key, name] of rootNames) {
    const module = (await import(`kubernetes-models/_schemas/${camelName(name)}`)) as { validate: Validator };
    validators.set(key, module.validate);
  }
  const probe = (struct: Struct, leaf: unknown, steps: Step[]): AjvError[] => {
    const all = [...struct.steps, ...steps];
    let doc = leaf;
    for (let i = all.length - 1; i >= 0; i--) {
      const step = all[i]!;
      doc = step === "[]" ? [doc] : step === "{}" ? { k: doc } : { [step.field]: doc };
    }
    const path = all.map((s) => (s === "[]" ? "/0" : s === "{}" ? "/k" : `/${s.field}`)).join("");
    const validate = validators.get(struct.root)!;
    validate(doc);
    return (validate.errors ?? []).filter((err) => err.instancePath === path);
  };

  for (const struct of structs) {
    const schema = types[struct.name]!;
    // A validator may not reach a struct by the path first found to it (a recursive JSON schema, as
    // a CustomResourceDefinition's): then the .d.ts is all there is, and a number is any number.
    if (struct.steps.length > 0 && probe(struct, 7, []).length === 0) {
      if (RUN_ROOTS.some((root) => root.key === struct.root))
        throw new Error(`gen-schema: the validator of ${struct.root} does not reach ${struct.name}`);
      continue;
    }
    if (struct.steps.length > 0) {
      // Required fields: the validator's `required` errors for an empty object must match the .d.ts.
      const missing = probe(struct, {}, [])
        .filter((err) => err.keyword === "required")
        .map((err) => err.params.missingProperty)
        .sort();
      if (JSON.stringify(missing) !== JSON.stringify([...(schema.r ?? [])].sort())) {
        throw new Error(
          `gen-schema: ${struct.name} required ${JSON.stringify(schema.r)} but validator says ${JSON.stringify(missing)}`,
        );
      }
    }
    for (const [field, expr] of Object.entries(schema.f)) {
      if (struct.steps.length === 0 && (field === "apiVersion" || field === "kind")) continue;
      // Unwrap lists and maps down to the scalar the probe replaces.
      const wrappers: Step[] = [];
      let leaf = expr;
      while (typeof leaf !== "string") {
        wrappers.push(leaf[0] === "[]" ? "[]" : "{}");
        leaf = leaf[1];
      }
      const refined = (scalar: TypeExpr): TypeExpr =>
        wrappers.reduceRight<TypeExpr>((inner, w) => [w === "[]" ? "[]" : "{}", inner], scalar);
      const steps: Step[] = [{ field }, ...wrappers];
      if (leaf === "number") {
        const errors = probe(struct, 0.5, steps);
        const isInt = errors.some((err) => err.keyword === "type" && err.params.type === "integer");
        const format = errors.find((err) => err.keyword === "format")?.params.format;
        schema.f[field] = refined(!isInt ? "number" : format === "int32" ? "int32" : "integer");
      } else if (leaf === "string") {
        const errors = probe(struct, "\u0000!", steps);
        const format = errors.find((err) => err.keyword === "format")?.params.format;
        if (format === "byte") schema.f[field] = refined("bytes");
        else if (format !== undefined)
          throw new Error(`gen-schema: ${struct.name}.${field} has unknown format ${format}`);
        const allowed = errors.find((err) => err.keyword === "enum")?.params.allowedValues;
        const declared = enums.get(struct.name)?.[field];
        if (JSON.stringify([...(allowed ?? [])].sort()) !== JSON.stringify([...(declared ?? [])].sort())) {
          throw new Error(
            `gen-schema: ${struct.name}.${field} enum ${JSON.stringify(declared)} but validator says ${JSON.stringify(allowed)}`,
          );
        }
        // Keep the validator's order: it is the OpenAPI spec's.
        if (allowed) enums.get(struct.name)![field] = [...allowed];
      }
    }
  }
}

// One type per line: small, and a model upgrade shows up as a readable diff. The JSON rides in a
// template literal handed to JSON.parse, which V8 loads faster than an object literal, and, unlike
// a .json file read at run time, `tsc` carries it into dist/ with the rest of lib/.
function render(schema: CompactSchema, others: OtherSchema): string {
  const typeLines = (types: Record<string, StructSchema>) =>
    Object.entries(types).map(([name, type]) => `${JSON.stringify(name)}:${JSON.stringify(type)}`);
  const literal = (json: string) => json.replaceAll("\\", "\\\\").replaceAll("`", "\\`").replaceAll("${", "\\${");
  const main = `{"source":${JSON.stringify(schema.source)},\n"roots":${JSON.stringify(schema.roots)},\n"types":{\n${typeLines(schema.types).join(",\n")}\n}}`;
  const rest = `{"roots":${JSON.stringify(others.roots)},\n"types":{\n${typeLines(others.types).join(",\n")}\n}}`;
  return [
    "// Generated by scripts/gen-schema.ts (`npm run gen:schema`) from the Kubernetes OpenAPI models of",
    `// ${schema.source}. Do not edit by hand. Format: see CompactSchema and OtherSchema in schema.ts.`,
    'import type { CompactSchema } from "./schema.js";',
    "",
    `export const SCHEMA = JSON.parse(\`${literal(main)}\`) as CompactSchema;`,
    "",
    "// The other built-in kinds, at each version a v1.36 API server serves: JSON text that",
    "// schema.ts parses the first time a manifest holds one.",
    `export const OTHER_SCHEMA_JSON = \`${literal(rest)}\`;`,
    "",
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { text, schema } = await generateSchema();
  writeFileSync(OUTPUT_FILE, text);
  const fields = Object.values(schema.types).reduce((n, t) => n + Object.keys(t.f).length, 0);
  console.log(
    `wrote ${OUTPUT_FILE}: ${Object.keys(schema.types).length} types, ${fields} fields, ${Buffer.byteLength(text)} bytes (${schema.source})`,
  );
}
