import t from "tap";
import { eventKey, eventKeyOf } from "../../lib/events/event-key.js";
import { EventFold, foldEvents, toFoldedEvent, type FoldedRow } from "../../lib/events/fold.js";
import { createRecorder } from "../../lib/events/recorder.js";
import { toInvolvedObject, type KubeEvent } from "../../lib/events/types.js";
import { makeEvent, makeRepeats } from "./fixtures/make-event.js";

// Events go in as the log holds them: one JSON line each, as `podrun events` reads them.
function foldLines(events: readonly KubeEvent[]): FoldedRow[] {
  const fold = new EventFold();
  for (const event of events) fold.addLine(JSON.stringify(event));
  return fold.sortedRows();
}

const timesOf = (row: FoldedRow) => [toFoldedEvent(row).firstTimestamp, toFoldedEvent(row).lastTimestamp];

const T0 = Date.parse("2025-03-01T12:00:00Z");
const MIN = 60_000;

t.test("lines of one name: the last (highest count) wins, not a sum", async (t) => {
  const lines = makeRepeats({
    reason: "BackOff",
    message: "Back-off pulling image",
    first: T0,
    times: 3,
    everyMs: 10_000,
  });
  const rows = foldLines(lines);
  t.equal(rows.length, 1);
  t.equal(rows[0]!.count, 3);
  t.same(timesOf(rows[0]!), ["2025-03-01T12:00:00Z", "2025-03-01T12:00:20Z"]);
});

t.test("the same event of several runs (a new pod uid and name each time) folds into one row", async (t) => {
  const run1 = makeRepeats({
    uid: "uid-1",
    name: "web.1",
    container: "app",
    reason: "BackOff",
    message: "m",
    first: T0,
    times: 2,
    everyMs: MIN,
  });
  const run2 = makeRepeats({
    uid: "uid-2",
    name: "web.2",
    container: "app",
    reason: "BackOff",
    message: "m",
    first: T0 + 30 * MIN,
    times: 3,
    everyMs: MIN,
  });
  const rows = foldLines([...run1, ...run2]);
  t.equal(rows.length, 1);
  const [row] = rows;
  t.equal(row!.count, 5, "2 + 3");
  t.same(timesOf(row!), ["2025-03-01T12:00:00Z", "2025-03-01T12:32:00Z"], "the earliest first, the latest last");
  const event = toFoldedEvent(row!);
  t.equal(event.metadata.name, "web.2", "the latest run's event stands for the row");
  t.equal(event.involvedObject.uid, "uid-2");
  t.same(event, { ...run2[2], count: 5, firstTimestamp: "2025-03-01T12:00:00Z" }, "otherwise the event as logged");
  t.same(foldEvents([...run1, ...run2]).map(toFoldedEvent), [event], "events folded as objects give the same row");
});

t.test(
  "anything but the uid and name keeps rows apart: object, container, namespace, type, reason, message",
  async (t) => {
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
      makeEvent({ ...base, name: "i", uid: "another-run", host: "another-host" }), // folds into a
    ]);
    t.equal(rows.length, 8);
    t.equal(rows.find((row) => row.latestName === "i")?.count, 2);
  },
);

t.test("the recorder counts repeats by the key the fold folds by, with the pod's uid", async (t) => {
  const logged: KubeEvent[] = [];
  const recorder = createRecorder({ sinks: [{ write: (event) => logged.push(event) }], clock: () => T0, host: "h" });
  const run1 = toInvolvedObject({ name: "web", namespace: "default", uid: "u1" }, { name: "app" });
  const run2 = { ...run1, uid: "u2" };
  for (const object of [run1, run1, run2, run1, run2])
    recorder.event(object, "Normal", "BackOff", "Back-off pulling image");
  recorder.event(run1, "Normal", "BackOff", "another message");
  t.same(
    logged.map((event) => [event.involvedObject.uid, event.count]),
    [
      ["u1", 1],
      ["u1", 2],
      ["u2", 1],
      ["u1", 3],
      ["u2", 2],
      ["u1", 1],
    ],
    "one count per uid and key",
  );
  t.equal(new Set(logged.slice(0, 5).map(eventKeyOf)).size, 1, "the repeats of both runs have one fold key");
  t.equal(
    eventKeyOf(logged[0]!),
    eventKey(run1, "Normal", "BackOff", "Back-off pulling image"),
    "the key of a logged event is the recorder's",
  );
  t.same(
    foldLines(logged).map((row) => [row.event.message, row.count]),
    [
      ["Back-off pulling image", 5],
      ["another message", 1],
    ],
    "the fold counts 3 + 2",
  );
});

t.test(
  "a foreign line is read leniently: a missing namespace is the event's, missing fields are keyed too",
  async (t) => {
    const full = makeEvent({ name: "full" });
    const sparse = {
      ...full,
      metadata: { name: "sparse", namespace: "default" },
      involvedObject: { kind: "Pod", name: "web", uid: "x", fieldPath: undefined },
    };
    t.equal(
      eventKeyOf(sparse as unknown as KubeEvent),
      eventKeyOf(full),
      "the object's namespace comes from the event's",
    );
    const bare = { kind: "Event", metadata: { name: "n" }, involvedObject: {} } as unknown as KubeEvent;
    t.equal(eventKeyOf(bare), JSON.stringify([null, "default", null, "", null, null, null]));
    const other = { ...bare, metadata: { name: "m" } } as unknown as KubeEvent;
    t.same(
      foldEvents([bare, other]).map((row) => row.count),
      [2],
      "two such events fold together",
    );
  },
);

t.test("a line read twice (a rotation during a read) counts once; a name first seen at count n counts n", async (t) => {
  const [one, two, three] = makeRepeats({ name: "web.1", first: T0, times: 3, everyMs: 1000 });
  const fold = new EventFold();
  t.ok(fold.add(one!));
  t.ok(fold.add(two!));
  t.equal(fold.add(two!), undefined, "the same line again changes nothing");
  t.equal(fold.add(one!), undefined, "an older line of the name changes nothing");
  fold.add(three!);
  t.equal(fold.sortedRows()[0]!.count, 3);

  // Its earlier lines went with a dropped rotated file: the line still says how often it happened.
  const rows = foldLines([makeEvent({ name: "db.1", pod: "db", count: 4 })]);
  t.equal(rows[0]!.count, 4);
});

t.test("torn, foreign and empty lines are skipped: not JSON, JSON that is no event", async (t) => {
  const fold = new EventFold();
  const line = JSON.stringify(makeEvent({ name: "whole" }));
  for (const junk of [
    line.slice(0, 120),
    "not json",
    "",
    "null",
    "42",
    '"Event"',
    '{"kind":"Pod","metadata":{"name":"p"}}',
    '{"kind":"Event","metadata":{"name":"n"}}',
    '{"kind":"Event","involvedObject":{}}',
  ]) {
    t.equal(fold.addLine(junk), undefined, junk);
  }
  t.ok(fold.addLine(line));
  t.same(
    fold.sortedRows().map((row) => row.event.metadata.name),
    ["whole"],
  );
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

t.test("notBeforeMs: events last seen before it are left out, line by line; unknown times stay", async (t) => {
  const notBeforeMs = T0 + 10 * MIN;
  const backoff = makeRepeats({
    name: "web.b",
    reason: "BackOff",
    message: "m",
    first: T0,
    times: 3,
    everyMs: 10 * MIN,
  });
  const unknown = { ...makeEvent({ name: "web.u", reason: "Unknown" }), firstTimestamp: "", lastTimestamp: "" };
  const rows = foldEvents([makeEvent({ name: "web.old", first: T0 }), ...backoff, unknown], { notBeforeMs });
  t.same(
    rows.map((row) => [row.event.reason, row.count, ...timesOf(row)]),
    [
      ["Unknown", 1, "", ""],
      ["BackOff", 3, "2025-03-01T12:00:00Z", "2025-03-01T12:20:00Z"],
    ],
    "the repeat seen since counts its total, as its line says",
  );
});

t.test("accept: asked once per key; the lines of a key it rejects make no row", async (t) => {
  const asked: string[] = [];
  const fold = new EventFold({
    accept: (event) => {
      asked.push(`${event.involvedObject.name}/${event.reason}`);
      return event.reason !== "BackOff";
    },
  });
  for (const run of [1, 2]) {
    t.equal(fold.add(makeEvent({ name: `web.b${run}`, uid: `u${run}`, reason: "BackOff" })), undefined, "rejected");
    t.ok(fold.add(makeEvent({ name: `web.p${run}`, uid: `u${run}`, reason: "Pulled" })), "accepted");
  }
  t.same(asked, ["web/BackOff", "web/Pulled"]);
  t.same(
    fold.sortedRows().map((row) => [row.event.reason, row.count]),
    [["Pulled", 2]],
  );
});
