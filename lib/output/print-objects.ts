import { readFile } from "node:fs/promises";
import { stringify } from "yaml";
import { UsageError } from "../errors.js";
import { entryOfKind } from "../kinds/resource-names.js";
import { customColumnRows, parseCustomColumns } from "./custom-columns.js";
import { parseJsonPathTemplate, renderJsonPath } from "./jsonpath/index.js";
import type { ObjectFormat, OutputFormat, ResolvedFormat } from "./output-format.js";
import { formatTable } from "./table.js";

// `get -o json|yaml|name|jsonpath|custom-columns`: Kubernetes objects printed as kubectl prints
// them (k8s.io/cli-runtime/pkg/printers). One object asked for by name is printed as itself, so
// that `get pod web -o jsonpath='{.status.phase}'` reads the pod; otherwise a `kind: List` of the
// objects, even with none in it, as kubectl's get wraps every listing.

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string } & Record<string, unknown>;
  [field: string]: unknown;
}

/** What kubectl's get prints for a listing: a List, with an empty resourceVersion. */
export function toList(items: readonly KubeObject[]): KubeObject {
  return { apiVersion: "v1", items: [...items], kind: "List", metadata: { resourceVersion: "" } };
}

/** `-o jsonpath-file=`/`custom-columns-file=` read into their inline forms; other formats as they are. */
export async function resolveFormatFiles(format: OutputFormat): Promise<ResolvedFormat> {
  if (format.kind !== "jsonpath-file" && format.kind !== "custom-columns-file") return format;
  const text = await readFile(format.file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`error reading template ${format.file}: ${error.code ?? error.message}`);
  });
  if (format.kind === "jsonpath-file") return { kind: "jsonpath", template: text, asJson: false };
  // kubectl's file form: a line of headers, a line of paths, each column's pair at the same index.
  const [headers = "", paths = ""] = text.split("\n").filter((line) => line.trim() !== "");
  const h = headers.trim().split(/\s+/);
  const p = paths.trim().split(/\s+/);
  if (h.length !== p.length)
    throw new UsageError(`${format.file}: expected ${h.length} column paths to match the headers, found ${p.length}`);
  return { kind: "custom-columns", spec: h.map((header, i) => `${header}:${p[i]}`).join(",") };
}

/**
 * The objects in the format, as one string ending in a newline (nothing for an empty `-o name`).
 * `single`: one object was asked for by name (printed as itself, not in a List).
 */
export function formatObjects(
  objects: readonly KubeObject[],
  format: ObjectFormat,
  options: { single: boolean; noHeaders?: boolean },
): string {
  const data = options.single && objects.length === 1 ? objects[0]! : toList(objects);
  switch (format.kind) {
    case "json":
      return `${JSON.stringify(data, null, 4)}\n`;
    case "yaml":
      // sigs.k8s.io/yaml: keys sorted (the object goes through a Go map), lists level with their key,
      // and go-yaml's YAML 1.1 quoting (a string that reads as a timestamp, `yes` or `on` is quoted).
      return stringify(data, { version: "1.1", indentSeq: false, sortMapEntries: true, lineWidth: 0 });
    case "name":
      return objects.map((object) => `${qualifiedName(object)}\n`).join("");
    case "jsonpath":
      return renderJsonPath(parseJsonPathTemplate(format.template), data, { asJson: format.asJson });
    case "custom-columns": {
      const rows = customColumnRows(parseCustomColumns(format.spec), objects, {
        noHeaders: options.noHeaders ?? false,
      });
      return rows.length > 0 ? `${formatTable(rows).join("\n")}\n` : "";
    }
  }
}

/** `deployment.apps/web`, `pod/web`: the resource's singular name, with its group when it has one. */
export function qualifiedName(object: KubeObject): string {
  const resource = entryOfKind(object.kind ?? "")?.resource;
  const type = resource
    ? `${resource.singular}${resource.group ? `.${resource.group}` : ""}`
    : (object.kind ?? "").toLowerCase();
  return `${type}/${object.metadata?.name ?? ""}`;
}
