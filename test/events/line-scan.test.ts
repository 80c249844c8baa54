import t from "tap";
import { createScannedLine, scanEvent, scanEventLine, type ScannedLine } from "../../lib/events/line-scan.js";
import type { KubeEvent } from "../../lib/events/types.js";
import { makeEvent } from "./fixtures/make-event.js";

// Lines in the recorder's layout are walked by hand, others go through JSON.parse: both ways must
// give the same fields and fold key, or the same event would fold into two rows.

const fieldsOf = ({ event: _event, ...fields }: ScannedLine) => fields;

function scanLine(line: string): ScannedLine | undefined {
  const out = createScannedLine();
  return scanEventLine(line, out) ? out : undefined;
}

function scanObject(event: KubeEvent): ScannedLine {
  const out = createScannedLine();
  scanEvent(event, out);
  return out;
}

t.test("a recorder line and its event object scan the same, escapes and all", async (t) => {
  const messages = ['Pulling image "busybox"', "back\\slash, tab\there, é, 雪, emoji 🐳", "line one\nline two", "", '","type":"x'];
  for (const message of messages) {
    for (const container of [undefined, "app"]) {
      const event = makeEvent({ message, container, count: 7, first: Date.parse("2025-03-01T12:00:00Z"), last: Date.parse("2025-03-01T12:05:00Z") });
      const fast = scanLine(JSON.stringify(event));
      t.ok(fast, `scanned: ${JSON.stringify(message)}`);
      t.equal(fast?.event, undefined, "without JSON.parse");
      t.same(fieldsOf(fast!), fieldsOf(scanObject(event)), `same fields: ${JSON.stringify(message)} ${container ?? "pod"}`);
      t.same([fast!.count, fast!.firstMs, fast!.lastMs], [7, Date.parse("2025-03-01T12:00:00Z"), Date.parse("2025-03-01T12:05:00Z")]);
    }
  }
});

t.test("another key order, extra fields or an escaped name: JSON.parse, same fields", async (t) => {
  const event = makeEvent({ container: "app", count: 2 });
  const reversed = Object.fromEntries(Object.entries({ ...event, related: { kind: "Node", name: "n" } }).reverse());
  const slow = scanLine(JSON.stringify(reversed))!;
  t.ok(slow.event, "read by JSON.parse");
  t.same(fieldsOf(slow), fieldsOf(scanObject(event)));

  const quoted = makeEvent({ pod: 'we"b', name: 'we"b.1' });
  const scanned = scanLine(JSON.stringify(quoted))!;
  t.ok(scanned.event, "an escape in a name: JSON.parse");
  t.equal(scanned.name, 'we"b.1');
  t.ok(scanned.objectKey.includes('"name":"we\\"b"'), "strings of the key stay as JSON writes them, as the fast path has them");
});

t.test("count 0 (the newer API's 'once') scans as 1", async (t) => {
  t.equal(scanLine(JSON.stringify(makeEvent({ count: 0 })))!.count, 1);
  t.equal(scanObject(makeEvent({ count: 0 })).count, 1);
});

t.test("torn lines and lines that are not events do not scan", async (t) => {
  const line = JSON.stringify(makeEvent({ container: "app" }));
  const torn = [line.slice(0, -1), line.slice(0, 120), line.slice(0, line.indexOf('"count"') + 9), `${line}x`, `${line}${line}`];
  for (const bad of [...torn, "not json", '{"kind":"Pod"}', "null", "[]", '{"kind":"Event","metadata":{}}']) {
    t.equal(scanLine(bad), undefined, bad.slice(0, 40));
  }
});
