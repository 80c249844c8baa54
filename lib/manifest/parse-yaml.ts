import {
  Composer,
  type CST,
  type Document,
  isCollection,
  isNode,
  isScalar,
  Lexer,
  LineCounter,
  Parser,
  type Tags,
  visit,
} from "yaml";
import { errorMessage, ManifestError } from "../errors.js";
import {
  describeLessIndentedContinuation,
  findLessIndentedContinuation,
  type LessIndentedContinuation,
} from "./go-yaml-continuation.js";
import { useGoMergeOrder } from "./go-yaml-merge.js";
import { adaptDoubleQuotedEscapes, useGoKeyStrings, useGoYamlScalars } from "./go-yaml-scalars.js";
import { isJsonStream, type KubectlChunk, splitJsonValues, splitKubectlChunks } from "./kubectl-documents.js";
import { mapSource, type SourceMap } from "./source-map.js";
import type { ManifestSource } from "./read-source.js";
import { createLexemeDepthGuard, findTooDeepCollection, findTooDeepJson, MAX_YAML_DEPTH } from "./yaml-depth.js";

export interface YamlDocument {
  /** The document's plain value (objects, arrays, scalars), or null for an empty document. */
  value: unknown;
  sourceMap: SourceMap;
  /** 1-based line where the document starts, for messages about the whole document. */
  line: number;
}

// kubectl decodes YAML with go-yaml v2, a YAML 1.1 parser: `0644` is octal (420, the usual
// defaultMode) and yes/no/on/off are booleans. A YAML 1.2 reader (js-yaml 4) would read 644 and
// accept a manifest the cluster reads differently. go-yaml keeps timestamps and sexagesimal
// numbers as plain strings when decoding into JSON, and reads !!omap, !!pairs and !!set as the
// sequence or mapping they are written as, so those tags go.
const GO_YAML_DROPPED_TAGS = new Set([
  "tag:yaml.org,2002:timestamp",
  "tag:yaml.org,2002:omap",
  "tag:yaml.org,2002:pairs",
  "tag:yaml.org,2002:set",
]);
// The yaml-1.1 schema hands over tag objects; names (strings) only appear in user-given lists.
const keepGoYamlTags = (tags: Tags): Tags =>
  useGoYamlScalars(
    tags.filter((tag) => typeof tag === "string" || (!GO_YAML_DROPPED_TAGS.has(tag.tag) && tag.format !== "TIME")),
  );

const TOO_DEEP = `lists and mappings nested deeper than ${MAX_YAML_DEPTH} levels: no Pod manifest needs that many`;

// An alias re-uses a node; expanding many aliases of aliases ("billion laughs") builds an
// exponentially large value. The yaml library counts expanded nodes against this limit.
export const MAX_ALIAS_COUNT = 100;

// Duplicate keys: kubectl keeps the last value without a word (sigs.k8s.io/yaml reads with
// go-yaml's non-strict Unmarshal; kubernetes/kubernetes#14791), and two keys that read the same
// (`y` and `on` are both true) collide there too. podrun refuses them on purpose: the YAML spec
// forbids them, go-yaml's own strict mode refuses them, and the dropped value is nearly always a
// copy-and-paste mistake that would otherwise go unnoticed.
const COMPOSE_OPTIONS = {
  version: "1.1",
  customTags: keepGoYamlTags,
  merge: true,
  uniqueKeys: true,
  strict: true,
} as const;

interface Located {
  offset: number;
  text: string;
}

/**
 * Parses a manifest into the documents kubectl would decode from it, each value as kubectl reads
 * it; any syntax error fails the whole file (exit 2).
 */
export function parseYamlDocuments(source: ManifestSource): YamlDocument[] {
  const lines = countLines(source.text);
  const errors: Located[] = [];
  const lineAt = (offset: number) => lines.linePos(offset).line;
  const docs = isJsonStream(source.text) ? parseJson(source.text, errors) : parseYaml(source.text, errors, lineAt);
  if (errors.length > 0) {
    errors.sort((a, b) => a.offset - b.offset);
    throw new ManifestError(
      errors.map((error) => {
        const { line, col } = lines.linePos(error.offset);
        return `${source.name}:${line}:${col}: ${error.text}`;
      }),
    );
  }
  return docs.map(({ doc, offset, value, dropped }) => {
    const at = shiftLines(lines, offset);
    const line = at.linePos(doc.contents?.range[0] ?? doc.range[0]).line;
    let plain: unknown;
    try {
      for (const node of dropped ?? []) if (isNode(node)) node.toJS(doc, { maxAliasCount: MAX_ALIAS_COUNT });
      plain = value !== undefined ? value.json : doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      const why = /excessive alias count/i.test(errorMessage(error))
        ? `YAML aliases expand too much (over ${MAX_ALIAS_COUNT} nodes per alias): refusing a possible resource exhaustion attack`
        : `YAML error: ${errorMessage(error)}`;
      throw new ManifestError([`${source.name}:${line}:1: ${why}`]);
    }
    return { value: plain ?? null, sourceMap: mapSource(doc.contents, at), line };
  });
}

interface ParsedDocument {
  doc: Document.Parsed;
  /** Offset of the text the document was parsed from, in the whole manifest. */
  offset: number;
  /** The value read as JSON, for a JSON manifest. */
  value?: { json: unknown };
  /** Values go-yaml decodes and then replaces by a merge key: read only for their errors. */
  dropped?: unknown[];
}

// Each chunk kubectl cuts is one go-yaml Unmarshal: its first document counts and whatever
// follows a `...` in the same chunk is never read, so neither values nor errors come from there.
function parseYaml(text: string, errors: Located[], lineAt: (offset: number) => number): ParsedDocument[] {
  const { chunks, error } = splitKubectlChunks(text);
  if (error) {
    errors.push({
      offset: error.offset,
      text: `YAML syntax error: invalid document separator "--- ${error.rest}": kubectl allows only a comment after ---`,
    });
    return [];
  }
  const docs: ParsedDocument[] = [];
  for (const chunk of chunks) {
    const parsed = parseChunk(chunk, errors, (offset) => lineAt(chunk.offset + offset));
    if (parsed) docs.push({ ...parsed, offset: chunk.offset });
  }
  return docs;
}

function parseChunk(
  chunk: KubectlChunk,
  errors: Located[],
  lineAt: (offset: number) => number,
): { doc: Document.Parsed; dropped: unknown[] } | undefined {
  const located: Located[] = [];
  const text = withGoLineBreaks(chunk.text);
  let continuation: LessIndentedContinuation | undefined;
  let documents = 0;
  const composer = new Composer(COMPOSE_OPTIONS);
  const tokens = function* () {
    for (const token of parseGuarded(text, located)) {
      // A directive must be followed by `---`, and kubectl always cuts the text there.
      if (token.type === "directive") {
        located.push({
          offset: token.offset,
          text: "YAML syntax error: a %YAML or %TAG directive: kubectl cuts it off from the document after its ---",
        });
      }
      if (token.type === "document") {
        const first = documents++ === 0;
        const tooDeep = findTooDeepCollection(token);
        if (tooDeep !== undefined) {
          located.push({ offset: tooDeep, text: `YAML error: ${TOO_DEEP}` });
          // Not composed: the composer's recursion is what the limit protects.
          continue;
        }
        // The first document is the one composed. Looked for before its escapes are adapted,
        // which changes the source text a construct is measured in.
        if (first) continuation = findLessIndentedContinuation(token, text, COMPOSE_OPTIONS);
        adaptDoubleQuotedEscapes(token, (e) =>
          located.push({ offset: e.offset, text: `YAML syntax error: ${e.message}` }),
        );
      }
      yield token;
    }
  };
  const [doc] = Array.from(composer.compose(tokens()));
  const end = doc ? doc.range[2] : chunk.text.length;
  const keep = (all: Located[]) =>
    all.filter((e) => e.offset <= end).map((e) => ({ offset: e.offset + chunk.offset, text: e.text }));
  if (!doc) {
    errors.push(...keep(located));
    return undefined;
  }
  for (const error of doc.errors)
    located.push({ offset: error.pos[0], text: `YAML syntax error: ${describeYamlError(error.code, error.message)}` });
  // go-yaml reads a `...` that ends no document (only comments before it) as missing content.
  if (!doc.directives.docStart && doc.directives.docEnd && isEmptyContent(doc)) {
    located.push({
      offset: doc.range[1],
      text: "YAML syntax error: a document end marker (...) with no document before it",
    });
  }
  const found = continuation;
  if (found && doc.errors.some((error) => error.pos[0] >= found.offset))
    refuseLessIndented(located, found, { text: chunk.text, lineAt });
  if (located.length === 0) checkJsonValues(doc, located);
  let dropped: unknown[] = [];
  if (located.length === 0) {
    useGoKeyStrings(doc);
    dropped = useGoMergeOrder(doc, MAX_ALIAS_COUNT);
  }
  errors.push(...keep(located));
  return { doc, dropped };
}

// The library's Parser, fed lexeme by lexeme until the nesting grows deeper than it survives.
function* parseGuarded(text: string, located: Located[]): Generator<CST.Token> {
  const parser = new Parser();
  const depthGuard = createLexemeDepthGuard();
  for (const lexeme of new Lexer().lex(text, false)) {
    if (depthGuard.next(lexeme)) {
      // The Parser's own recursion is what the limit protects: nothing more is parsed.
      located.push({ offset: parser.offset, text: `YAML error: ${TOO_DEEP}` });
      return;
    }
    yield* parser.next(lexeme);
  }
  yield* parser.end();
}

// libyaml breaks lines at NEL (YAML 1.1) and reads it as a line feed, where YAML 1.2 reads it as
// text: as a plain line feed (one character for one) it breaks lines and no offset moves.
// (LS and PS break lines there too but stay in the value: see the differential test's exceptions.)
const withGoLineBreaks = (text: string): string => text.replace(/\u0085/g, "\n");

// The library's errors from the construct on all follow from where it cut the construct short:
// one line about the construct replaces them.
function refuseLessIndented(
  located: Located[],
  found: LessIndentedContinuation,
  chunk: { text: string; lineAt: (offset: number) => number },
): void {
  const before = located.filter((error) => error.offset < found.offset);
  // The line may start after a NEL, which podrun's line numbers (as most editors) do not count.
  const afterNel = chunk.text[found.at - found.column - 1] === "\u0085";
  const text = `YAML syntax error: ${describeLessIndentedContinuation(found, chunk.lineAt(found.at), afterNel)}`;
  located.splice(0, located.length, ...before, { offset: found.offset, text });
}

const isEmptyContent = (doc: Document.Parsed): boolean =>
  !doc.contents ||
  (isScalar(doc.contents) && doc.contents.value === null && doc.contents.range[0] === doc.contents.range[1]);

// sigs.k8s.io/yaml turns what go-yaml read into JSON: .inf and .nan are no JSON numbers
// ("json: unsupported value") and a null, list or mapping key is no JSON key; kubectl refuses those files.
function checkJsonValues(doc: Document.Parsed, located: Located[]): void {
  visit(doc, {
    Pair(_, pair) {
      const key = pair.key;
      const keyNode = isScalar(key) || isCollection(key) ? key : undefined;
      const offset =
        keyNode?.range?.[0] ??
        (isScalar(pair.value) || isCollection(pair.value) ? pair.value.range?.[0] : undefined) ??
        0;
      if (key === null || (isScalar(key) && key.value === null)) {
        located.push({ offset, text: "YAML error: a mapping key is null (~, null or empty): JSON keys are strings" });
      } else if (isCollection(key)) {
        located.push({ offset, text: "YAML error: a mapping key is a list or mapping: JSON keys are strings" });
      }
    },
    // A key .inf is fine: it becomes the string ".inf".
    Scalar(key, node) {
      if (key !== "key" && typeof node.value === "number" && !Number.isFinite(node.value)) {
        const text = `YAML error: ${node.source ?? String(node.value)} is not a JSON number (kubectl refuses .inf and .nan)`;
        located.push({ offset: node.range?.[0] ?? 0, text });
      }
    },
  });
}

// A JSON manifest is read as JSON, value after value as kubectl's json.Decoder reads a stream
// (duplicate keys aside, which podrun refuses as in YAML); the YAML parse of each value only
// locates fields for messages.
function parseJson(text: string, errors: Located[]): ParsedDocument[] {
  const docs: ParsedDocument[] = [];
  for (const chunk of splitJsonValues(text)) {
    const tooDeep = findTooDeepJson(chunk.text);
    if (tooDeep !== undefined) {
      errors.push({ offset: chunk.offset + tooDeep, text: `JSON error: ${TOO_DEEP}` });
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(chunk.text);
    } catch (error) {
      const message = errorMessage(error);
      const at = /at position (\d+)/.exec(message);
      errors.push({
        offset: chunk.offset + (at ? Number(at[1]) : 0),
        // Node quotes the text around the error, line breaks included: escaped, one line per error.
        text: `JSON syntax error: ${message.replace(/ (in JSON )?at position \d+.*$/, "").replace(/[\r\n\u2028\u2029]/g, escapeLineBreak)}`,
      });
      // As kubectl's json.Decoder: nothing after a syntax error is read (the rest would be one
      // error per word, the values' extents being unknown).
      break;
    }
    if (hasNonFiniteNumber(json)) {
      errors.push({ offset: chunk.offset, text: "JSON error: a number is out of the range of a 64-bit float" });
      continue;
    }
    const [doc] = Array.from(new Composer(COMPOSE_OPTIONS).compose(new Parser().parse(chunk.text)));
    if (!doc) continue;
    for (const error of doc.errors) {
      if (error.code === "DUPLICATE_KEY") {
        errors.push({
          offset: chunk.offset + error.pos[0],
          text: `JSON syntax error: ${describeYamlError(error.code, error.message)}`,
        });
      }
    }
    docs.push({ doc, offset: chunk.offset, value: { json } });
  }
  return docs;
}

const escapeLineBreak = (c: string): string =>
  c === "\n" ? "\\n" : c === "\r" ? "\\r" : `\\u${c.charCodeAt(0).toString(16)}`;

const hasNonFiniteNumber = (value: unknown): boolean =>
  typeof value === "number"
    ? !Number.isFinite(value)
    : typeof value === "object" && value !== null && Object.values(value).some(hasNonFiniteNumber);

function countLines(text: string): LineCounter {
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines.addNewLine(i + 1);
  return lines;
}

// Positions of a chunk's nodes are offsets in the chunk; messages want lines of the whole file.
function shiftLines(lines: LineCounter, offset: number): LineCounter {
  if (offset === 0) return lines;
  const shifted = new LineCounter();
  shifted.linePos = (at: number) => lines.linePos(at + offset);
  return shifted;
}

// The library's messages end with a code frame; keep the first sentence and name duplicate keys plainly.
function describeYamlError(code: string, message: string): string {
  if (code === "DUPLICATE_KEY") return "duplicate key: a field may appear only once in a mapping";
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}
