// Printing, as Go prints (pure): a value as kubectl shows it (Go's %v, encoding/json's output,
// %q for a template in an error line), and the order Go gives strings, which filters compare by.

export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Go orders strings by their UTF-8 bytes, which is code point order, not JavaScript's UTF-16 order. */
export function compareGoStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function sortedKeys(map: Record<string, unknown>): string[] {
  return Object.keys(map).sort(compareGoStrings);
}

/** A JSON number as kubectl holds it (whole: int64, else float64), printed with Go's %v. */
function goNumberText(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 2 ** 63) return BigInt(value).toString();
  // %v of a float64 is %g at the shortest precision: an exponent below -4 or from 6 up is written.
  const [mantissa = "", exponentText = "0"] = value.toExponential().split("e");
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    return `${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return String(value);
}

export function goTypeName(value: unknown): string {
  if (typeof value === "number") return Number.isInteger(value) ? "int64" : "float64";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "string") return "string";
  return "map[string]interface {}";
}

/** Go's json.Marshal escapes HTML characters and the two JavaScript line separators. */
function goJsonString(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Go's json.Marshal (compact), or json.MarshalIndent with `indent`: map keys sorted. */
export function goJson(value: unknown, indent = "", prefix = ""): string {
  if (typeof value === "string") return goJsonString(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (typeof value === "boolean") return String(value);
  const inner = prefix + indent;
  const wrap = (items: string[], open: string, close: string): string => {
    if (items.length === 0) return open + close;
    if (!indent) return `${open}${items.join(",")}${close}`;
    return `${open}\n${inner}${items.join(`,\n${inner}`)}\n${prefix}${close}`;
  };
  if (Array.isArray(value))
    return wrap(
      value.map((item) => goJson(item, indent, inner)),
      "[",
      "]",
    );
  if (!isMap(value)) return "null";
  const keys = sortedKeys(value).filter((key) => value[key] !== undefined);
  const separator = indent ? ": " : ":";
  return wrap(
    keys.map((key) => `${goJsonString(key)}${separator}${goJson(value[key], indent, inner)}`),
    "{",
    "}",
  );
}

// eslint-disable-next-line no-control-regex
const QUOTED_ESCAPES = /[\\"\u0000-\u001f\u007f]/g;

/** Go's %q, for the template in an error line. */
export function goQuote(text: string): string {
  const short: Record<string, string> = { "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t" };
  const escaped = text.replace(
    QUOTED_ESCAPES,
    (c) => short[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
  return `"${escaped}"`;
}

/** One value as kubectl prints it: a string raw, numbers/bools as Go prints them, maps/arrays as compact JSON. */
export function formatJsonPathValue(value: unknown): string {
  if (Array.isArray(value) || isMap(value)) return goJson(value);
  if (typeof value === "string") return value;
  if (typeof value === "number") return goNumberText(value);
  if (typeof value === "boolean") return String(value);
  return value === null ? "null" : "<no value>";
}

/**
 * One value as Go's fmt prints it (%v): how kubectl's custom columns print a cell, and how its
 * errors show a value. `map[a:1 b:x]` with keys sorted, `[a b]`, `<nil>`.
 */
export function formatGoValue(value: unknown): string {
  if (value === null) return "<nil>";
  if (value === undefined) return "<invalid reflect.Value>";
  if (typeof value === "number") return goNumberText(value);
  if (Array.isArray(value)) return `[${value.map(formatGoValue).join(" ")}]`;
  if (isMap(value))
    return `map[${sortedKeys(value)
      .map((key) => `${key}:${formatGoValue(value[key])}`)
      .join(" ")}]`;
  if (typeof value === "boolean") return String(value);
  return typeof value === "string" ? value : "";
}
