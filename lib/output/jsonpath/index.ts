import { UsageError } from "../../errors.js";
import { formatJsonPathValue, goJson, goQuote } from "./go-values.js";
import { JsonPathError, parseJsonPathTemplate, StepFailure, type JsonPathTemplate } from "./parse.js";
import { findResults, newRunState } from "./run.js";

// kubectl's `-o jsonpath=TEMPLATE` (pure). kubectl's dialect is not the JSONPath of the
// specification: text outside braces is printed, `{range …}{end}` loops, `{"\n"}` prints a literal,
// a dict key `['a.b']` is read as the path `.a.b`, filters compare as Go templates do (no int with
// float, no number with string), an index out of range is an error, a field only ever reads a map,
// a union takes each member over every input in turn. So the template is parsed here the way
// kubectl's parser reads it
// (https://github.com/kubernetes/client-go/blob/v0.32.4/util/jsonpath/parser.go) and run one
// kubectl step at a time, each checking its inputs as kubectl's does
// (https://github.com/kubernetes/client-go/blob/v0.32.4/util/jsonpath/jsonpath.go). A general
// JSONPath library (jsonpath-plus was tried) answers differently on most of these points, and each
// step is a few lines over plain objects, so none is used. Nothing of a template is ever run as code.
//
// The parts: parse.ts (the nodes, the errors, the parser), run.ts (the steps and filters),
// go-values.ts (values printed as Go prints them); this file is the API the rest of podrun uses.

export { formatGoValue, formatJsonPathValue } from "./go-values.js";
export { JsonPathError, parseJsonPathTemplate, type JsonPathTemplate } from "./parse.js";

// ---------------------------------------------------------------------------------------------
// Entry points.

/**
 * Renders a template over data as kubectl prints it: each piece's values joined by a space, no
 * newline added. allowMissingKeys (kubectl's --allow-missing-template-keys, default true): a missing
 * key prints nothing; false: an error. asJson (`-o jsonpath-as-json`): each piece as an indented
 * JSON list on its own line.
 */
export function renderJsonPath(
  template: JsonPathTemplate,
  data: unknown,
  options: { allowMissingKeys?: boolean; asJson?: boolean } = {},
): string {
  let results: unknown[][];
  try {
    results = findResults(template.nodes, 0, data, newRunState(options.allowMissingKeys ?? true));
  } catch (error) {
    if (!(error instanceof StepFailure)) throw error;
    throw new JsonPathError(`error executing jsonpath ${goQuote(template.source)}: ${error.message}`, error.message);
  }
  return results
    .map((values) => (options.asJson ? `${goJson(values, "    ")}\n` : values.map(formatJsonPathValue).join(" ")))
    .join("");
}

/**
 * kubectl's RelaxedJSONPathExpression: `a.b`, `.a.b`, `{a.b}` and `{.a.b}` all become `{.a.b}`
 * (https://github.com/kubernetes/kubectl/blob/v0.32.4/pkg/cmd/get/customcolumn.go); empty stays empty.
 */
export function relaxedJsonPathTemplate(path: string): string {
  if (path === "") return "";
  const match = /^\{\.?([^{}]+)\}$|^\.?([^{}]+)$/.exec(path);
  if (!match) {
    throw new UsageError(
      "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'",
    );
  }
  return `{.${match[1] ?? match[2]}}`;
}

/** Parsed paths by relaxed template: custom columns select the same few paths from every object. */
const selectedPaths = new Map<string, JsonPathTemplate>();

/**
 * The values one path (`.spec.containers[*].name`, with or without braces) selects, missing keys
 * allowed, for custom columns. Errors carry kubectl's bare words, as its custom columns print them.
 */
export function selectJsonPath(path: string, data: unknown): unknown[] {
  const relaxed = relaxedJsonPathTemplate(path);
  if (relaxed === "") return [];
  let template = selectedPaths.get(relaxed);
  try {
    template ??= parseJsonPathTemplate(relaxed);
    if (selectedPaths.size >= 100) selectedPaths.clear();
    selectedPaths.set(relaxed, template);
    return findResults(template.nodes, 0, data, newRunState(true)).flat();
  } catch (error) {
    if (error instanceof JsonPathError) throw new JsonPathError(error.reason, error.reason);
    if (error instanceof StepFailure) throw new JsonPathError(error.message, error.message);
    throw error;
  }
}
