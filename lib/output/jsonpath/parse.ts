import { UsageError } from "../../errors.js";

// kubectl's JSONPath templates, parsed (pure): the nodes a template becomes, the errors, and the
// parser, which reads a template the way kubectl's does
// (https://github.com/kubernetes/client-go/blob/v0.32.4/util/jsonpath/parser.go). The types and
// errors sit here, at the bottom of jsonpath/: run.ts and index.ts build on them.

/** One step of a path inside braces, as kubectl's parser makes it. */
export type PathNode =
  | { readonly kind: "field"; readonly name: string }
  | { readonly kind: "array"; readonly params: readonly [SliceParam, SliceParam, SliceParam] }
  | { readonly kind: "filter"; readonly left: PathNode[]; readonly right: PathNode[]; readonly operator: string }
  | { readonly kind: "wildcard" }
  | { readonly kind: "recursive" }
  | { readonly kind: "union"; readonly members: PathNode[][] }
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "int" | "float"; readonly value: number }
  | { readonly kind: "bool"; readonly value: boolean }
  | { readonly kind: "identifier"; readonly name: string };

/** `[start:end:step]`: a bound not written is not known; `[i]` has an end derived from i (i+1). */
export interface SliceParam {
  readonly known: boolean;
  readonly value: number;
  readonly derived: boolean;
}

/** Text printed as it is, or the steps of one `{…}`. */
export type TemplateNode =
  { readonly kind: "text"; readonly text: string } | { readonly kind: "action"; nodes: PathNode[] };

/** A parsed template: what renderJsonPath runs. */
export interface JsonPathTemplate {
  /** The template as given, for error messages. */
  readonly source: string;
  readonly nodes: readonly TemplateNode[];
}

/** A template kubectl would refuse, or one that failed on the data: `reason` is kubectl's own words. */
export class JsonPathError extends UsageError {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

/** kubectl's parser's error, before the template is named. */
class SyntaxFailure extends Error {}

/**
 * A step failed while running. kubectl's steps return the values they had along with the error,
 * and an existence filter (`[?(@.a[5])]`) keeps an item when there are any: `partial` is those.
 */
export class StepFailure extends Error {
  constructor(
    message: string,
    readonly partial: readonly unknown[],
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Parsing: kubectl's grammar, character for character (its messages are what users search for).

const EOF = "";

class TemplateParser {
  private pos = 0;
  /** Where the text not yet turned into a node begins. */
  private start = 0;
  private width = 0;
  private readonly root: TemplateNode[] = [];

  constructor(private readonly input: string) {}

  parse(): TemplateNode[] {
    for (;;) {
      const brace = this.input.indexOf("{", this.pos);
      const end = brace < 0 ? this.input.length : brace;
      if (end > this.start) this.root.push({ kind: "text", text: this.input.slice(this.start, end) });
      if (brace < 0) return this.root;
      this.pos = this.start = brace + 1;
      const nodes: PathNode[] = [];
      this.root.push({ kind: "action", nodes });
      this.parseAction(nodes);
    }
  }

  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const char = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.width = char.length;
    this.pos += this.width;
    return char;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private peek(): string {
    const char = this.next();
    this.backup();
    return char;
  }

  private consume(): string {
    const text = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return text;
  }

  /** The steps of one `{…}`, up to and including its `}`. */
  private parseAction(nodes: PathNode[]): void {
    for (;;) {
      if (this.input.startsWith("}", this.pos)) {
        this.pos = this.start = this.pos + 1;
        return;
      }
      if (this.input.startsWith("[?(", this.pos)) this.parseFilter(nodes);
      else if (this.input.startsWith("..", this.pos)) this.parseRecursive(nodes);
      else this.parseStep(nodes);
    }
  }

  private parseStep(nodes: PathNode[]): void {
    const char = this.next();
    if (char === EOF || char === "\r" || char === "\n") throw new SyntaxFailure("unclosed action");
    if (char === " " || char === "@" || char === "$") {
      // `@` and `$` both mean the current value: the step is a no-op.
      this.consume();
    } else if (char === "[") {
      this.parseArray(nodes);
    } else if (char === '"' || char === "'") {
      this.parseQuote(nodes, char);
    } else if (char === ".") {
      this.parseField(nodes);
    } else if (char === "+" || char === "-" || isDigit(char)) {
      this.backup();
      this.parseNumber(nodes);
    } else if (isAlphaNumeric(char)) {
      this.backup();
      this.parseIdentifier(nodes);
    } else {
      throw new SyntaxFailure(`unrecognized character in action: ${goRuneName(char)}`);
    }
  }

  private parseIdentifier(nodes: PathNode[]): void {
    while (!isTerminator(this.next()));
    this.backup();
    const name = this.consume();
    nodes.push(
      name === "true" || name === "false" ? { kind: "bool", value: name === "true" } : { kind: "identifier", name },
    );
  }

  private parseRecursive(nodes: PathNode[]): void {
    if (nodes.at(-1)?.kind === "recursive") throw new SyntaxFailure("invalid multiple recursive descent");
    this.pos += 2;
    this.consume();
    nodes.push({ kind: "recursive" });
    if (isAlphaNumeric(this.peek())) this.parseField(nodes);
  }

  private parseNumber(nodes: PathNode[]): void {
    const sign = this.peek();
    if (sign === "+" || sign === "-") this.next();
    for (let char = this.next(); char === "." || isDigit(char); char = this.next());
    this.backup();
    const text = this.consume();
    // Go's Atoi first, then ParseFloat: `10` is an int and `10.0` a float, and the two never compare.
    if (/^[+-]?\d+$/.test(text) && Number.isSafeInteger(Number(text))) nodes.push({ kind: "int", value: Number(text) });
    else if (/^[+-]?(?:\d+\.?\d*|\.\d+)$/.test(text)) nodes.push({ kind: "float", value: Number(text) });
    else throw new SyntaxFailure(`cannot parse number ${text}`);
  }

  /** `[…]`: a union, a dict key (read as a dotted path, as kubectl does) or a slice. */
  private parseArray(nodes: PathNode[]): void {
    for (let char = this.next(); char !== "]"; char = this.next()) {
      if (char === EOF || char === "\n") throw new SyntaxFailure("unterminated array");
    }
    let text = this.consume().slice(1, -1);
    if (text === "*") text = ":";
    const parts = text.split(",");
    if (parts.length > 1) {
      nodes.push({ kind: "union", members: parts.map((part) => parseSubAction(`[${part.replace(/^ +| +$/g, "")}]`)) });
      return;
    }
    const key = /^'([^']*)'$/.exec(text);
    if (key) {
      nodes.push(...parseSubAction(`.${key[1]}`));
      return;
    }
    nodes.push({ kind: "array", params: parseSliceParams(text) });
  }

  private parseFilter(nodes: PathNode[]): void {
    this.pos += 3;
    this.consume();
    // Only the first quoted string is tracked: a ")" inside it does not end the filter.
    let quote = "";
    let closed = false;
    for (;;) {
      const char = this.next();
      if (char === EOF || char === "\n") throw new SyntaxFailure("unterminated filter");
      if (char === '"' || char === "'") {
        if (!quote) quote = char;
        else if (char === quote && this.input[this.pos - 2] !== "\\") closed = true;
      } else if (char === ")" && Boolean(quote) === closed) {
        break;
      }
    }
    if (this.next() !== "]") throw new SyntaxFailure("unclosed array expect ]");
    const text = this.consume().slice(0, -2);
    const comparison = /^([^!<>=]+)([!<>=]+)([^\n]+?)$/.exec(text);
    if (!comparison) nodes.push({ kind: "filter", left: parseSubAction(text), right: [], operator: "exists" });
    else {
      const [, left = "", operator = "", right = ""] = comparison;
      nodes.push({ kind: "filter", left: parseSubAction(left), right: parseSubAction(right), operator });
    }
  }

  private parseQuote(nodes: PathNode[], quote: string): void {
    for (;;) {
      const char = this.next();
      if (char === EOF || char === "\n") throw new SyntaxFailure("unterminated quoted string");
      if (char === quote && this.input[this.pos - 2] !== "\\") break;
    }
    const quoted = this.consume();
    const text = unquote(quoted);
    if (text === undefined) throw new SyntaxFailure(`unquote string ${quoted} error invalid syntax`);
    nodes.push({ kind: "text", text });
  }

  /** A field up to the next terminator not escaped by a backslash; every backslash is then dropped. */
  private parseField(nodes: PathNode[]): void {
    this.consume();
    for (;;) {
      const char = this.next();
      if (char === "\\") this.next();
      else if (isTerminator(char)) break;
    }
    this.backup();
    const name = this.consume();
    nodes.push(name === "*" ? { kind: "wildcard" } : { kind: "field", name: name.replaceAll("\\", "") });
  }
}

/** A union member, a dict key or a filter's side: parsed as a template `{text}` of its own. */
function parseSubAction(text: string): PathNode[] {
  const first = new TemplateParser(`{${text}}`).parse()[0];
  return first?.kind === "action" ? first.nodes : [];
}

function parseSliceParams(text: string): [SliceParam, SliceParam, SliceParam] {
  const match = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/.exec(text);
  if (!match) throw new SyntaxFailure(`invalid array index ${text}`);
  const bound = (written: string): SliceParam => {
    const value = Number(written);
    if (!/^-?\d+$/.test(written) || !Number.isSafeInteger(value)) {
      throw new SyntaxFailure(`array index ${written} is not a number`);
    }
    return { known: true, value, derived: false };
  };
  const unknown: SliceParam = { known: false, value: 0, derived: false };
  const [, first = "", second, third] = match;
  const start = first === "" ? unknown : bound(first);
  // `[i]` is `[i:i+1]`, but kubectl marks the end as derived so that `[-1]` reaches the last item.
  const end =
    second === undefined
      ? { known: true, value: start.value + 1, derived: true }
      : second === ":"
        ? unknown
        : bound(second.slice(1));
  const step = third === undefined || third === ":" ? unknown : bound(third.slice(1));
  return [start, end, step];
}

function isTerminator(char: string): boolean {
  return char === EOF || " \t\r\n.,[]$@{}".includes(char);
}

function isDigit(char: string): boolean {
  return /^\p{Nd}$/u.test(char);
}

function isAlphaNumeric(char: string): boolean {
  return char === "_" || /^[\p{L}\p{Nd}]$/u.test(char);
}

/** Go's %#U: `U+002A '*'`, without the character when it does not print. */
function goRuneName(char: string): string {
  const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(char) ? `${code} '${char}'` : code;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
};

/** How many hex digits follow `\x`, `\u` and `\U`. */
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };

/**
 * A quoted literal as Go's strconv.Unquote reads it, with single quotes allowed around a whole
 * string (kubectl's UnquoteExtend); undefined where Go reports a syntax error.
 */
function unquote(quoted: string): string | undefined {
  const quote = quoted[0]!;
  const body = quoted.slice(1, -1);
  let text = "";
  for (let i = 0; i < body.length;) {
    const char = body[i]!;
    if (char === quote) return undefined;
    if (char !== "\\") {
      text += char;
      i += 1;
      continue;
    }
    const escape = unquoteEscape(body, i + 1, quote);
    if (!escape) return undefined;
    text += escape.text;
    i = escape.next;
  }
  return text;
}

function unquoteEscape(body: string, at: number, quote: string): { text: string; next: number } | undefined {
  const kind = body[at];
  if (kind === undefined) return undefined;
  const simple = Object.hasOwn(SIMPLE_ESCAPES, kind) ? SIMPLE_ESCAPES[kind] : undefined;
  if (simple !== undefined) return { text: simple, next: at + 1 };
  if (kind === quote) return { text: quote, next: at + 1 };
  const digits = Object.hasOwn(HEX_DIGITS, kind) ? HEX_DIGITS[kind] : undefined;
  if (digits !== undefined) {
    const hex = body.slice(at + 1, at + 1 + digits);
    if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) return undefined;
    const code = parseInt(hex, 16);
    if (kind !== "x" && (code > 0x10ffff || (code >= 0xd800 && code < 0xe000))) return undefined;
    return { text: String.fromCodePoint(code), next: at + 1 + digits };
  }
  const octal = body.slice(at, at + 3);
  if (/^[0-7]{3}$/.test(octal) && parseInt(octal, 8) <= 255) {
    return { text: String.fromCharCode(parseInt(octal, 8)), next: at + 3 };
  }
  return undefined;
}

/** Parses a kubectl template; a UsageError `error parsing jsonpath <template>, <reason>` when invalid. */
export function parseJsonPathTemplate(template: string): JsonPathTemplate {
  try {
    return { source: template, nodes: new TemplateParser(template).parse() };
  } catch (error) {
    if (!(error instanceof SyntaxFailure)) throw error;
    throw new JsonPathError(`error parsing jsonpath ${template}, ${error.message}`, error.message);
  }
}
