import { compareGoStrings, formatGoValue, goTypeName, isMap } from "./go-values.js";
import { StepFailure, type PathNode, type SliceParam, type TemplateNode } from "./parse.js";

// A parsed template run over data (pure): one kubectl step at a time, each checking its inputs as
// kubectl's does (https://github.com/kubernetes/client-go/blob/v0.32.4/util/jsonpath/jsonpath.go),
// and filters compared by Go's rules. A failing step throws StepFailure; index.ts words it.

// ---------------------------------------------------------------------------------------------
// Running: kubectl's FindResults and its steps.

/** What kubectl's JSONPath keeps while a template runs: the range bookkeeping and the missing-key rule. */
export interface RunState {
  readonly allowMissingKeys: boolean;
  beginRange: number;
  inRange: number;
  endRange: number;
  /** The index of the `{end}` that closed the last range run, -1 before any. */
  lastEnd: number;
}

export function newRunState(allowMissingKeys: boolean): RunState {
  return { allowMissingKeys, beginRange: 0, inRange: 0, endRange: 0, lastEnd: -1 };
}

/**
 * One list of values per node from `start` on, each printed as one piece. A range runs the nodes
 * after it once per value, up to its `{end}`, and the nodes after that end run once more over the
 * outer value. A range over nothing still runs its nodes once, over no value, keeping their errors
 * only: with missing keys not allowed, `{range .items[*]}{.a}{end}` fails on an empty list in kubectl.
 */
export function findResults(
  nodes: readonly TemplateNode[],
  start: number,
  data: unknown,
  state: RunState,
): unknown[][] {
  const results: unknown[][] = [];
  for (let i = start; i < nodes.length; i++) {
    const node = nodes[i]!;
    const values = node.kind === "text" ? [node.text] : runSteps([data], node.nodes, state);
    if (state.endRange > 0 && state.endRange <= state.inRange) {
      state.endRange--;
      state.lastEnd = i;
      break;
    }
    if (state.beginRange === 0) {
      results.push(values);
      continue;
    }
    state.beginRange--;
    state.inRange++;
    if (values.length === 0) findResults(nodes, i + 1, undefined, state);
    for (const value of values) results.push(...findResults(nodes, i + 1, value, state));
    state.inRange--;
    // On after the range's end; a range that has none goes on with the next node, as kubectl does.
    if (state.lastEnd > i) i = state.lastEnd;
  }
  return results;
}

function runSteps(input: readonly unknown[], steps: readonly PathNode[], state: RunState): unknown[] {
  let values = [...input];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const following = steps[i + 1];
    if (step.kind === "recursive" && following?.kind === "field") {
      values = selectDescendantField(values, following.name, state);
      i++;
    } else {
      values = runStep(values, step, state);
    }
  }
  return values;
}

function runStep(values: unknown[], step: PathNode, state: RunState): unknown[] {
  switch (step.kind) {
    case "text":
      return [step.text];
    case "int":
    case "float":
    case "bool":
      return values.map(() => step.value);
    case "field":
      return selectField(values, step.name, state);
    case "array":
      return selectSlice(values, step.params);
    case "filter":
      return selectFiltered(values, step, state);
    case "wildcard":
      return selectChildren(values);
    case "recursive":
      return descendants(values);
    case "union":
      return selectUnion(values, step.members, state);
    case "identifier":
      return runIdentifier(values, step.name, state);
  }
}

/** `.name`: a key of each map (anything else has no fields); none at all is an error unless allowed. */
function selectField(values: readonly unknown[], name: string, state: RunState): unknown[] {
  if (values.length === 0) return [];
  const found = values.flatMap((value) => (isMap(value) && Object.hasOwn(value, name) ? [value[name]] : []));
  if (found.length === 0 && !state.allowMissingKeys) throw new StepFailure(`${name} is not found`, []);
  return found;
}

/**
 * `..name`: the field looked for in each value before its children, the order kubectl's descent
 * gives. kubectl's field then reads the values that have children: none of them having the
 * field is the missing-key error.
 */
function selectDescendantField(values: readonly unknown[], name: string, state: RunState): unknown[] {
  const found: unknown[] = [];
  const visit = (value: unknown): void => {
    if (isMap(value) && Object.hasOwn(value, name)) found.push(value[name]);
    if (typeof value !== "string") childrenOf(value).forEach(visit);
  };
  values.forEach(visit);
  if (found.length === 0 && !state.allowMissingKeys && values.some((value) => childrenOf(value).length > 0)) {
    throw new StepFailure(`${name} is not found`, []);
  }
  return found;
}

/**
 * `..` followed by anything but a field: every value with children, each before its children, as
 * kubectl lists them.
 */
function descendants(values: readonly unknown[]): unknown[] {
  const found: unknown[] = [];
  const visit = (value: unknown): void => {
    const children = childrenOf(value);
    if (children.length === 0) return;
    found.push(value);
    children.forEach(visit);
  };
  values.forEach(visit);
  return found;
}

/** `.*`: a map's values, a list's items, and (Go indexing a string by byte) a string's bytes. */
function selectChildren(values: readonly unknown[]): unknown[] {
  return values.flatMap(childrenOf);
}

function childrenOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isMap(value)) return Object.values(value);
  return typeof value === "string" ? [...Buffer.from(value)] : [];
}

/**
 * `[i]`, `[start:end:step]`: kubectl checks each list's bounds and fails where a general JSONPath
 * would clamp, and it fails on a map or a string where one would read a key. When a slice
 * selects nothing of one list, kubectl returns what it has so far and reads no further list:
 * `{.spec.containers[*].ports[*].name}` prints nothing when the first container has `ports: []`.
 */
function selectSlice(values: readonly unknown[], params: readonly [SliceParam, SliceParam, SliceParam]): unknown[] {
  const lists: unknown[][] = [];
  for (const value of values) {
    if (value === null || value === undefined) continue;
    if (!Array.isArray(value)) throw new StepFailure(`${goTypeName(value)} is not array or slice`, values);
    if (!sliceSelectsAny(params, value.length, values)) break;
    lists.push(value);
  }
  const [first, second, step] = params;
  // Negative bounds count from the end of each list; `[-1]`'s derived end (0) is the list's end.
  const endOf = (length: number) => {
    if (!second.known || (second.derived && second.value === 0)) return length;
    return second.value < 0 ? second.value + length : second.value;
  };
  const by = step.known ? step.value : 1;
  return lists.flatMap((list) => {
    const start = first.known ? (first.value < 0 ? first.value + list.length : first.value) : 0;
    const picked: unknown[] = [];
    for (let i = Math.max(0, start); i < Math.min(list.length, endOf(list.length)); i += by) picked.push(list[i]);
    return picked;
  });
}

function sliceSelectsAny(
  params: readonly [SliceParam, SliceParam, SliceParam],
  length: number,
  values: readonly unknown[],
) {
  const [first, second, step] = params;
  const start = first.value < 0 ? first.value + length : first.value;
  let end = second.known ? second.value : length;
  if (end < 0 || (end === 0 && second.derived)) end += length;
  if (start === end) return false;
  const fail = (message: string) => new StepFailure(message, values);
  if (start >= length || start < 0) throw fail(`array index out of bounds: index ${start}, length ${length}`);
  if (end > length || end < 0) throw fail(`array index out of bounds: index ${end - 1}, length ${length}`);
  if (start > end) throw fail(`starting index ${start} is greater than ending index ${end}`);
  if (step.known && step.value <= 0) throw fail("step must be > 0");
  return true;
}

/** `[a,b]`: each member over all the values, one member after the other (not each value's members). */
function selectUnion(values: readonly unknown[], members: readonly PathNode[][], state: RunState): unknown[] {
  try {
    return members.flatMap((member) => runSteps(values, member, state));
  } catch (error) {
    if (error instanceof StepFailure) throw new StepFailure(error.message, values);
    throw error;
  }
}

function runIdentifier(values: unknown[], name: string, state: RunState): unknown[] {
  if (name === "range") {
    state.beginRange++;
    return values;
  }
  if (name !== "end") throw new StepFailure(`unrecognized identifier ${name}`, values);
  if (state.inRange === 0) throw new StepFailure("not in range, nothing to end", []);
  state.endRange++;
  return [];
}

// ---------------------------------------------------------------------------------------------
// Filters: each item of each list tested with Go's comparison rules.

type Filter = Extract<PathNode, { kind: "filter" }>;

function selectFiltered(values: readonly unknown[], filter: Filter, state: RunState): unknown[] {
  for (const value of values) {
    if (!Array.isArray(value)) {
      throw new StepFailure(`${formatGoValue(value)} is not array or slice and cannot be filtered`, values);
    }
  }
  const keep = (item: unknown): boolean => {
    try {
      return filterKeeps(item, filter, state);
    } catch (error) {
      if (error instanceof StepFailure) throw new StepFailure(error.message, values);
      throw error;
    }
  };
  return (values as unknown[][]).flatMap((list) => list.filter(keep));
}

function filterKeeps(item: unknown, filter: Filter, state: RunState): boolean {
  if (filter.operator === "exists") {
    // kubectl ignores the left side's error here, and keeps the item if the failing step had values.
    try {
      return runSteps([item], filter.left, state).length > 0;
    } catch (error) {
      if (error instanceof StepFailure) return error.partial.length > 0;
      throw error;
    }
  }
  const left = filterOperand(item, filter.left, state);
  if (!left) return false;
  const right = filterOperand(item, filter.right, state);
  if (!right) return false;
  return compare(filter.operator, left, right);
}

/** One side's value, with whether it was written as a float (`10.0`: never equal to an int in Go). */
interface Operand {
  readonly value: unknown;
  readonly float: boolean;
}

function filterOperand(item: unknown, side: readonly PathNode[], state: RunState): Operand | undefined {
  const values = runSteps([item], side, state);
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new StepFailure("can only compare one element at a time", []);
  return { value: values[0], float: side.at(-1)?.kind === "float" };
}

/** The kind Go's template comparison sees: a JSON number is an int64 when whole, else a float64. */
function comparisonKind(operand: Operand): "bool" | "int" | "float" | "string" | undefined {
  const { value } = operand;
  if (typeof value === "boolean") return "bool";
  if (typeof value === "string") return "string";
  if (typeof value === "number") return operand.float || !Number.isInteger(value) ? "float" : "int";
  return undefined;
}

/**
 * Go template's eq/lt rules (https://github.com/kubernetes/client-go/blob/v0.32.4/third_party/forked/golang/template/funcs.go):
 * both sides of one kind, or the filter fails; no ordering of booleans.
 */
function compare(operator: string, left: Operand, right: Operand): boolean {
  const kinds = [comparisonKind(left), comparisonKind(right)] as const;
  if (kinds[0] === undefined || kinds[1] === undefined) throw new StepFailure("invalid type for comparison", []);
  if (kinds[0] !== kinds[1]) throw new StepFailure("incompatible types for comparison", []);
  const equal = left.value === right.value;
  const less = (): boolean => {
    if (kinds[0] === "bool") throw new StepFailure("invalid type for comparison", []);
    return kinds[0] === "string"
      ? compareGoStrings(left.value as string, right.value as string) < 0
      : (left.value as number) < (right.value as number);
  };
  switch (operator) {
    case "==":
      return equal;
    case "!=":
      return !equal;
    case "<":
      return less();
    case "<=":
      return less() || equal;
    case ">":
      return !(less() || equal);
    case ">=":
      return !less();
    default:
      throw new StepFailure(`unrecognized filter operator ${operator}`, []);
  }
}
