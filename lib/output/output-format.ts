import { UsageError } from "../errors.js";

// `-o FORMAT` as kubectl's get reads it (pure; k8s.io/cli-runtime/pkg/genericclioptions
// PrintFlags: https://github.com/kubernetes/cli-runtime/blob/v0.34.0/pkg/genericclioptions/print_flags.go):
// the table (default, or `wide`), or the objects themselves printed as json, yaml, their names,
// a JSONPath template or custom columns. A template given in a file (`jsonpath-file=`,
// `custom-columns-file=`) is read by the command, so that this stays pure. Go templates are
// kubectl's too; podrun does not run them (docs/kubectl-verbs.md says why).

export type OutputFormat =
  | { kind: "table"; wide: boolean }
  | { kind: "json" }
  | { kind: "yaml" }
  | { kind: "name" }
  | { kind: "jsonpath"; template: string; asJson: boolean }
  | { kind: "jsonpath-file"; file: string }
  | { kind: "custom-columns"; spec: string }
  | { kind: "custom-columns-file"; file: string };

/** The formats that print objects, not a table: what `printObjects` (print-objects.ts) takes. */
export type ObjectFormat = Exclude<OutputFormat, { kind: "table" } | { kind: "jsonpath-file" | "custom-columns-file" }>;

/** A format with its file read (print-objects.ts resolveFormatFiles): the table, or objects. */
export type ResolvedFormat = Extract<OutputFormat, { kind: "table" }> | ObjectFormat;

/** kubectl's list, in its order, for the error line. */
const ALLOWED =
  "custom-columns, custom-columns-file, json, jsonpath, jsonpath-as-json, jsonpath-file, name, wide, yaml";

/** `-o`'s value; undefined: the table. A format kubectl lacks is kubectl's error (exit 2 here). */
export function parseOutputFormat(text: string | undefined): OutputFormat {
  if (text === undefined || text === "") return { kind: "table", wide: false };
  const eq = text.indexOf("=");
  const name = (eq < 0 ? text : text.slice(0, eq)).toLowerCase();
  const value = eq < 0 ? undefined : text.slice(eq + 1);
  // kubectl's words for a format given without its argument.
  const needs = (what: string): string => {
    if (value === undefined || value.trim() === "")
      throw new UsageError(`${what} format specified but no ${what} given`);
    return value;
  };
  switch (name) {
    case "wide":
    case "json":
    case "yaml":
    case "name":
      if (value !== undefined) break;
      return name === "wide" ? { kind: "table", wide: true } : { kind: name };
    case "jsonpath":
    case "jsonpath-as-json":
      return { kind: "jsonpath", template: needs("template"), asJson: name === "jsonpath-as-json" };
    case "jsonpath-file":
      return { kind: "jsonpath-file", file: needs("template") };
    case "custom-columns":
      return { kind: "custom-columns", spec: needs("custom-columns") };
    case "custom-columns-file":
      return { kind: "custom-columns-file", file: needs("template") };
    case "go-template":
    case "go-template-file":
    case "template":
    case "templatefile":
      throw new UsageError(
        `-o ${name}: podrun does not run Go templates; -o jsonpath takes the same queries ({range .items[*]}{.metadata.name}{"\\n"}{end})`,
      );
  }
  throw new UsageError(
    `unable to match a printer suitable for the output format ${JSON.stringify(text)}, allowed formats are: ${ALLOWED}`,
  );
}

/** Whether the format prints objects (not the table). */
export function printsObjects(format: OutputFormat): boolean {
  return format.kind !== "table";
}
