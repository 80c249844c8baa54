import t from "tap";
import { chooseThreads, MIN_BYTES_PER_THREAD, planCuts, rangesBetween } from "../../lib/events/parallel-fold.js";

t.test("threads: one per 4 MiB, at most the CPUs and 4; PODRUN_EVENTS_THREADS forces a number", async (t) => {
  t.equal(chooseThreads(MIN_BYTES_PER_THREAD - 1, 8, {}), 1, "a small log: one thread");
  t.equal(chooseThreads(3 * MIN_BYTES_PER_THREAD, 8, {}), 3);
  t.equal(chooseThreads(100 * MIN_BYTES_PER_THREAD, 2, {}), 2, "no more threads than CPUs");
  t.equal(chooseThreads(100 * MIN_BYTES_PER_THREAD, 16, {}), 4);
  t.equal(chooseThreads(10, 1, { PODRUN_EVENTS_THREADS: "3" }), 3);
  t.equal(chooseThreads(100 * MIN_BYTES_PER_THREAD, 8, { PODRUN_EVENTS_THREADS: "1" }), 1);
  t.equal(chooseThreads(100 * MIN_BYTES_PER_THREAD, 8, { PODRUN_EVENTS_THREADS: "x" }), 4, "not a number: ignored");
});

t.test("cuts split the bytes of all files evenly, in (file, offset) terms", async (t) => {
  t.strictSame(planCuts([100, 100, 100, 100], 2), [{ file: 2, offset: 0 }]);
  t.strictSame(planCuts([100, 100, 100, 100], 4), [{ file: 1, offset: 0 }, { file: 2, offset: 0 }, { file: 3, offset: 0 }]);
  t.strictSame(planCuts([300], 3), [{ file: 0, offset: 100 }, { file: 0, offset: 200 }]);
  t.strictSame(planCuts([50, 250], 2), [{ file: 1, offset: 100 }]);
});

t.test("ranges between line starts: whole old files end with their torn line, the current file never", async (t) => {
  const files = [
    { fd: 10, path: "events.ndjson.2", size: 100 },
    { fd: 11, path: "events.ndjson.1", size: 100 },
    { fd: 12, path: "events.ndjson", size: 100 },
  ];
  t.strictSame(
    rangesBetween([{ file: 0, offset: 0 }, { file: 1, offset: 40 }, { file: 2, offset: 60 }], files),
    [
      [
        { fd: 10, path: "events.ndjson.2", start: 0, end: 100, atFileEnd: true },
        { fd: 11, path: "events.ndjson.1", start: 0, end: 40, atFileEnd: false },
      ],
      [
        { fd: 11, path: "events.ndjson.1", start: 40, end: 100, atFileEnd: true },
        { fd: 12, path: "events.ndjson", start: 0, end: 60, atFileEnd: false },
      ],
    ],
  );
  t.strictSame(rangesBetween([{ file: 0, offset: 0 }, { file: 2, offset: 0 }], files)[0]!.map((r) => r.path), ["events.ndjson.2", "events.ndjson.1"], "a cut at a file start");
});
