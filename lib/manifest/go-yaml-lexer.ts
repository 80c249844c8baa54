// go-yaml v2 (libyaml's scanner) ends a quoted scalar only at its closing quote or at a document
// marker: its continuation lines may be indented less than YAML 1.2 asks, even down to column 0
// (`b: "foo` / `bar"` under a nested key reads "foo bar"). The `yaml` library's Lexer ends the
// scalar at such a line and reports a missing quote, so podrun would refuse what kubectl applies.
import { Lexer } from "yaml";

// The two Lexer methods involved are private to the library; if a release renames them, the
// plain Lexer is used (YAML 1.2's rule) and the differential test's quoted-continuation fixture fails.
interface LexerInternals {
  buffer: string;
  continueScalar(offset: number): number;
  parseQuotedScalar(): Generator<string, string>;
}

const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?:[ \t\r\n]|$)/;

/** A Lexer that lets quoted scalars continue on any line except a `---` or `...` marker. */
export function createGoYamlLexer(): Lexer {
  const lexer = new Lexer();
  const internals = lexer as unknown as LexerInternals;
  const { continueScalar, parseQuotedScalar } = internals;
  if (typeof continueScalar !== "function" || typeof parseQuotedScalar !== "function") return lexer;
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
