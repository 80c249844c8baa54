// A field path as kubectl prints it (`spec.containers[1].name`, `metadata.labels[app]`),
// carrying the raw segments so the error can be located in the YAML source.
export type Segment = string | number;

export class FieldPath {
  private constructor(
    readonly segments: readonly Segment[],
    readonly display: string,
  ) {}

  static root(name = ""): FieldPath {
    return new FieldPath(name ? [name] : [], name);
  }

  /** A struct field: `parent.name`. */
  child(name: string): FieldPath {
    return new FieldPath([...this.segments, name], this.display ? `${this.display}.${name}` : name);
  }

  /** A list element: `parent[3]`. */
  index(i: number): FieldPath {
    return new FieldPath([...this.segments, i], `${this.display}[${i}]`);
  }

  /** A map entry: `parent[key]` (labels, data, resources.limits…). */
  key(k: string): FieldPath {
    // kubectl prints the key as it is; a line break in it is escaped here, to keep one line per error.
    return new FieldPath([...this.segments, k], `${this.display}[${k.replace(/[\r\n\u2028\u2029\u0085]/g, escapeLineBreak)}]`);
  }

  toString(): string {
    return this.display;
  }
}

const escapeLineBreak = (c: string): string => (c === "\n" ? "\\n" : c === "\r" ? "\\r" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
