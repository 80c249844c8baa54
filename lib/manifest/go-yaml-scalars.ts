// Where the `yaml` library's YAML 1.1 reading differs from go-yaml v2, the reader behind kubectl
// (sigs.k8s.io/yaml), podrun follows go-yaml: its number forms, explicit tags, !!binary, the
// strings it makes of non-string keys, and its double-quoted escapes. go-yaml's rules:
// gopkg.in/yaml.v2 resolve.go (resolve), decode.go (scalar) and scannerc.go
// (yaml_parser_scan_flow_scalar); sigs.k8s.io/yaml yaml.go (convertToJSONableObject) for keys.
import { Buffer } from "node:buffer";
import { CST, isScalar, type Document, type ScalarTag, type Tags, visit } from "yaml";

const INT_TAG = "tag:yaml.org,2002:int";
const FLOAT_TAG = "tag:yaml.org,2002:float";
const BOOL_TAG = "tag:yaml.org,2002:bool";
const NULL_TAG = "tag:yaml.org,2002:null";
const BINARY_TAG = "tag:yaml.org,2002:binary";

const GO_TRUE = new Set(["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"]);
const GO_FALSE = new Set(["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"]);
const GO_NULL = new Set(["", "~", "null", "Null", "NULL"]);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

// Go's strconv.ParseInt(s, 0, 64): a sign, then 0x/0o/0b (either case), a leading 0 for octal, or decimal.
const GO_INT = /^([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]+)|(0|[1-9][0-9]*))$/;
const GO_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const GO_DOT_FLOAT = /^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/;

interface GoNumber {
  value: number;
  kind: "int" | "float";
}

/** The number go-yaml v2 reads from a plain scalar, or undefined when it stays a string. */
export function resolveGoNumber(text: string): GoNumber | undefined {
  if (text.startsWith(".")) return finite(GO_DOT_FLOAT.test(text) ? Number(text) : NaN, "float");
  if (!/^[-+0-9]/.test(text)) return undefined;
  // go-yaml drops every underscore before it parses.
  const plain = text.replaceAll("_", "");
  const int = parseGoInt(plain);
  if (int !== undefined) return { value: Number(int), kind: "int" };
  // Out of range of Go's float64 (1e400) is a parse error: the scalar stays a string.
  return GO_FLOAT.test(plain) ? finite(Number(plain), "float") : undefined;
}

function parseGoInt(plain: string): bigint | undefined {
  const match = GO_INT.exec(plain);
  if (!match) return undefined;
  const [, sign, hex, octal, binary, oldOctal, decimal] = match;
  const magnitude =
    hex !== undefined
      ? BigInt(`0x${hex}`)
      : octal !== undefined
        ? BigInt(`0o${octal}`)
        : binary !== undefined
          ? BigInt(`0b${binary}`)
          : oldOctal !== undefined
            ? BigInt(`0o${oldOctal}`)
            : BigInt(decimal!);
  const value = sign === "-" ? -magnitude : magnitude;
  if (value >= INT64_MIN && value <= INT64_MAX) return value;
  // ParseUint is tried next, and it takes no sign at all.
  return sign === "" && value <= UINT64_MAX ? value : undefined;
}

const finite = (value: number, kind: GoNumber["kind"]): GoNumber | undefined =>
  Number.isFinite(value) ? { value, kind } : undefined;

// The library picks an implicit tag with `test.test(source)`: a RegExp whose test asks go-yaml's rule.
class GoRule extends RegExp {
  constructor(private readonly accepts: (text: string) => boolean) {
    super("^$");
  }
  override test(text: string): boolean {
    return this.accepts(text);
  }
}

const resolveNumber = (text: string): unknown => resolveGoNumber(text)?.value ?? text;

const goInt: ScalarTag = {
  tag: INT_TAG,
  default: true,
  identify: (value) => typeof value === "number" && Number.isInteger(value),
  test: new GoRule((text) => resolveGoNumber(text)?.kind === "int"),
  resolve: resolveNumber,
};

// `!!float 12` is a float in go-yaml, so the float tag accepts every number form.
const goFloat: ScalarTag = {
  tag: FLOAT_TAG,
  default: true,
  identify: (value) => typeof value === "number",
  test: new GoRule((text) => resolveGoNumber(text) !== undefined),
  resolve: resolveNumber,
};

// An explicit tag (`!!int "12"`) must fit what go-yaml resolves the text to, or the file is refused.
const explicit = (tag: string, name: string, read: (text: string) => { value: unknown } | undefined): ScalarTag => ({
  tag,
  resolve(text, onError) {
    const found = read(text);
    if (found) return found.value;
    onError(`cannot decode \`${text}\` as a !!${name}`);
    return text;
  },
});

const goExplicitTags: ScalarTag[] = [
  explicit(INT_TAG, "int", (text) => {
    const number = resolveGoNumber(text);
    return number?.kind === "int" ? number : undefined;
  }),
  explicit(FLOAT_TAG, "float", (text) => {
    if (/^[-+]?\.(?:inf|Inf|INF)$/.test(text)) return { value: text.startsWith("-") ? -Infinity : Infinity };
    if (/^\.(?:nan|NaN|NAN)$/.test(text)) return { value: NaN };
    return resolveGoNumber(text);
  }),
  explicit(BOOL_TAG, "bool", (text) =>
    GO_TRUE.has(text) ? { value: true } : GO_FALSE.has(text) ? { value: false } : undefined,
  ),
  explicit(NULL_TAG, "null", (text) => (GO_NULL.has(text) ? { value: null } : undefined)),
];

// go-yaml decodes !!binary into a Go string of the bytes, which JSON then carries as UTF-8.
const goBinary: ScalarTag = {
  tag: BINARY_TAG,
  resolve(text, onError) {
    const base64 = text.replace(/[\r\n]/g, "");
    if (base64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) {
      onError("!!binary value contains invalid base64 data");
      return text;
    }
    return Buffer.from(base64, "base64").toString("utf8");
  },
};

const isInfOrNaNTag = (tag: ScalarTag): boolean => tag.tag === FLOAT_TAG && tag.test?.test(".nan") === true;

/**
 * Swaps the YAML 1.1 schema's int and float tags for go-yaml's number rules (`0o644`, `0X1F`,
 * `1e3`, `!!float 1`), keeping its .inf/.nan tag (JSON has no such number: the caller refuses
 * them), and adds go-yaml's explicit !!int, !!float, !!bool, !!null and !!binary.
 */
export function useGoYamlScalars(tags: Tags): Tags {
  const out: Tags = [];
  let added = false;
  for (const tag of tags) {
    const scalar = typeof tag === "object" && !tag.collection ? tag : undefined;
    if (scalar?.tag === BINARY_TAG) continue;
    if (scalar && (scalar.tag === INT_TAG || (scalar.tag === FLOAT_TAG && !isInfOrNaNTag(scalar)))) {
      if (!added) out.push(goInt, goFloat);
      added = true;
      continue;
    }
    out.push(tag);
  }
  // Explicit tags are looked up by name, and one without a test wins over the implicit ones.
  return [...goExplicitTags, goBinary, ...out];
}

/**
 * Turns number keys into the strings sigs.k8s.io/yaml makes of them: an int as written in
 * decimal, a float as Go's FormatFloat(key, 'g', -1, 32) (`3.1415927`, `1e+06`, `.inf`).
 */
export function useGoKeyStrings(doc: Document.Parsed): void {
  visit(doc, {
    Pair(_, pair) {
      const key = pair.key;
      if (!isScalar(key) || typeof key.value !== "number") return;
      const int = typeof key.source === "string" && resolveGoNumber(key.source)?.kind === "int";
      key.value = int && Number.isInteger(key.value) ? String(key.value) : formatGoFloat32(key.value);
    },
  });
}

/** Go's strconv.FormatFloat(value, 'g', -1, 32), with go-yaml's names for infinities and NaN. */
export function formatGoFloat32(value: number): string {
  if (Number.isNaN(value)) return ".nan";
  // Rounded to float32, a large float64 becomes an infinity too.
  const f = Math.fround(value);
  if (!Number.isFinite(f)) return f > 0 ? ".inf" : "-.inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const sign = f < 0 ? "-" : "";
  // The shortest digits that read back as the same float32.
  let digits = "";
  let exp = 0;
  for (let precision = 1; precision <= 9; precision++) {
    const text = Math.abs(f).toExponential(precision - 1);
    if (Math.fround(Number(text)) === Math.abs(f)) {
      const [mantissa, e] = text.split("e");
      digits = mantissa!.replace(".", "").replace(/0+$/, "") || "0";
      exp = Number(e);
      break;
    }
  }
  if (exp < -4 || exp >= 6) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const fraction = digits.slice(exp + 1);
  return `${sign}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** An escape go-yaml v2 refuses in a double-quoted scalar, at an offset of the parsed text. */
export interface EscapeError {
  offset: number;
  message: string;
}

/**
 * Rewrites the double-quoted scalars of a document's tokens to read as go-yaml v2 reads them:
 * `\'` is a single quote there (a `\x27` for the library), while `\/` (a YAML 1.2 escape) and
 * escapes of UTF-16 surrogates are errors. Token offsets stay as they were, so positions hold.
 */
export function adaptDoubleQuotedEscapes(document: CST.Document, report: (error: EscapeError) => void): void {
  CST.visit(document, (item) => {
    for (const token of [item.key, item.value]) {
      if (token?.type === "double-quoted-scalar") token.source = adaptEscapes(token.source, token.offset, report);
    }
  });
}

const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

function adaptEscapes(source: string, offset: number, report: (error: EscapeError) => void): string {
  if (!source.includes("\\")) return source;
  let out = "";
  let from = 0;
  for (let i = 1; i < source.length - 1; i++) {
    if (source[i] !== "\\") continue;
    const next = source[i + 1];
    if (next === "'") {
      out += `${source.slice(from, i)}\\x27`;
      from = i + 2;
    } else if (next === "/") {
      report({ offset: offset + i, message: "Invalid escape sequence \\/" });
    } else if (next !== undefined && next in HEX_LENGTH) {
      const hex = source.slice(i + 2, i + 2 + HEX_LENGTH[next]!);
      const code = /^[0-9a-fA-F]+$/.test(hex) ? parseInt(hex, 16) : NaN;
      if (code >= 0xd800 && code <= 0xdfff) {
        report({
          offset: offset + i,
          message: `Invalid escape sequence \\${next}${hex}: a UTF-16 surrogate is not a character`,
        });
      }
    }
    i += 1;
  }
  return out + source.slice(from);
}
