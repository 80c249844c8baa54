import { isAlias, isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from "yaml";
import type { Segment } from "./field-path.js";

export interface Position {
  line: number;
  col: number;
}

/** Where a value sits in the YAML source, and where the key that holds it sits. */
interface Located {
  value: Position;
  key?: Position;
  children?: Map<Segment, Located>;
}

/** Finds the source position of a field path in one YAML document. */
export class SourceMap {
  constructor(private readonly root: Located) {}

  /**
   * The position of the deepest node along `segments` that exists: an error on a missing field
   * points at the object that lacks it. `atKey` points at the key instead of the value.
   */
  locate(segments: readonly Segment[], atKey = false): Position {
    let node = this.root;
    let last: Located = this.root;
    for (const segment of segments) {
      const next = node.children?.get(segment);
      if (!next) return last.value;
      last = next;
      node = next;
    }
    return atKey && last.key ? last.key : last.value;
  }

  /** A source map for a sub-tree, so that the items of a `kind: List` keep their own positions. */
  subtree(segments: readonly Segment[]): SourceMap {
    let node: Located | undefined = this.root;
    for (const segment of segments) node = node?.children?.get(segment);
    return new SourceMap(node ?? this.root);
  }
}

/** Builds the source map of a parsed document body by walking its nodes once. */
export function mapSource(node: Node | null | undefined, lines: LineCounter): SourceMap {
  return new SourceMap(locateNode(node, lines, 0));
}

function positionOf(offset: number | undefined, lines: LineCounter): Position {
  const { line, col } = lines.linePos(offset ?? 0);
  return { line, col };
}

// Aliases are not followed: an error inside aliased content points at the alias, which is
// where the user wrote it, and following them would walk an alias bomb's expansion.
function locateNode(node: unknown, lines: LineCounter, depth: number): Located {
  const range = (node as Node | undefined)?.range;
  const here: Located = { value: positionOf(range?.[0], lines) };
  if (depth > 200 || isAlias(node) || isScalar(node)) return here;
  if (isMap(node)) {
    here.children = new Map();
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as Node | null;
      const key = isScalar(keyNode) ? String(keyNode.value) : undefined;
      if (key === undefined) continue;
      if (key === "<<" && (isMap(pair.value) || isSeq(pair.value))) continue;
      const child = pair.value
        ? locateNode(pair.value, lines, depth + 1)
        : { value: positionOf(keyNode?.range?.[1], lines) };
      child.key = positionOf(keyNode?.range?.[0], lines);
      here.children.set(key, child);
    }
  } else if (isSeq(node)) {
    here.children = new Map();
    node.items.forEach((item, i) => here.children!.set(i, locateNode(item, lines, depth + 1)));
  }
  return here;
}
