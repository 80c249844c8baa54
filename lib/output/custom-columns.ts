import { UsageError } from "../errors.js";
import {
  formatGoValue,
  JsonPathError,
  parseJsonPathTemplate,
  relaxedJsonPathTemplate,
  selectJsonPath,
} from "./jsonpath/index.js";

// kubectl's `-o custom-columns=NAME:.metadata.name,IMAGES:.spec.containers[*].image` (pure), as its
// printer reads the spec and fills the cells
// (https://github.com/kubernetes/kubectl/blob/v0.32.4/pkg/cmd/get/customcolumn.go). The rows go
// to formatTable (table.ts) for alignment. kubectl's words are kept, and so are its ways: the spec
// is cut at every comma (a path cannot hold one: `[0,1]` splits the column), a cell prints each
// value with Go's %v (a map as `map[k:v]`, not JSON), and a path that selects nothing shows `<none>`.

export interface CustomColumn {
  header: string;
  /** kubectl's form of the column's path: `{.metadata.name}` whichever way it was written. */
  path: string;
}

/**
 * `HEADER:PATH,…`, each path with or without braces or leading dot. A UsageError with kubectl's
 * wording when the spec is empty, a column has no `:` or a path does not parse.
 */
export function parseCustomColumns(spec: string): CustomColumn[] {
  if (spec === "") throw new UsageError("custom-columns format specified but no custom columns given");
  const columns = spec.split(",").map((column) => {
    const colon = column.indexOf(":");
    if (colon < 0) {
      throw new UsageError(`unexpected custom-columns spec: ${column}, expected <header>:<json-path-expr>`);
    }
    return { header: column.slice(0, colon), path: relaxedJsonPathTemplate(column.slice(colon + 1)) };
  });
  // Every column is read before any path is parsed, as kubectl does (it parses them when printing).
  for (const { path } of columns) {
    try {
      parseJsonPathTemplate(path);
    } catch (error) {
      // kubectl reports a column's parse error in the parser's bare words.
      if (error instanceof JsonPathError) throw new UsageError(error.reason);
      throw error;
    }
  }
  return columns;
}

/**
 * The rows (the header row first, unless noHeaders) of cells: each cell the column's values joined
 * by ",", `<none>` when its path selects nothing. A path that fails on an object (an index out of
 * range) is a UsageError in kubectl's words.
 */
export function customColumnRows(
  columns: readonly CustomColumn[],
  objects: readonly unknown[],
  options: { noHeaders?: boolean } = {},
): string[][] {
  const rows = objects.map((object) =>
    columns.map((column) => {
      const values = selectJsonPath(column.path, object);
      return values.length === 0 ? "<none>" : values.map((value) => escapeTerminal(formatGoValue(value))).join(",");
    }),
  );
  return options.noHeaders ? rows : [columns.map((column) => column.header), ...rows];
}

/**
 * kubectl's EscapeTerminal: ESC and CR, which could rewrite what the terminal shows, made visible.
 * (https://github.com/kubernetes/cli-runtime/blob/v0.32.4/pkg/printers/terminal.go)
 */
function escapeTerminal(text: string): string {
  return text.replaceAll("\x1b", "^[").replaceAll("\r", "\\r");
}
