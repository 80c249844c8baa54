import t from "tap";
import { EventFolder, toFoldedEvent } from "../../lib/events/fold.js";
import { createScannedLine, scanEventLine } from "../../lib/events/line-scan.js";
import type { KubeEvent } from "../../lib/events/types.js";
import { makeEvent, makeRepeats } from "./fixtures/make-event.js";

// Folding parts of the log apart (worker threads) and appending them in order must give exactly
// the rows of one fold over the whole log, wherever the cuts fall: in the middle of a run of
// repeats, between two lines of one name, on a row seen only before or only after a cut.

const T0 = Date.parse("2025-03-01T12:00:00Z");
const MIN = 60_000;

function fold(events: readonly KubeEvent[]): EventFolder {
  const folder = new EventFolder();
  const scanned = createScannedLine();
  for (const event of events) {
    const line = JSON.stringify(event);
    if (!scanEventLine(line, scanned)) throw new Error(`not an event line: ${line}`);
    folder.add(scanned, line);
  }
  return folder;
}

// Through toState/fromState, as a worker's folder comes back.
const viaThread = (folder: EventFolder) => EventFolder.fromState(structuredClone(folder.toState()));
const rowsOf = (folder: EventFolder) => folder.sortedRows().map(toFoldedEvent);

// A log with runs of repeats (BackOff x5 under one name), the same event across runs (new names
// and uids), interleaved pods, and a repeat whose lines are far apart in the log.
function log(): KubeEvent[] {
  const events: KubeEvent[] = [];
  for (let run = 0; run < 6; run++) {
    const at = T0 + run * 10 * MIN;
    for (const pod of ["web", "db"]) {
      events.push(makeEvent({ pod, uid: `${pod}-${run}`, name: `${pod}.${run}a`, first: at }));
      const backoff = makeRepeats({ pod, uid: `${pod}-${run}`, name: `${pod}.${run}b`, reason: "BackOff", message: "Back-off pulling image", first: at + MIN, times: 1 + (run % 4), everyMs: 5000 });
      events.push(...backoff);
    }
    events.push(makeEvent({ pod: `once-${run}`, first: at + 2 * MIN }));
  }
  // A name whose repeats straddle most of the log.
  const late = makeRepeats({ pod: "web", uid: "web-x", name: "web.x", reason: "Unhealthy", type: "Warning", message: "Readiness probe failed", first: T0, times: 4, everyMs: 20 * MIN });
  events.splice(3, 0, late[0]!);
  events.splice(20, 0, late[1]!);
  events.splice(40, 0, late[2]!);
  events.push(late[3]!);
  return events;
}

t.test("two parts: every cut gives the rows of the whole", async (t) => {
  const events = log();
  const whole = rowsOf(fold(events));
  t.ok(whole.some((row) => row.count > 5), "the log has rows folded across runs");
  for (let cut = 0; cut <= events.length; cut++) {
    const first = viaThread(fold(events.slice(0, cut)));
    first.appendLater(fold(events.slice(cut)));
    t.strictSame(rowsOf(first), whole, `cut at line ${cut}`);
  }
});

t.test("three parts, folded by 'threads', appended left to right", async (t) => {
  const events = log();
  const whole = rowsOf(fold(events));
  for (let a = 0; a <= events.length; a += 3) {
    for (let b = a; b <= events.length; b += 4) {
      const merged = viaThread(fold(events.slice(0, a)));
      merged.appendLater(viaThread(fold(events.slice(a, b))));
      merged.appendLater(fold(events.slice(b)));
      t.strictSame(rowsOf(merged), whole, `cuts at ${a} and ${b}`);
    }
  }
});

t.test("a merged folder goes on folding new lines (--watch) as one that read everything", async (t) => {
  const events = log();
  const cut = Math.floor(events.length / 2);
  const merged = viaThread(fold(events.slice(0, cut)));
  merged.appendLater(fold(events.slice(cut, -1)));
  const scanned = createScannedLine();
  const line = JSON.stringify(events.at(-1));
  scanEventLine(line, scanned);
  merged.add(scanned, line);
  t.strictSame(rowsOf(merged), rowsOf(fold(events)));
});
