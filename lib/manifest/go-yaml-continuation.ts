// go-yaml v2, kubectl's reader, checks no indentation inside a quoted scalar or a flow collection:
// a continuation line may sit left of its key, even at column 0 (`command: "echo one &&` then
// `echo two"` under a nested key reads "echo one && echo two"); only a `---` or `...` at column 0
// or the end of the text stops it (go-yaml v2 scannerc.go: yaml_parser_scan_flow_scalar checks
// those two alone, and yaml_parser_unroll_indent does nothing inside brackets). YAML 1.2 wants such
// a line indented past the block collection holding the construct (its s-flow-line-prefix), and
// the `yaml` library ends the construct there, with a missing quote or bracket and a train of
// errors after it. podrun refuses these files too, in one line that says what to indent.
import { Composer, CST, type DocumentOptions, Lexer, type ParseOptions, Parser, type SchemaOptions } from "yaml";
import { createLexemeDepthGuard, findTooDeepCollection } from "./yaml-depth.js";

type Construct = CST.FlowScalar | CST.FlowCollection;

export interface LessIndentedContinuation {
  /** Offset of the quoted scalar or flow collection. */
  offset: number;
  /** What it is: "a double-quoted scalar", "a single-quoted scalar", "a flow sequence", "a flow mapping". */
  construct: string;
  /** Offset of the first non-blank character of the line indented too little. */
  at: number;
  /** The 0-based column of that line's first character, and the column YAML 1.2 wants at least. */
  column: number;
  needed: number;
}

export type ComposeOptions = DocumentOptions & ParseOptions & SchemaOptions;

/**
 * The construct cut short at a less indented line, when that is the first error of a parsed (CST)
 * document: the first quoted scalar or flow collection left unclosed is a value in a block
 * collection, continues on a line indented no further than that collection, and read where
 * YAML 1.2 asks no indentation (on its own, at the top of a document) it closes without an error.
 * `text` is what the document was parsed from; `options` are the composer's.
 */
export function findLessIndentedContinuation(
  document: CST.Document,
  text: string,
  options: ComposeOptions,
): LessIndentedContinuation | undefined {
  const found = findFirstUnclosed(document.value, -1, false);
  if (!found || found.isKey || found.blockIndent < 0) return undefined;
  const { token, blockIndent } = found;
  const cut = token.offset + CST.stringify(token).length;
  const next = text.slice(cut).search(/\S/);
  if (next === -1) return undefined;
  const at = cut + next;
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  const column = at - lineStart;
  if (lineStart <= token.offset || column > blockIndent) return undefined;
  const end = readAlone(token, text, options);
  if (end === undefined || end <= at) return undefined;
  return { offset: token.offset, construct: describeConstruct(token), at, column, needed: blockIndent + 1 };
}

/** The one line podrun reports, given the 1-based line of `found.at`, and whether a NEL starts that line. */
export function describeLessIndentedContinuation(
  found: LessIndentedContinuation,
  line: number,
  afterNel = false,
): string {
  const where = afterNel ? `line ${line}, after a NEL (U+0085) line break,` : `line ${line}`;
  return (
    `${found.construct} continues on ${where} at column ${found.column + 1}, where YAML wants column ` +
    `${found.needed + 1} or more: kubectl reads this, podrun does not; indent its continuation lines`
  );
}

interface Unclosed {
  token: Construct;
  /** Indentation of the innermost block collection holding it; -1 at the top of the document. */
  blockIndent: number;
  isKey: boolean;
}

// In document order; recursion is safe, findTooDeepCollection having bounded the depth.
function findFirstUnclosed(
  token: CST.Token | null | undefined,
  blockIndent: number,
  isKey: boolean,
): Unclosed | undefined {
  switch (token?.type) {
    case "block-map":
    case "block-seq":
      for (const item of token.items) {
        const found =
          ("key" in item ? findFirstUnclosed(item.key, token.indent, true) : undefined) ??
          findFirstUnclosed(item.value, token.indent, false);
        if (found) return found;
      }
      return undefined;
    case "flow-collection":
      if (!isClosed(token)) return { token, blockIndent, isKey };
      for (const item of token.items) {
        const found =
          findFirstUnclosed(item.key, blockIndent, isKey) ?? findFirstUnclosed(item.value, blockIndent, isKey);
        if (found) return found;
      }
      return undefined;
    case "double-quoted-scalar":
    case "single-quoted-scalar":
      return isClosed(token) ? undefined : { token, blockIndent, isKey };
    default:
      return undefined;
  }
}

const isConstruct = (token: CST.Token | undefined): token is Construct =>
  token?.type === "double-quoted-scalar" || token?.type === "single-quoted-scalar" || token?.type === "flow-collection";

const CLOSED_DOUBLE = /^"(?:[^"\\]|\\[\s\S])*"$/;
const CLOSED_SINGLE = /^'(?:[^']|'')*'$/;

function isClosed(token: Construct): boolean {
  switch (token.type) {
    case "double-quoted-scalar":
      return CLOSED_DOUBLE.test(token.source);
    case "single-quoted-scalar":
      return CLOSED_SINGLE.test(token.source);
    case "flow-collection":
      return token.end[0]?.type === (token.start.type === "flow-seq-start" ? "flow-seq-end" : "flow-map-end");
    default:
      return true;
  }
}

function describeConstruct(token: Construct): string {
  if (token.type === "double-quoted-scalar") return "a double-quoted scalar";
  if (token.type === "single-quoted-scalar") return "a single-quoted scalar";
  return token.type === "flow-collection" && token.start.type === "flow-map-start"
    ? "a flow mapping"
    : "a flow sequence";
}

/**
 * The offset in `text` where the construct ends when read on its own, at the top of a document
 * (where YAML 1.2 asks no indentation), or undefined if it does not close there without an error.
 */
function readAlone(token: Construct, text: string, options: ComposeOptions): number | undefined {
  const alone = text.slice(token.offset);
  const guard = createLexemeDepthGuard();
  const parser = new Parser();
  const tokens: CST.Token[] = [];
  for (const lexeme of new Lexer().lex(alone)) {
    if (guard.next(lexeme)) return undefined;
    tokens.push(...parser.next(lexeme));
  }
  tokens.push(...parser.end());
  const document = tokens.find((t): t is CST.Document => t.type === "document");
  const value = document?.value;
  if (!document || !isConstruct(value) || value.type !== token.type || !isClosed(value)) return undefined;
  if (findTooDeepCollection(document) !== undefined) return undefined;
  const end = value.type === "flow-collection" ? value.end[0]!.offset + 1 : value.offset + value.source.length;
  // Duplicate keys are podrun's own refusal, reported once the indentation is fixed.
  const [doc] = Array.from(new Composer({ ...options, uniqueKeys: false }).compose([document]));
  if (!doc || doc.errors.some((error) => error.pos[0] < end)) return undefined;
  return token.offset + end;
}
