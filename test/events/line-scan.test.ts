import t from "tap";
import { createScannedLine, keyBucketOf, loadBlock, scanBlockLine, scanEvent, scanEventLine, type ScannedLine } from "../../lib/events/line-scan.js";
import { parseEventLine } from "../../lib/events/parse-event.js";
import type { KubeEvent } from "../../lib/events/types.js";
import { makeEvent } from "./fixtures/make-event.js";

// Lines in the recorder's layout are scanned as bytes by WebAssembly, others go through
// JSON.parse: both ways must give the same key, name, count and times, or the same event would
// fold into two rows. And a line the scanner reads must be one JSON.parse reads the same way.

const fieldsOf = (s: ScannedLine) => ({
  keyHash: s.keyHash,
  keyCheck: s.keyCheck,
  keyBucket: s.keyBucket,
  nameHash: s.nameHash,
  count: s.count,
  firstMs: s.firstMs,
  lastMs: s.lastMs,
  name: s.name(),
  uid: s.uid(),
});

function scanLine(line: string): ScannedLine | undefined {
  const out = createScannedLine();
  return scanEventLine(line, out) ? out : undefined;
}

function scanObject(event: KubeEvent): ScannedLine {
  const out = createScannedLine();
  scanEvent(event, out);
  return out;
}

// A deterministic pseudo-random sequence: failures can be replayed.
function randomSource(seed: number): () => number {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

t.test("a recorder line and its event object scan the same, escapes and all", async (t) => {
  const messages = ['Pulling image "busybox"', "back\\slash, tab\there, é, 雪, emoji 🐳", "line one\nline two", "", '","type":"x', "lone \ud800 surrogate", "\u2028\u0000\u007f"];
  for (const [i, message] of messages.entries()) {
    for (const container of [undefined, "app"]) {
      const event = makeEvent({ message, container, count: 7, first: Date.parse("2025-03-01T12:00:00Z"), last: Date.parse("2025-03-01T12:05:00Z") });
      const fast = scanLine(JSON.stringify(event));
      t.ok(fast, `scanned: message ${i}`);
      t.equal(fast?.event, undefined, "as bytes, without JSON.parse");
      t.same(fieldsOf(fast!), fieldsOf(scanObject(event)), `same fields: message ${i}, ${container ?? "pod"}`);
      t.same([fast!.count, fast!.firstMs, fast!.lastMs], [7, Date.parse("2025-03-01T12:00:00Z"), Date.parse("2025-03-01T12:05:00Z")]);
      t.equal(fast!.keyBucket, keyBucketOf(fast!.keyHash));
    }
  }
});

t.test("another key order, extra fields, an escaped name or an empty namespace: JSON.parse, same fields", async (t) => {
  const event = makeEvent({ container: "app", count: 2 });
  const reversed = Object.fromEntries(Object.entries({ ...event, related: { kind: "Node", name: "n" } }).reverse());
  const slow = scanLine(JSON.stringify(reversed))!;
  t.ok(slow.event, "read by JSON.parse");
  t.same(fieldsOf(slow), fieldsOf(scanObject(event)));

  const quoted = makeEvent({ pod: 'we"b', name: 'we"b.1' });
  const scanned = scanLine(JSON.stringify(quoted))!;
  t.ok(scanned.event, "an escape in a name: JSON.parse");
  t.equal(scanned.name(), 'we"b.1');

  const inherits = makeEvent({ namespace: "ci" });
  const withoutNamespace = { ...inherits, involvedObject: { ...inherits.involvedObject, namespace: "" } };
  const read = scanLine(JSON.stringify(withoutNamespace))!;
  t.ok(read.event, "an empty namespace: JSON.parse, which keys it as the event's own");
  t.same(fieldsOf(read), fieldsOf(scanObject(inherits)));
});

t.test("count 0 (the newer API's 'once') scans as 1", async (t) => {
  t.equal(scanLine(JSON.stringify(makeEvent({ count: 0 })))!.count, 1);
  t.equal(scanObject(makeEvent({ count: 0 })).count, 1);
});

t.test("torn lines and lines that are not events do not scan", async (t) => {
  const line = JSON.stringify(makeEvent({ container: "app" }));
  const torn = [line.slice(0, -1), line.slice(0, 120), line.slice(0, line.indexOf('"count"') + 9), `${line}x`, `${line}${line}`];
  const invalid = [line.replace('"count":1', '"count":01'), line.replace("already", "al\\qready"), line.replace("already", "al\\u12g4ready"), line.replace("already", "al\u0001ready")];
  const twoLines = [`${line}\n${line}`, `${line}\nx`];
  for (const bad of [...torn, ...invalid, ...twoLines, "not json", '{"kind":"Pod"}', "null", "[]", '{"kind":"Event","metadata":{}}']) {
    t.equal(scanLine(bad), undefined, bad.slice(0, 40));
  }
});

// Random events: every field's text drawn from ASCII, characters JSON escapes, multi-byte and
// astral characters and lone surrogates; times and counts in and out of the recorder's forms.
function randomEvent(random: () => number): KubeEvent {
  const pieces = ["a", "Z", "0", " ", '"', "\\", "\n", "\t", "\u0001", "é", "雪", "🐳", "\ud800", "\u2028", "/", ".", "-", "\u007f"];
  const text = (max: number, plain = false) =>
    Array.from({ length: Math.floor(random() * max) }, () => (plain ? "abcXYZ09.-"[Math.floor(random() * 10)]! : pieces[Math.floor(random() * pieces.length)]!)).join("");
  const times = ["2025-03-01T12:00:00Z", "2024-02-29T23:59:59Z", "2025-02-31T00:00:00Z", "1970-01-01T00:00:00Z", "0999-01-01T00:00:00Z", "2025-03-01T12:00:00.5Z", "2025-03-01T12:00:00+01:00", "", "yesterday"];
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const event = makeEvent({
    pod: random() < 0.8 ? text(12, true) || "p" : text(8),
    namespace: random() < 0.9 ? text(6, true) : "",
    container: random() < 0.5 ? undefined : text(6, random() < 0.8),
    reason: random() < 0.8 ? text(10, true) : text(6),
    message: text(60),
    name: random() < 0.8 ? `${text(8, true)}.${Math.floor(random() * 1e12).toString(16)}` : text(10),
    uid: text(12, random() < 0.8),
    type: pick(["Normal", "Warning", ""] as const) as "Normal",
    count: pick([1, 2, 0, 17, 123456789012345, 2 ** 53]),
  });
  const time = () => (random() < 0.7 ? times[Math.floor(random() * 4)]! : pick(times));
  event.firstTimestamp = time();
  event.lastTimestamp = time();
  return event;
}

t.test("random events: the line scans as the object does", async (t) => {
  const random = randomSource(7);
  let asBytes = 0;
  for (let i = 0; i < 3000; i++) {
    const event = randomEvent(random);
    const line = JSON.stringify(event);
    const scanned = scanLine(line);
    if (!scanned) {
      t.fail(`not scanned: ${line}`);
      continue;
    }
    if (!scanned.event) asBytes++;
    const expected = fieldsOf(scanObject(event));
    const got = fieldsOf(scanned);
    if (JSON.stringify(got) !== JSON.stringify(expected)) t.same(got, expected, `random event ${i}`);
  }
  t.ok(asBytes > 300, `many read as bytes (${asBytes} of 3000)`);
});

t.test("mutated recorder lines: read as bytes only if JSON.parse reads them the same way", async (t) => {
  const random = randomSource(11);
  const chars = ' "\\{}:,0123456789aeEntu/-ZT.é\u0001';
  let checked = 0;
  for (let i = 0; i < 4000; i++) {
    const line = JSON.stringify(makeEvent({ container: random() < 0.5 ? "app" : undefined, message: `m "${i}" é`, count: 1 + (i % 5) }));
    const at = Math.floor(random() * line.length);
    const roll = random();
    const char = chars[Math.floor(random() * chars.length)]!;
    const mutated = roll < 0.4 ? line.slice(0, at) + char + line.slice(at + 1) : roll < 0.7 ? line.slice(0, at) + line.slice(at + 1) : line.slice(0, at) + char + line.slice(at);
    const scanned = scanLine(mutated);
    const event = parseEventLine(mutated);
    if (!event) {
      if (scanned) t.fail(`scanned, but JSON.parse rejects it: ${JSON.stringify(mutated)}`);
      continue;
    }
    checked++;
    const expected = fieldsOf(scanObject(event));
    if (!scanned || JSON.stringify(fieldsOf(scanned)) !== JSON.stringify(expected)) t.same(scanned && fieldsOf(scanned), expected, JSON.stringify(mutated));
  }
  t.ok(checked > 1000, `${checked} mutated lines still events`);
});

t.test("lines scanned where they were read (a block) scan as the same lines as text", async (t) => {
  const random = randomSource(3);
  const lines = Array.from({ length: 400 }, (_, i) =>
    i % 50 === 7 ? "" : i % 50 === 9 ? "not an event" : JSON.stringify(i % 3 === 0 ? randomEvent(random) : makeEvent({ pod: `p${i % 9}`, message: `m${i}`, count: i })),
  );
  const bytes = Buffer.from(`xx${lines.join("\n")}\n`); // the block need not start its buffer
  const { at: start, end } = loadBlock(bytes, 2, bytes.length);
  const scanned = createScannedLine();
  let at = start;
  for (const line of lines) {
    at = scanBlockLine(at, end, scanned);
    const expected = scanLine(line);
    const label = `line ${lines.indexOf(line)}`;
    t.equal(scanned.isEvent, expected !== undefined, `${label}: event or not`);
    if (expected) t.same({ ...fieldsOf(scanned), line: scanned.line() }, { ...fieldsOf(expected), line }, label);
  }
  t.equal(at, end, "every line read");

  // A filter's test is asked only of lines that need JSON.parse.
  const asked: string[] = [];
  const other = JSON.stringify(Object.fromEntries(Object.entries(makeEvent()).reverse()));
  const recorder = JSON.stringify(makeEvent());
  const two = Buffer.from(`${recorder}\n${other}\n`);
  const loaded = loadBlock(two, 0, two.length);
  const afterFirst = scanBlockLine(loaded.at, loaded.end, scanned, (line) => (asked.push(line), false));
  t.ok(scanned.isEvent, "a recorder line: read without asking");
  scanBlockLine(afterFirst, loaded.end, scanned, (line) => (asked.push(line), false));
  t.notOk(scanned.isEvent, "the filter said no");
  t.same(asked, [other]);
});

t.test("bytes that are not UTF-8 in a message: read as JSON.parse reads the decoded line", async (t) => {
  const scanned = createScannedLine();
  const invalid = [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xe2, 0x82], [0xf0, 0x8f, 0xbf, 0xbf], [0xff]];
  const valid = [[0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x90, 0xb3], [0xed, 0x9f, 0xbf], [0xf4, 0x8f, 0xbf, 0xbf]];
  for (const [i, bytes] of [...invalid, ...valid].entries()) {
    const [before, after] = JSON.stringify(makeEvent({ message: "before|after" })).split("|");
    const line = Buffer.concat([Buffer.from(before!), Buffer.from(bytes), Buffer.from(`${after}\n`)]);
    const { at, end } = loadBlock(line, 0, line.length);
    scanBlockLine(at, end, scanned);
    const text = line.toString("utf8", 0, line.length - 1);
    t.ok(scanned.isEvent, `sequence ${i}: an event`);
    t.equal(scanned.event === undefined, i >= invalid.length, `sequence ${i}: read as bytes only if well-formed`);
    t.same(fieldsOf(scanned), fieldsOf(scanObject(parseEventLine(text)!)), `sequence ${i}: the fields of the decoded line`);
  }
});
