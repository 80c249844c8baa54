import type { CST } from "yaml";

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
    if (!token || (token.type !== "block-map" && token.type !== "block-seq" && token.type !== "flow-collection")) continue;
    if (depth + 1 > max) return token.offset;
    // Last item first, value before key: the first one popped is the first in the text.
    for (const item of [...token.items].reverse()) {
      stack.push({ token: item.value, depth: depth + 1 });
      if ("key" in item) stack.push({ token: item.key, depth: depth + 1 });
    }
  }
  return undefined;
}
