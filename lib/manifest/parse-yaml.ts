import { LineCounter, parseAllDocuments, type Tags } from "yaml";
import { ManifestError } from "../errors.js";
import { mapSource, type SourceMap } from "./source-map.js";
import type { ManifestSource } from "./read-source.js";

export interface YamlDocument {
  /** The document's plain value (objects, arrays, scalars), or null for an empty document. */
  value: unknown;
  sourceMap: SourceMap;
  /** 1-based line where the document starts, for messages about the whole document. */
  line: number;
}

// kubectl decodes YAML with go-yaml v2, a YAML 1.1 parser: `0644` is octal (420, the usual
// defaultMode) and yes/no/on/off are booleans. A YAML 1.2 reader (js-yaml 4) would read 644 and
// accept a manifest the cluster reads differently. go-yaml keeps timestamps, sexagesimal numbers
// and the omap/pairs/set/binary tags as plain strings when decoding into JSON, so those go.
const GO_YAML_DROPPED_TAGS = new Set([
  "tag:yaml.org,2002:timestamp",
  "tag:yaml.org,2002:omap",
  "tag:yaml.org,2002:pairs",
  "tag:yaml.org,2002:set",
  "tag:yaml.org,2002:binary",
]);
// The yaml-1.1 schema hands over tag objects; names (strings) only appear in user-given lists.
const keepGoYamlTags = (tags: Tags): Tags =>
  tags.filter((tag) => typeof tag === "string" || (!GO_YAML_DROPPED_TAGS.has(tag.tag) && tag.format !== "TIME"));

// An alias re-uses a node; expanding many aliases of aliases ("billion laughs") builds an
// exponentially large value. The yaml library counts expanded nodes against this limit.
export const MAX_ALIAS_COUNT = 100;

/** Parses every `---` document of a manifest; any syntax error fails the whole file (exit 2). */
export function parseYamlDocuments(source: ManifestSource): YamlDocument[] {
  const lines = new LineCounter();
  const docs = parseAllDocuments(source.text, {
    lineCounter: lines,
    version: "1.1",
    customTags: keepGoYamlTags,
    merge: true,
    uniqueKeys: true,
    prettyErrors: false,
    strict: true,
  });
  const list = Array.isArray(docs) ? docs : [];
  const errors = list.flatMap((doc) =>
    doc.errors.map((error) => {
      const { line, col } = lines.linePos(error.pos[0]);
      return `${source.name}:${line}:${col}: YAML syntax error: ${describeYamlError(error.code, error.message)}`;
    }),
  );
  if (errors.length > 0) throw new ManifestError(errors);

  return list.map((doc) => {
    const line = lines.linePos(doc.contents?.range[0] ?? doc.range[0]).line;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      const why = /excessive alias count/i.test((error as Error).message)
        ? `YAML aliases expand too much (over ${MAX_ALIAS_COUNT} nodes per alias): refusing a possible resource exhaustion attack`
        : `YAML error: ${(error as Error).message}`;
      throw new ManifestError([`${source.name}:${line}:1: ${why}`]);
    }
    return { value: value ?? null, sourceMap: mapSource(doc.contents, lines), line };
  });
}

// The library's messages end with a code frame; keep the first sentence and name duplicate keys plainly.
function describeYamlError(code: string, message: string): string {
  if (code === "DUPLICATE_KEY") return "duplicate key: a field may appear only once in a mapping";
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}
