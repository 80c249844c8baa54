// go-yaml v2 applies a merge key (`<<`) where it stands: its values replace keys written before
// it and yield to keys written after it, and of two merge keys the later wins. The `yaml` library
// lets every written key win and the first merge key. Rearranging a mapping's pairs makes the
// library compute go-yaml's result: written pairs that a later merge replaces are dropped, and the
// merge pairs go first, last one first. (gopkg.in/yaml.v2 decode.go, mapping and merge.)
import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type Pair, type YAMLMap, visit } from "yaml";

const isMergePair = (pair: unknown): pair is Pair =>
  isPair(pair) &&
  isScalar(pair.key) &&
  (pair.key.type === undefined || pair.key.type === "PLAIN") &&
  (pair.key.value === "<<" || (typeof pair.key.value === "symbol" && pair.key.value.description === "<<"));

/**
 * Rearranges every mapping of the document that has a merge key into go-yaml's precedence.
 * Returns the values of the pairs it dropped: go-yaml still decodes them, so their errors count.
 */
export function useGoMergeOrder(doc: Document.Parsed, maxAliasCount: number): unknown[] {
  const dropped: unknown[] = [];
  const maps: YAMLMap[] = [];
  visit(doc, {
    Map(_, map) {
      if (map.items.some(isMergePair)) maps.push(map);
    },
  });
  for (const map of maps) {
    const items = map.items as unknown[];
    const keep = items.filter((item, i) => {
      if (isMergePair(item) || !isPair(item) || !isScalar(item.key)) return true;
      const key = String(item.key.value);
      const replaced = items
        .slice(i + 1)
        .some((later) => isMergePair(later) && mergedKeys(doc, later.value, maxAliasCount).has(key));
      if (replaced) dropped.push(item.value);
      return !replaced;
    });
    const merges = keep.filter(isMergePair).reverse();
    map.items = [...merges, ...keep.filter((item) => !isMergePair(item))] as typeof map.items;
  }
  return dropped;
}

// A merge source is expanded here before the document is: under the document's alias cap.
function mergedKeys(doc: Document.Parsed, value: unknown, maxAliasCount: number): Set<string> {
  const source = isAlias(value) ? value.resolve(doc) : value;
  const keys = new Set<string>();
  const sources = isSeq(source) ? source.items.map((item) => (isAlias(item) ? item.resolve(doc) : item)) : [source];
  for (const each of sources) {
    if (!isMap(each)) continue;
    try {
      const plain = each.toJS(doc, { maxAliasCount }) as Record<string, unknown> | null;
      if (plain && typeof plain === "object") for (const key of Object.keys(plain)) keys.add(key);
    } catch {
      // A broken source (a merge of a list, an alias bomb) fails the document's own toJS, with its message.
    }
  }
  return keys;
}
