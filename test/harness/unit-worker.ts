import t from "tap";
import { pathToFileURL } from "node:url";
import type { UnitMessage, UnitNext } from "./run-unit.js";

// One of the processes `npm run test:unit` (run-unit.ts) runs the unit files in: it asks for a
// file, imports it, waits until every test that file added has ended, reports, and asks again,
// until there is none left. The files' tests join this process's root test, as in
// test/unit-suite.test.ts; what a file sets on the root for its own tests (t.jobs, a timeout) is
// put back before the next file, so that each file runs as `npx tap FILE` runs it.

/** As tap's configuration (package.json): a file that runs longer has hung. */
const FILE_TIMEOUT_MS = 300_000;

let added = 0;
let ended = 0;
let settled: (() => void) | undefined;
t.on("subtestAdd", () => added++);
t.on("subtestEnd", () => {
  ended++;
  if (ended === added) settled?.();
});

/** Resolves once every test added so far has ended. */
const allEnded = () =>
  ended === added
    ? Promise.resolve()
    : new Promise<void>((resolve) => (settled = resolve)).finally(() => (settled = undefined));

// tap unrefs the IPC channel (its own runner's timeout messages must not keep a test alive); here
// it must not be: waiting for the next file, the process has nothing else to do. tap does that
// when its root test is piped to stdout, which it otherwise does at the root's first output.
t.pipe(process.stdout);
process.channel?.ref();
let answer: ((file: string | undefined) => void) | undefined;
process.on("message", (message: UnitNext) => answer?.(message.file));
const nextFile = () =>
  new Promise<string | undefined>((resolve) => {
    answer = resolve;
    process.send?.({ unit: "ready" } satisfies UnitMessage);
  });

for (;;) {
  let file: string | undefined;
  let failedBefore = 0;
  let started = 0;
  let unloadable: unknown;
  // The root test waits on the next file and its import: idle, it would end itself (tap ends its
  // root once idle when a file has set a teardown on it), and the next file's tests come too late.
  await t.waitOn(
    nextFile().then(async (next) => {
      file = next;
      if (next === undefined) return;
      t.jobs = 1;
      t.setTimeout(FILE_TIMEOUT_MS);
      failedBefore = t.counts.fail;
      started = performance.now();
      // As node running the file alone would: a file that cannot be loaded fails.
      await import(pathToFileURL(next).href).catch((error: unknown) => (unloadable = error));
    }),
  );
  if (file === undefined) break;
  // Said on stderr, which run-unit.ts prints with the TAP output of a process a file failed in.
  if (unloadable !== undefined) console.error(`${file} could not be loaded:`, unloadable);
  // Nothing is awaited between here and the next waitOn, so that tap cannot find the root idle. (A
  // failure tap reports on the root after its test ended, a teardown's, may count for the next file.)
  await allEnded();
  const seconds = (performance.now() - started) / 1000;
  const ok = unloadable === undefined && t.counts.fail === failedBefore;
  process.send?.({ unit: "done", file, seconds, ok } satisfies UnitMessage);
}
process.disconnect();
