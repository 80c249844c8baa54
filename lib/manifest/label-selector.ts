import { UsageError } from "../errors.js";
import { findLabelValueErrors, findQualifiedNameErrors } from "./rules/names.js";

// kubectl's `-l` / `--selector`: the string form of a label selector, read as apimachinery's
// labels.Parse reads it (https://github.com/kubernetes/apimachinery/blob/v0.34.0/pkg/labels/selector.go),
// with its error texts. The grammar, requirements joined by ',' (all must hold):
//
//   key            the label exists          !key            it does not
//   key=v  key==v  it equals v               key!=v          it does not (or is absent)
//   key in (a,b)   it is one of them         key notin (a,b) it is none (or is absent)
//   key>5  key<5   it is an integer above / below 5
//
// Spaces around tokens are ignored; "in" and "notin" are operators only after a key; an empty
// string selects everything. The keys and values are checked as label keys and values are.

export type SelectorOperator = "exists" | "!" | "=" | "==" | "!=" | "in" | "notin" | ">" | "<";

export interface LabelRequirement {
  key: string;
  operator: SelectorOperator;
  /** The values, sorted (one for = == != > <; none for exists and !). */
  values: string[];
}

/** A parsed selector: its requirements sorted by key, as apimachinery sorts them. */
export interface LabelSelector {
  readonly text: string;
  readonly requirements: readonly LabelRequirement[];
}

/** A selector that cannot be read: exit 2, with apimachinery's reason. */
export class SelectorSyntaxError extends UsageError {
  constructor(selector: string, reason: string) {
    super(`unable to parse label selector "${selector}": ${reason}`);
  }
}

type TokenKind = "id" | "end" | "(" | ")" | "," | "!" | "=" | "==" | "!=" | "in" | "notin" | ">" | "<";
interface Token {
  kind: TokenKind;
  text: string;
}

const SPECIAL = new Set(["=", "!", "(", ")", ",", ">", "<"]);
const WHITESPACE = new Set([" ", "\t", "\r", "\n"]);
const KEYWORDS = new Set(["in", "notin"]);

/** The lexer: identifiers run to the next special character or space; `!=` and `==` are one token. */
function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (WHITESPACE.has(ch)) {
      i++;
    } else if (SPECIAL.has(ch)) {
      const two = text.slice(i, i + 2);
      const op = two === "!=" || two === "==" ? two : ch;
      tokens.push({ kind: op as TokenKind, text: op });
      i += op.length;
    } else {
      const start = i;
      while (i < text.length && !SPECIAL.has(text[i]!) && !WHITESPACE.has(text[i]!)) i++;
      const word = text.slice(start, i);
      tokens.push({ kind: KEYWORDS.has(word) ? (word as TokenKind) : "id", text: word });
    }
  }
  tokens.push({ kind: "end", text: "" });
  return tokens;
}

/** Reads tokens; as a value (`values`), the words "in" and "notin" are plain identifiers. */
class Reader {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}
  peek(asValue = true): Token {
    return this.view(this.tokens[this.position]!, asValue);
  }
  next(asValue = true): Token {
    const token = this.tokens[this.position]!;
    if (token.kind !== "end") this.position++;
    return this.view(token, asValue);
  }
  private view(token: Token, asValue: boolean): Token {
    return asValue && (token.kind === "in" || token.kind === "notin") ? { kind: "id", text: token.text } : token;
  }
}

/** Parses kubectl's selector string; throws SelectorSyntaxError (a usage error) when it cannot be read. */
export function parseLabelSelector(text: string): LabelSelector {
  const reader = new Reader(lex(text));
  const requirements: LabelRequirement[] = [];
  const fail = (reason: string): never => {
    throw new SelectorSyntaxError(text, reason);
  };
  for (;;) {
    const head = reader.peek();
    if (head.kind === "end") break;
    if (head.kind !== "id" && head.kind !== "!")
      fail(`found '${head.text}', expected: !, identifier, or 'end of string'`);
    requirements.push(parseRequirement(reader, fail));
    const after = reader.next();
    if (after.kind === "end") break;
    if (after.kind !== ",") fail(`found '${after.text}', expected: ',' or 'end of string'`);
    const following = reader.peek();
    if (following.kind !== "id" && following.kind !== "!")
      fail(`found '${following.text}', expected: identifier after ','`);
  }
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { text, requirements };
}

function parseRequirement(reader: Reader, fail: (reason: string) => never): LabelRequirement {
  const negated = reader.peek().kind === "!";
  if (negated) reader.next();
  const keyToken = reader.next();
  if (keyToken.kind !== "id") fail(`found '${keyToken.text}', expected: identifier`);
  const key = keyToken.text;
  checkKey(key, fail);
  const lookahead = reader.peek();
  if (lookahead.kind === "end" || lookahead.kind === ",")
    return { key, operator: negated ? "!" : "exists", values: [] };
  if (negated) fail(`found '${lookahead.text}', expected: ',' or 'end of string'`);
  const opToken = reader.next(false);
  switch (opToken.kind) {
    case "in":
    case "notin":
      return checkValues({ key, operator: opToken.kind, values: parseSet(reader, fail) }, fail);
    case "=":
    case "==":
    case "!=":
    case ">":
    case "<":
      return checkValues({ key, operator: opToken.kind, values: [parseExactValue(reader, fail)] }, fail);
    default:
      return fail(`found '${opToken.text}', expected: '=', '!=', '==', 'in', notin'`);
  }
}

/** `(a, b, c)`: empty entries are the empty value, as apimachinery reads `(a,,b)`. */
function parseSet(reader: Reader, fail: (reason: string) => never): string[] {
  const open = reader.next();
  if (open.kind !== "(") fail(`found '${open.text}', expected: '('`);
  const values = new Set<string>();
  let expectValue = true;
  for (;;) {
    const token = reader.next();
    if (token.kind === ")") {
      if (expectValue && values.size > 0) values.add("");
      if (values.size === 0) values.add("");
      break;
    }
    if (token.kind === ",") {
      if (expectValue) values.add("");
      expectValue = true;
    } else if (token.kind === "id" && expectValue) {
      values.add(token.text);
      expectValue = false;
    } else {
      fail(`found '${token.text}', expected: ${expectValue ? "',', ')' or identifier" : "',' or ')'"}`);
    }
  }
  return [...values].sort();
}

function parseExactValue(reader: Reader, fail: (reason: string) => never): string {
  const token = reader.peek();
  if (token.kind === "end" || token.kind === ",") return "";
  reader.next();
  if (token.kind !== "id") fail(`found '${token.text}', expected: identifier`);
  return token.text;
}

function checkKey(key: string, fail: (reason: string) => never): void {
  const errors = findQualifiedNameErrors(key);
  if (errors.length > 0) fail(`invalid label key "${key}": ${errors.join("; ")}`);
}

function checkValues(requirement: LabelRequirement, fail: (reason: string) => never): LabelRequirement {
  const { key, operator, values } = requirement;
  if (operator === ">" || operator === "<") {
    if (!/^-?\d+$/.test(values[0]!)) fail(`for 'Gt', 'Lt' operators, the value must be an integer (key "${key}")`);
    return requirement;
  }
  for (const value of values) {
    const errors = findLabelValueErrors(value);
    if (errors.length > 0) fail(`invalid label value "${value}" at key "${key}": ${errors.join("; ")}`);
  }
  return requirement;
}

/** Whether a set of labels satisfies every requirement of the selector (an empty selector: always). */
export function matchesLabelSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  return selector.requirements.every((requirement) => matchesRequirement(requirement, labels));
}

function matchesRequirement(requirement: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const { key, operator, values } = requirement;
  const has = Object.hasOwn(labels, key);
  const value = labels[key];
  switch (operator) {
    case "exists":
      return has;
    case "!":
      return !has;
    case "=":
    case "==":
    case "in":
      return has && values.includes(value!);
    case "!=":
    case "notin":
      return !has || !values.includes(value!);
    case ">":
    case "<": {
      if (!has || !/^-?\d+$/.test(value!)) return false;
      const [actual, bound] = [BigInt(value!), BigInt(values[0]!)];
      return operator === ">" ? actual > bound : actual < bound;
    }
  }
}

/** The selector as kubectl prints it back (`app=web,tier in (a,b)`), its requirements in key order. */
export function formatLabelSelector(selector: LabelSelector): string {
  return selector.requirements
    .map(({ key, operator, values }) => {
      if (operator === "exists") return key;
      if (operator === "!") return `!${key}`;
      if (operator === "in" || operator === "notin") return `${key} ${operator} (${values.join(",")})`;
      return `${key}${operator}${values[0]}`;
    })
    .join(",");
}
