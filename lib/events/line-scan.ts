import { timeOf } from "./event-time.js";
import { parseEventLine } from "./parse-event.js";
import type { KubeEvent } from "./types.js";

// What folding needs of one log line, read without building an object: on 100,000 lines,
// JSON.parse and an object per line were two thirds of `podrun events`. Lines podrun wrote have
// the recorder's key order, so one regular expression over the whole line both checks it (a torn
// line does not match) and cuts out the few strings folding needs; a hand-written walk over the
// same fields measured slower than V8's compiled expression. Any other layout (an older or newer
// podrun, a hand-written line, a name with an escape in it) goes through JSON.parse instead: this
// is a shortcut, never a format requirement. Strings stay as JSON writes them (escapes and all).

export interface ScannedLine {
  /**
   * The fold key, in two parts: the involved object but its uid (kind, name, namespace), then its
   * field path, reason, message and type. Two parts, because joining them into one string cost a
   * copy and a hash of ~300 characters per line; each part alone is a view into the line.
   */
  objectKey: string;
  tailKey: string;
  /** metadata.name. */
  name: string;
  uid: string;
  count: number;
  firstMs: number;
  lastMs: number;
  /** The event, when the line was read by JSON.parse. */
  event: KubeEvent | undefined;
}

/** A scratch record to scan line after line into (no object per line). */
export function createScannedLine(): ScannedLine {
  return { objectKey: "", tailKey: "", name: "", uid: "", count: 0, firstMs: 0, lastMs: 0, event: undefined };
}

/** Fills `out` from `line`; false if the line is not an event. */
export function scanEventLine(line: string, out: ScannedLine): boolean {
  if (scanRecorderLine(line, out)) return true;
  const event = parseEventLine(line);
  if (!event) return false;
  scanEvent(event, out);
  return true;
}

/** Fills `out` from an event object, with the same key and escaped strings as a scanned line. */
export function scanEvent(event: KubeEvent, out: ScannedLine): void {
  const object = event.involvedObject ?? {};
  const quote = (value: unknown) => JSON.stringify(value === undefined || value === null ? "" : String(value));
  const namespace = quote(object.namespace || event.metadata.namespace || "default");
  const fieldPath = object.fieldPath === undefined ? "" : `,"fieldPath":${quote(object.fieldPath)}`;
  // The two spans of text the fast path keys on, as JSON.stringify writes them in a recorder line.
  const objectSpan = `"kind":${quote(object.kind)},"name":${quote(object.name)},"namespace":${namespace}`;
  const tailSpan = `${fieldPath}},"reason":${quote(event.reason)},"message":${quote(event.message)},"type":${quote(event.type)}`;
  out.objectKey = objectSpan;
  out.tailKey = tailSpan;
  out.name = event.metadata.name;
  out.uid = String(object.uid ?? "");
  out.count = typeof event.count === "number" && event.count > 0 ? event.count : 1; // the newer API leaves 0 for "once"
  out.firstMs = timeOf(event.firstTimestamp || event.lastTimestamp || "");
  out.lastMs = timeOf(event.lastTimestamp || event.firstTimestamp || "");
  out.event = event;
}

// The recorder's layout, matched whole. Short values may not hold a backslash (such lines go to
// JSON.parse); the message may, and is kept as JSON wrote it. Only what every line needs is
// captured (each capture is a string made per line): the filter's fields, reason and all, are
// inside the key, and are read from the event once per key (fold.ts).
const VALUE = '"([^"\\\\]*)"';
const SKIP = '"[^"\\\\]*"';
const MESSAGE = '"[^"\\\\]*(?:\\\\.[^"\\\\]*)*"';
const RECORDER_LINE = new RegExp(
  `^\\{"apiVersion":"v1","kind":"Event","metadata":\\{"name":${VALUE},"namespace":${SKIP}\\},` +
    `"involvedObject":\\{"apiVersion":"v1",("kind":${SKIP},"name":${SKIP},"namespace":${SKIP}),"uid":${VALUE}` +
    `((?:,"fieldPath":${SKIP})?\\},"reason":${SKIP},"message":${MESSAGE},"type":${SKIP}),"source":\\{"component":${SKIP},"host":${SKIP}\\},` +
    `"firstTimestamp":${VALUE},"lastTimestamp":${VALUE},"count":(\\d+),"reportingComponent":${SKIP},"reportingInstance":${SKIP}\\}$`,
);

function scanRecorderLine(line: string, out: ScannedLine): boolean {
  const m = RECORDER_LINE.exec(line);
  if (!m) return false;
  out.name = m[1]!;
  out.objectKey = m[2]!;
  out.uid = m[3]!;
  out.tailKey = m[4]!;
  out.count = Number(m[7]) || 1;
  out.firstMs = timeOf(m[5]!);
  out.lastMs = timeOf(m[6]!);
  out.event = undefined;
  return true;
}
