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
    return new FieldPath(
      [...this.segments, k],
      `${this.display}[${k.replace(/[\r\n\u2028\u2029\u0085]/g, escapeLineBreak)}]`,
    );
  }

  /** This path read from `parent` (a pod template's `spec.containers` as `spec.template.spec.containers`). */
  under(parent: FieldPath): FieldPath {
    if (!parent.display) return this;
    const display = !this.display
      ? parent.display
      : this.display.startsWith("[")
        ? `${parent.display}${this.display}`
        : `${parent.display}.${this.display}`;
    return new FieldPath([...parent.segments, ...this.segments], display);
  }

  toString(): string {
    return this.display;
  }
}

const escapeLineBreak = (c: string): string =>
  c === "\n" ? "\\n" : c === "\r" ? "\\r" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
