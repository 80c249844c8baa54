import { UsageError } from "../errors.js";
import { parseDuration } from "../events/parse-duration.js";
import type { KindEntry } from "./types.js";

// `podrun wait --for=…` read as kubectl reads it (pure): `delete`, `condition=NAME[=VALUE]`
// (the condition's name in any case, its value True unless given) or `jsonpath='{PATH}'[=VALUE]`,
// and `--timeout` (kubectl's default 30s; 0: look once; negative: a week). Which conditions a kind
// has is the kind table's (`conditions` in types.ts KindEntry): waiting for one the kind never
// has would only time out, so it is a usage error here.

export type WaitFor =
  | { kind: "delete" }
  | { kind: "condition"; condition: string; value: "True" | "False" }
  | { kind: "jsonpath"; path: JsonPathStep[]; text: string; value?: string };

/** One step of a simple JSONPath: a field (`.status`, `['app.kubernetes.io/name']`) or an index (`[0]`). */
export type JsonPathStep = string | number;

const FOR_FORMS = "delete, condition=NAME[=VALUE] or jsonpath='{.status.phase}'=VALUE";

export function parseWaitFor(text: string | undefined): WaitFor {
  if (text === undefined || text === "") throw new UsageError(`--for is required: ${FOR_FORMS}`);
  const lower = text.toLowerCase();
  if (lower === "delete") return { kind: "delete" };
  if (lower.startsWith("condition=")) {
    const [name = "", value = "true", ...rest] = text.slice("condition=".length).split("=");
    if (name === "" || rest.length > 0 || !/^(true|false)$/i.test(value))
      throw new UsageError(
        `invalid --for ${JSON.stringify(text)}: expected condition=NAME or condition=NAME=true|false`,
      );
    return { kind: "condition", condition: name, value: value.toLowerCase() === "true" ? "True" : "False" };
  }
  if (lower.startsWith("jsonpath=")) return parseJsonPathFor(text.slice("jsonpath=".length), text);
  throw new UsageError(`unrecognized condition: ${JSON.stringify(text)}: --for takes ${FOR_FORMS}`);
}

/** `{.status.phase}=Running`, `{.status.containerStatuses[0].ready}=true`, or `{.status.podIP}` (it exists). */
function parseJsonPathFor(expression: string, text: string): WaitFor {
  const close = expression.indexOf("}");
  if (!expression.startsWith("{") || close < 0)
    throw new UsageError(`invalid --for ${JSON.stringify(text)}: the JSONPath must be in braces: {.status.phase}`);
  const inner = expression.slice(1, close).trim();
  const rest = expression.slice(close + 1);
  if (rest !== "" && !rest.startsWith("="))
    throw new UsageError(`invalid --for ${JSON.stringify(text)}: expected '=' and a value after the JSONPath`);
  const path = parseSimplePath(inner, text);
  return { kind: "jsonpath", path, text: `{${inner}}`, ...(rest === "" ? {} : { value: rest.slice(1) }) };
}

/**
 * A JSONPath that names one field: `.a.b`, `['a.b']`, `[0]`, in any sequence. kubectl's filters,
 * wildcards and ranges select several values: refused here, with what podrun takes.
 */
export function parseSimplePath(inner: string, text: string): JsonPathStep[] {
  const steps: JsonPathStep[] = [];
  const step = /\.([A-Za-z_][\w-]*)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/y;
  let at = 0;
  while (at < inner.length) {
    step.lastIndex = at;
    const match = step.exec(inner);
    if (!match)
      throw new UsageError(
        `invalid --for ${JSON.stringify(text)}: podrun's wait takes a JSONPath to one field (.a.b, [0], ['a.b']); found ${JSON.stringify(inner.slice(at))}`,
      );
    steps.push(match[2] !== undefined ? Number(match[2]) : (match[1] ?? match[3] ?? match[4])!);
    at = step.lastIndex;
  }
  if (steps.length === 0) throw new UsageError(`invalid --for ${JSON.stringify(text)}: the JSONPath names no field`);
  return steps;
}

/** The value at the path, as kubectl prints it (a string as is, others as JSON); undefined when absent. */
export function readPath(object: unknown, path: readonly JsonPathStep[]): string | undefined {
  let value: unknown = object;
  for (const step of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string | number, unknown>)[step];
  }
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The condition as the kind spells it (`ready` → `Ready`); a usage error naming the kind's conditions otherwise. */
export function conditionOf(entry: KindEntry, condition: string): string {
  const found = entry.conditions?.find((c) => c.toLowerCase() === condition.toLowerCase());
  if (found) return found;
  const has = entry.conditions?.length ? `: ${entry.conditions.join(", ")}` : ": none that podrun tracks";
  throw new UsageError(`a ${entry.kind} has no condition ${JSON.stringify(condition)}; its conditions${has}`);
}

const A_WEEK_MS = 7 * 24 * 3600 * 1000;

/** kubectl's --timeout: a duration (default 30s); 0 looks once; a negative one waits a week. */
export function parseWaitTimeout(text: string | undefined): number {
  if (text === undefined) return 30_000;
  if (/^-/.test(text.trim())) return A_WEEK_MS;
  if (/^0+[a-z]*$/i.test(text.trim())) return 0;
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new UsageError(
      `invalid value ${JSON.stringify(text)} for --timeout: expected a duration such as 30s, 2m or 1h`,
    );
  return ms;
}
