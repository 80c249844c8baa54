// go-yaml v2 (libyaml's scanner) checks no indentation inside a quoted scalar or a flow
// collection: their continuation lines may be indented less than YAML 1.2 asks, even down to
// column 0 (`b: "foo` / `bar"` under a nested key reads "foo bar"; so does `args: ["a",` / `"b"]`).
// Only a `---` or `...` marker at column 0 ends them. The `yaml` library's Lexer ends them at such
// a line and reports a missing quote or bracket, so podrun would refuse what kubectl applies.
import { Lexer } from "yaml";

// The Lexer members involved are private to the library; if a release renames them, the plain
// Lexer is used (YAML 1.2's rule) and the differential test's continuation fixtures fail.
interface LexerInternals {
  buffer: string;
  flowLevel: number;
  indentNext: number;
  // Function-typed properties, not methods: they are taken off the lexer and called with .call(this).
  continueScalar: (this: LexerInternals, offset: number) => number;
  parseQuotedScalar: (this: LexerInternals) => Generator<string, string>;
}

const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?:[ \t\r\n]|$)/;

/** A Lexer that lets quoted scalars and flow collections continue on any line but a marker. */
export function createGoYamlLexer(): Lexer {
  const lexer = new Lexer();
  const internals = lexer as unknown as LexerInternals;
  const { continueScalar, parseQuotedScalar } = internals;
  if (typeof continueScalar !== "function" || typeof parseQuotedScalar !== "function") return lexer;
  if (typeof internals.indentNext !== "number" || typeof internals.flowLevel !== "number") return lexer;
  // The indentation a line needs to continue: none inside a flow collection.
  let indentNext = internals.indentNext;
  Object.defineProperty(lexer, "indentNext", {
    get: () => (internals.flowLevel > 0 ? 0 : indentNext),
    set: (value: number) => {
      indentNext = value;
    },
  });
  let quoted = false;
  internals.parseQuotedScalar = function* (this: LexerInternals) {
    quoted = true;
    try {
      return yield* parseQuotedScalar.call(this);
    } finally {
      quoted = false;
    }
  };
  internals.continueScalar = function (this: LexerInternals, offset: number) {
    if (!quoted) return continueScalar.call(this, offset);
    return DOCUMENT_MARKER.test(this.buffer.slice(offset, offset + 4)) ? -1 : offset;
  };
  return lexer;
}
