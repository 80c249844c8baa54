import t from "tap";
import { EventFolder, foldEvents, toFoldedEvent, type FoldedRow } from "../../lib/events/fold.js";
import { createScannedLine, keyBucketOf, scanEvent, scanEventLine, type ScannedLine } from "../../lib/events/line-scan.js";
import type { KubeEvent } from "../../lib/events/types.js";
import { makeEvent, makeRepeats } from "./fixtures/make-event.js";

// Events go in as the log holds them: one JSON line each, scanned as `podrun events` does.
function addLine(folder: EventFolder, event: KubeEvent): FoldedRow | undefined {
  const line = JSON.stringify(event);
  const scanned = createScannedLine();
  if (!scanEventLine(line, scanned)) throw new Error(`not an event line: ${line}`);
  return folder.add(scanned);
}

function foldLines(events: readonly KubeEvent[]): FoldedRow[] {
  const folder = new EventFolder();
  for (const event of events) addLine(folder, event);
  return folder.sortedRows();
}

const timesOf = (row: FoldedRow) => [toFoldedEvent(row).firstTimestamp, toFoldedEvent(row).lastTimestamp];

const T0 = Date.parse("2025-03-01T12:00:00Z");
const MIN = 60_000;

t.test("lines of one name: the last (highest count) wins, not a sum", async (t) => {
  const lines = makeRepeats({ reason: "BackOff", message: "Back-off pulling image", first: T0, times: 3, everyMs: 10_000 });
  const rows = foldLines(lines);
  t.equal(rows.length, 1);
  t.equal(rows[0]!.count, 3);
  t.same(timesOf(rows[0]!), ["2025-03-01T12:00:00Z", "2025-03-01T12:00:20Z"]);
});

t.test("the same event of several runs (a new pod uid and name each time) folds into one row", async (t) => {
  const run1 = makeRepeats({ uid: "uid-1", name: "web.1", container: "app", reason: "BackOff", message: "m", first: T0, times: 2, everyMs: MIN });
  const run2 = makeRepeats({ uid: "uid-2", name: "web.2", container: "app", reason: "BackOff", message: "m", first: T0 + 30 * MIN, times: 3, everyMs: MIN });
  const rows = foldLines([...run1, ...run2]);
  t.equal(rows.length, 1);
  const [row] = rows;
  t.equal(row!.count, 5, "2 + 3");
  t.same(timesOf(row!), ["2025-03-01T12:00:00Z", "2025-03-01T12:32:00Z"], "the earliest first, the latest last");
  const event = toFoldedEvent(row!);
  t.equal(event.metadata.name, "web.2", "the latest run's event stands for the row");
  t.equal(event.involvedObject.uid, "uid-2");
  t.same([event.count, event.firstTimestamp, event.lastTimestamp], [5, "2025-03-01T12:00:00Z", "2025-03-01T12:32:00Z"]);
  t.same(event, { ...run2[2], count: 5, firstTimestamp: "2025-03-01T12:00:00Z" }, "otherwise the event as logged");
  t.same(foldEvents([...run1, ...run2]).map(toFoldedEvent), [event], "events folded as objects give the same row");
});

t.test("anything but the uid and name keeps rows apart: object, container, namespace, type, reason, message", async (t) => {
  const base = { first: T0, container: "app" };
  const rows = foldLines([
    makeEvent({ ...base, name: "a" }),
    makeEvent({ ...base, name: "b", pod: "db" }),
    makeEvent({ ...base, name: "c", container: "side" }),
    makeEvent({ first: T0, name: "d" }), // the pod itself
    makeEvent({ ...base, name: "e", namespace: "ci" }),
    makeEvent({ ...base, name: "f", type: "Warning" }),
    makeEvent({ ...base, name: "g", reason: "Pulling" }),
    makeEvent({ ...base, name: "h", message: "other" }),
    makeEvent({ ...base, name: "i", uid: "another-run" }), // folds into a
  ]);
  t.equal(rows.length, 8);
  t.equal(rows.find((row) => row.latestName === "i")?.count, 2);
});

t.test("a line read twice (a rotation during a read) counts once; a name first seen at count n counts n", async (t) => {
  const [one, two, three] = makeRepeats({ name: "web.1", first: T0, times: 3, everyMs: 1000 });
  const folder = new EventFolder();
  t.ok(addLine(folder, one!));
  t.ok(addLine(folder, two!));
  t.equal(addLine(folder, two!), undefined, "the same line again changes nothing");
  t.equal(addLine(folder, one!), undefined, "an older line of the name changes nothing");
  addLine(folder, three!);
  t.equal(folder.sortedRows()[0]!.count, 3);

  // Its earlier lines went with a dropped rotated file: the line still says how often it happened.
  const rows = foldLines([makeEvent({ name: "db.1", pod: "db", count: 4 })]);
  t.equal(rows[0]!.count, 4);
});

t.test("count 0 (the newer API's 'once') counts as 1", async (t) => {
  t.equal(foldLines([makeEvent({ count: 0 })])[0]!.count, 1);
  t.equal(foldEvents([makeEvent({ count: 0 })])[0]!.count, 1);
});

t.test("rows are sorted by last seen, oldest first; equal times keep log order", async (t) => {
  const rows = foldLines([
    makeEvent({ name: "late", reason: "Late", first: T0 + 5 * MIN }),
    makeEvent({ name: "early", reason: "Early", first: T0 }),
    makeEvent({ name: "same-1", reason: "Same1", first: T0 + MIN }),
    makeEvent({ name: "same-2", reason: "Same2", first: T0 + MIN }),
    makeEvent({ name: "early-again", reason: "Early", first: T0 + 10 * MIN, uid: "run-2" }),
  ]);
  t.same(
    rows.map((row) => row.event.reason),
    ["Same1", "Same2", "Late", "Early"],
    "Early was seen again last",
  );
});

t.test("memory: one row per key, and a bounded set of names per row, however many runs", async (t) => {
  const folder = new EventFolder();
  for (let run = 0; run < 5000; run++) {
    for (const event of makeRepeats({ name: `web.${run}`, uid: `u${run}`, first: T0 + run * MIN, times: 2, everyMs: 1000 })) addLine(folder, event);
  }
  const rows = folder.sortedRows();
  t.equal(rows.length, 1);
  t.equal(rows[0]!.count, 10_000);
  t.ok(rows[0]!.names.size <= 16, `${rows[0]!.names.size} names kept`);
});

t.test("an object with many distinct events: rows stay one per key past the one-by-one lookup", async (t) => {
  const events: KubeEvent[] = [];
  for (let run = 0; run < 3; run++) {
    for (let i = 0; i < 50; i++) events.push(makeEvent({ name: `web.${run}.${i}`, uid: `u${run}`, reason: `Reason${i % 7}`, message: `message ${i}`, first: T0 + run * MIN + i }));
  }
  const rows = foldLines(events);
  t.equal(rows.length, 50);
  t.ok(rows.every((row) => row.count === 3), "each folded across the 3 runs");
  t.same(new Set(rows.map((row) => row.event.message)).size, 50);
});

t.test("accept: asked once per key; the lines of a key it rejects make no row", async (t) => {
  const asked: string[] = [];
  const folder = new EventFolder((event) => {
    asked.push(`${event.involvedObject.name}/${event.reason}`);
    return event.reason !== "BackOff";
  });
  for (const run of [1, 2]) {
    t.equal(addLine(folder, makeEvent({ name: `web.b${run}`, uid: `u${run}`, reason: "BackOff" })), undefined, "rejected");
    t.ok(addLine(folder, makeEvent({ name: `web.p${run}`, uid: `u${run}`, reason: "Pulled" })), "accepted");
  }
  t.same(asked, ["web/BackOff", "web/Pulled"]);
  const rows = folder.sortedRows();
  t.same(rows.map((row) => [row.event.reason, row.count]), [["Pulled", 2]]);
});

t.test("keys are told apart by all 64 bits of their hash, not by the low bits rows are mapped by", async (t) => {
  // Forced collisions: hashes this close do not happen by chance in a test's few keys.
  const scan = (event: KubeEvent, keyHash: number, keyCheck: number): ScannedLine => {
    const scanned = createScannedLine();
    scanEvent(event, scanned);
    Object.assign(scanned, { keyHash, keyCheck, keyBucket: keyBucketOf(keyHash) });
    return scanned;
  };
  const folder = new EventFolder((event) => event.reason !== "Rejected");
  const bucket = 12345;
  folder.add(scan(makeEvent({ reason: "A", name: "a.1", count: 2 }), bucket, 1));
  folder.add(scan(makeEvent({ reason: "B", name: "b.1" }), bucket + 2 ** 30, 1)); // same low 30 bits
  folder.add(scan(makeEvent({ reason: "C", name: "c.1" }), bucket, 2)); // same 53 bits, another check
  folder.add(scan(makeEvent({ reason: "Rejected", name: "r.1" }), bucket + 2 ** 31, 1));
  folder.add(scan(makeEvent({ reason: "A", name: "a.2", count: 3 }), bucket, 1));
  folder.add(scan(makeEvent({ reason: "B", name: "b.2" }), bucket + 2 ** 30, 1));
  folder.add(scan(makeEvent({ reason: "Rejected", name: "r.2" }), bucket + 2 ** 31, 1));
  const rows = folder.sortedRows().map((row) => [row.event.reason, row.count, row.latestName]);
  t.same(rows, [
    ["C", 1, "c.1"],
    ["A", 5, "a.2"],
    ["B", 2, "b.2"],
  ]);
});
