import t from "tap";
import { Lexer, Parser, type CST } from "yaml";
import { parseYamlDocuments } from "../../lib/manifest/parse-yaml.js";
import {
  createLexemeDepthGuard,
  findTooDeepCollection,
  findTooDeepJson,
  MAX_YAML_DEPTH,
  PARSER_NESTING_LIMIT,
} from "../../lib/manifest/yaml-depth.js";
import { manifestErrorLines } from "../harness/manifest-errors.js";

const cst = (text: string): CST.Document =>
  Array.from(new Parser().parse(text)).find((token) => token.type === "document") as CST.Document;
const errorLines = (text: string) => manifestErrorLines(() => parseYamlDocuments({ name: "pod.yaml", text }));
const TOO_DEEP = `YAML error: lists and mappings nested deeper than ${MAX_YAML_DEPTH} levels: no Pod manifest needs that many`;

t.test("the depth counts every list and mapping, block and flow, from the document's top", async (t) => {
  t.equal(findTooDeepCollection(cst("a: [[1]]\n"), 3), undefined, "a mapping, two lists: three levels");
  t.equal(findTooDeepCollection(cst("a: [[1]]\n"), 2), 4, "the innermost list is the one too deep");
  t.equal(findTooDeepCollection(cst("a:\n  b:\n    - {c: 1}\n"), 3), 14, "the flow mapping in the list");
  t.equal(findTooDeepCollection(cst("? [[x]]\n: 1\n"), 2), 3, "keys are nested values too");
  t.equal(findTooDeepCollection(cst("x: 1\n"), 0), 0);
  t.equal(findTooDeepCollection(cst("just a scalar\n"), 0), undefined);
});

t.test("the first place too deep in the text is reported", async (t) => {
  t.equal(findTooDeepCollection(cst("a: [1]\nb: [[2]]\nc: [[3]]\n"), 2), 11);
});

t.test("nesting deeper than the limit is one error at the collection too deep, whatever the style", async (t) => {
  const over = MAX_YAML_DEPTH + 1;
  // A top-level list holding `over - 1` more: the last `[` opens level `over`, at column `over`.
  t.same(errorLines(`${"[".repeat(over)}${"]".repeat(over)}\n`), [`pod.yaml:1:${over}: ${TOO_DEEP}`]);
  t.same(errorLines(`${"- ".repeat(over)}x\n`), [`pod.yaml:1:${2 * over - 1}: ${TOO_DEEP}`]);
  t.same(errorLines(`spec: ${"{a: ".repeat(over)}1${"}".repeat(over)}\n`).length, 1);
  // Far beyond what the Parser's recursion survives: stopped while parsing, at the bracket past
  // PARSER_NESTING_LIMIT; still that one line, no stack overflow.
  t.same(errorLines(`a: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`), [
    `pod.yaml:1:${4 + PARSER_NESTING_LIMIT}: ${TOO_DEEP}`,
  ]);
});

t.test("nesting up to the limit is read", async (t) => {
  const [doc] = parseYamlDocuments({
    name: "pod.yaml",
    text: `${"[".repeat(MAX_YAML_DEPTH)}${"]".repeat(MAX_YAML_DEPTH)}\n`,
  });
  let depth = 0;
  for (let value = doc!.value; Array.isArray(value); value = value[0]) depth++;
  t.equal(depth, MAX_YAML_DEPTH);
});

t.test("a too deep document after a valid one in the same file fails the file", async (t) => {
  const lines = errorLines(`a: 1\n---\nb: ${"[".repeat(MAX_YAML_DEPTH + 1)}${"]".repeat(MAX_YAML_DEPTH + 1)}\n`);
  t.same(lines, [`pod.yaml:3:${4 + MAX_YAML_DEPTH - 1}: ${TOO_DEEP}`]);
});

t.test("compact nesting on one line stops the Parser itself, whose recursion it would exhaust", async (t) => {
  const feed = (text: string) => {
    const guard = createLexemeDepthGuard(3);
    return Array.from(new Lexer().lex(text)).findIndex((lexeme) => guard.next(lexeme));
  };
  t.equal(feed("- - - x\n"), -1, "three levels");
  t.not(feed("- - - - x\n"), -1, "four");
  t.equal(feed("- - x\n- - x\n- - x\n"), -1, "counted per line");
  t.equal(feed("a: {b: 1, c: 2, d: 3, e: 4}\n"), -1, "the colons of a flow mapping open nothing");
  t.not(feed("a: [[[[1]]]]\n"), -1, "brackets");
  t.not(feed("a: [- - - - x]\n"), -1, "a block sequence inside brackets, an error the Parser builds first");
  // Inside a flow collection of a real file, 100,000 `- `: one line, no stack overflow.
  t.same(errorLines(`a: [\n${"- ".repeat(100_000)}x]\n`), [`pod.yaml:2:${2 * PARSER_NESTING_LIMIT + 1}: ${TOO_DEEP}`]);
});

t.test("JSON nested too deep is refused before its value is walked", async (t) => {
  t.equal(findTooDeepJson('{"a": [[1]], "b": "[[[[[["}', 3), undefined, "brackets in strings are text");
  t.equal(findTooDeepJson('{"a": "\\"[[[", "b": [[[1]]]}', 3), 22);
  const deep = `{"a": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
  t.same(errorLines(deep), [`pod.yaml:1:${6 + MAX_YAML_DEPTH}: JSON ${TOO_DEEP.slice("YAML ".length)}`]);
});
