// kubectl does not split a manifest into documents as a YAML parser does. Its reader
// (k8s.io/apimachinery pkg/util/yaml YAMLOrJSONDecoder) takes the whole input as a stream of JSON
// values when it starts with `{`; otherwise it cuts the text at every line that starts with `---`
// and hands each piece to go-yaml, which reads the first YAML document of it and nothing more.

/** Characters Go's unicode.IsSpace accepts (a byte-order mark is not one of them). */
const GO_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/;

/**
 * Does kubectl read this input as JSON: is its first non-space character `{`? kubectl reads
 * files through unicode.BOMOverride, so a UTF-8 byte-order mark comes off before it looks.
 */
export function isJsonStream(text: string): boolean {
  return text
    .replace(/^\ufeff/, "")
    .replace(GO_SPACE, "")
    .startsWith("{");
}

/** A piece of the text that kubectl decodes as one YAML stream. */
export interface KubectlChunk {
  /** Offset of the chunk in the whole text. */
  offset: number;
  text: string;
}

/** A separator line with more than a comment after `---`, which kubectl refuses. */
export interface SeparatorError {
  offset: number;
  /** What follows `---`, trimmed. */
  rest: string;
}

/**
 * Cuts YAML text where kubectl does: a line starting with `---` ends a non-empty chunk and is
 * dropped; at the start of a chunk it stays in it (go-yaml then reads it as the document start).
 */
export function splitKubectlChunks(text: string): { chunks: KubectlChunk[]; error?: SeparatorError } {
  const chunks: KubectlChunk[] = [];
  let start = 0;
  let lineStart = 0;
  while (lineStart < text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline + 1;
    const line = text.slice(lineStart, lineEnd);
    if (line.startsWith("---")) {
      const rest = line.slice(3).trim();
      if (rest !== "" && !rest.startsWith("#")) return { chunks, error: { offset: lineStart, rest } };
      if (lineStart > start) {
        chunks.push({ offset: start, text: text.slice(start, lineStart) });
        start = lineEnd;
      }
    }
    lineStart = lineEnd;
  }
  if (text.length > start) chunks.push({ offset: start, text: text.slice(start) });
  return { chunks };
}

/**
 * Cuts a JSON stream into its top-level values, as Go's json.Decoder reads them one after the
 * other (`{...}{...}`, or one per line). Only the extent of each value is found here: JSON.parse
 * judges its syntax, so a malformed value just runs to the end of the text.
 */
export function splitJsonValues(text: string): KubectlChunk[] {
  const values: KubectlChunk[] = [];
  let i = skipJsonSpace(text, text.startsWith("\ufeff") ? 1 : 0);
  while (i < text.length) {
    const end = endOfJsonValue(text, i);
    values.push({ offset: i, text: text.slice(i, end) });
    i = skipJsonSpace(text, end);
  }
  return values;
}

// encoding/json's whitespace: space, tab, CR and LF only.
function skipJsonSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
  return i;
}

function endOfJsonValue(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      depth--;
      if (depth <= 0) return i + 1;
    } else if (depth === 0 && (" \t\r\n".includes(ch) || (i > start && (ch === "{" || ch === "[")))) return i;
  }
  return text.length;
}
