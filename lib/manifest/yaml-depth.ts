import { CST } from "yaml";

// The yaml library composes a document, and podrun then walks its values, by recursion: a text of
// a few kilobytes nesting lists or mappings thousands deep (`[[[[…`) would exhaust the stack
// ("Maximum call stack size exceeded"). go-yaml, kubectl's reader, refuses nesting over 10000
// levels (go-yaml v2 scannerc.go, max_flow_level and max_indents); podrun stops earlier, at a depth
// its own recursion handles with room to spare and far beyond any Pod, ConfigMap or Secret (the
// deepest fields of a Pod are nested about fifteen levels).

/** Lists and mappings may be nested this many levels deep, not deeper. */
export const MAX_YAML_DEPTH = 256;

/**
 * The offset of the first list or mapping nested deeper than `max` levels in a parsed (CST)
 * document, or undefined. Iterative: it must not run out of stack on the input it guards against.
 */
export function findTooDeepCollection(document: CST.Document, max = MAX_YAML_DEPTH): number | undefined {
  const stack: { token: CST.Token | null | undefined; depth: number }[] = [{ token: document.value, depth: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { token, depth } = next;
    if (!token || (token.type !== "block-map" && token.type !== "block-seq" && token.type !== "flow-collection"))
      continue;
    if (depth + 1 > max) return token.offset;
    // Last item first, value before key: the first one popped is the first in the text.
    for (const item of [...token.items].reverse()) {
      stack.push({ token: item.value, depth: depth + 1 });
      if ("key" in item) stack.push({ token: item.key, depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * Where the lexeme guard stops the Parser: above MAX_YAML_DEPTH, so that findTooDeepCollection
 * reports ordinary excess at the exact place, and well under the nesting the Parser survives.
 */
export const PARSER_NESTING_LIMIT = 4 * MAX_YAML_DEPTH;

/**
 * Watches the lexemes a Parser is fed, for the nesting the Parser itself builds by recursion:
 * compact block collections on one line (`- - - - x`, each `-` one level) and flow brackets.
 * `next` answers true at the first lexeme that goes deeper than `max`: feed the Parser no further.
 * Nesting by indentation is left to findTooDeepCollection (the Parser builds it iteratively).
 */
export function createLexemeDepthGuard(max = PARSER_NESTING_LIMIT): { next(lexeme: string): boolean } {
  let flow = 0;
  let onLine = 0;
  return {
    next(lexeme) {
      switch (CST.tokenType(lexeme)) {
        case "newline":
          onLine = 0;
          return false;
        // A `-` or `?` opens a block collection even inside brackets, where it is an error the
        // Parser reaches only after building it; `a: 1, b: 2` in a flow mapping opens none.
        case "seq-item-ind":
        case "explicit-key-ind":
          return ++onLine > max;
        case "map-value-ind":
          return flow === 0 && ++onLine > max;
        case "flow-map-start":
        case "flow-seq-start":
          return ++flow > max;
        case "flow-map-end":
        case "flow-seq-end":
          flow = Math.max(0, flow - 1);
          return false;
        default:
          return false;
      }
    },
  };
}

/**
 * The offset of the first `[` or `{` nested deeper than `max` in JSON text (strings skipped), or
 * undefined: JSON is decoded by JSON.parse, but podrun's checks walk the value by recursion.
 */
export function findTooDeepJson(text: string, max = MAX_YAML_DEPTH): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") {
      if (++depth > max) return i;
    } else if (ch === "}" || ch === "]") depth = Math.max(0, depth - 1);
  }
  return undefined;
}
