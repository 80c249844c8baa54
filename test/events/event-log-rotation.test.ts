import t, { type Test } from "tap";
import { execFile } from "node:child_process";
import { appendFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { openEventLog, readEventLog, readMaxBytes } from "../../lib/events/event-log.js";
import { DEFAULT_MAX_BYTES, logFilePath, logLockPath, rotateEventLog } from "../../lib/events/log-files.js";
import { createRecorder } from "../../lib/events/recorder.js";
import { toInvolvedObject, type KubeEvent } from "../../lib/events/types.js";

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-rotation-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function readAll(dir: string): Promise<{ events: KubeEvent[]; invalid: number }> {
  const events: KubeEvent[] = [];
  let invalid = 0;
  for await (const event of readEventLog(dir, { onInvalidLine: () => invalid++ })) events.push(event);
  return { events, invalid };
}

// The size of a logged event with this message, as the recorder (and the fixture) writes it.
function lineBytesOf(message: string, host?: string): number {
  let line = "";
  createRecorder({ sinks: [{ write: (e) => (line = JSON.stringify(e)) }], ...(host ? { host } : {}) }).event(
    OBJECT,
    "Normal",
    "Pulled",
    message,
  );
  return Buffer.byteLength(line) + 1;
}

const countLines = async (file: string) => (await readFile(file, "utf8")).split("\n").filter(Boolean).length;
const OBJECT = toInvolvedObject({ name: "web", namespace: "default", uid: "u" }, { name: "app" });

// Appends `count` distinct events numbered from `from` through `log`.
async function appendNumbered(
  log: Awaited<ReturnType<typeof openEventLog>>,
  from: number,
  count: number,
): Promise<void> {
  const recorder = createRecorder({ sinks: [], log, host: "h" });
  for (let i = from; i < from + count; i++) recorder.event(OBJECT, "Normal", "Pulled", `event ${i}`);
  await recorder.flush();
}

t.test("past the size limit the log rotates to .1, .2, .3; the oldest file is dropped", async (t) => {
  const dir = await tempDir(t);
  const maxBytes = 2000;
  const log = await openEventLog(dir, { maxBytes });
  await appendNumbered(log, 0, 60);
  await log.close();

  const files = (await readdir(dir)).sort();
  t.same(
    files,
    ["events.ndjson", "events.ndjson.1", "events.ndjson.2", "events.ndjson.3"],
    "three old files, no lock left behind",
  );
  const lineBytes = (await readFile(logFilePath(dir, 1), "utf8")).split("\n")[0]!.length + 1;
  for (const generation of [1, 2, 3]) {
    const { size } = await stat(logFilePath(dir, generation));
    t.ok(
      size >= maxBytes && size < maxBytes + lineBytes,
      `.${generation}: ${size} bytes, rotated once past ${maxBytes}`,
    );
  }
  const { events, invalid } = await readAll(dir);
  t.equal(invalid, 0);
  const numbers = events.map((e) => Number(e.message.split(" ")[1]));
  t.equal(numbers.at(-1), 59, "the newest event is there");
  t.same(
    numbers,
    Array.from({ length: numbers.length }, (_, i) => 60 - numbers.length + i),
    "oldest file first, in order, no gap",
  );
  const kept = (await Promise.all([0, 1, 2, 3].map((g) => countLines(logFilePath(dir, g))))).reduce((a, b) => a + b);
  t.equal(events.length, kept);
  t.ok(kept < 60, `${60 - kept} of the oldest events went with the dropped files`);
});

t.test("a writer holding the old file follows the rotation another writer did", async (t) => {
  const dir = await tempDir(t);
  const maxBytes = lineBytesOf("event 0", "h") * 3.5;
  const a = await openEventLog(dir, { maxBytes });
  const b = await openEventLog(dir, { maxBytes });
  await appendNumbered(a, 0, 4); // past the limit
  await appendNumbered(b, 4, 1); // b notices and rotates
  await appendNumbered(a, 5, 1); // a still has the old file open
  await Promise.all([a.close(), b.close()]);
  t.equal(await countLines(logFilePath(dir, 1)), 4, "the full file was rotated once");
  const current = (await readFile(logFilePath(dir), "utf8"))
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as KubeEvent).message);
  t.same(current, ["event 4", "event 5"], "both writers append to the new file");
});

t.test("two writers that see the same full file rotate it once", async (t) => {
  const dir = await tempDir(t);
  const log = await openEventLog(dir, { maxBytes: 100 });
  await appendNumbered(log, 0, 1);
  await log.close();
  const { ino } = await stat(logFilePath(dir));
  t.equal(await rotateEventLog(dir, ino, { maxBytes: 100 }), true);
  t.equal(await rotateEventLog(dir, ino, { maxBytes: 100 }), false, "the second finds it done");
  t.same((await readdir(dir)).sort(), ["events.ndjson.1"]);
});

t.test("no event is lost when two processes append concurrently across rotations", async (t) => {
  const dir = await tempDir(t);
  const child = fileURLToPath(new URL("./fixtures/append-events.ts", import.meta.url));
  const perChild = 150;
  // Three rotations and a bit: every file rotates, none is dropped yet (that would lose events on purpose).
  const maxBytes = Math.floor((2 * perChild * lineBytesOf(`100 ${"a".repeat(200)}`)) / 3.5);
  await Promise.all(
    ["a", "b"].map((name) =>
      promisify(execFile)(
        process.execPath,
        ["--import", "tsx", child, dir, name, String(perChild), String(maxBytes), "200"],
        { timeout: 120_000 },
      ),
    ),
  );
  const files = (await readdir(dir)).sort();
  t.same(files, ["events.ndjson", "events.ndjson.1", "events.ndjson.2", "events.ndjson.3"]);
  const lines = (await Promise.all(files.map((file) => countLines(join(dir, file))))).reduce((a, b) => a + b);
  t.equal(lines, 2 * perChild, "every line is in one of the files");
  const { events, invalid } = await readAll(dir);
  t.equal(invalid, 0, "no torn or interleaved line");
  for (const name of ["a", "b"]) {
    const own = events.filter((e) => e.involvedObject.name === name).map((e) => Number(e.message.split(" ")[0]));
    t.same(
      own,
      Array.from({ length: perChild }, (_, i) => i),
      `${name}: all ${perChild}, in its order`,
    );
  }
  for (const file of files.filter((f) => f !== "events.ndjson")) {
    const { size } = await stat(join(dir, file));
    t.ok(
      size >= maxBytes && size < maxBytes * 1.1,
      `${file}: ${size} bytes, rotated once just past the limit of ${maxBytes}`,
    );
  }
});

t.test("a torn last line gets its newline back before the next event", async (t) => {
  const dir = await tempDir(t);
  await appendFile(logFilePath(dir), '{"apiVersion":"v1","kind":"Event","metadata":{"na');
  const log = await openEventLog(dir);
  await appendNumbered(log, 0, 1);
  await log.close();
  const { events, invalid } = await readAll(dir);
  t.same(
    events.map((e) => e.message),
    ["event 0"],
  );
  t.equal(invalid, 1, "the torn line alone is lost");
});

t.test("PODRUN_EVENT_LOG_MAX_BYTES sets the limit; anything but a positive integer keeps the default", async (t) => {
  t.equal(readMaxBytes({ PODRUN_EVENT_LOG_MAX_BYTES: "4096" }), 4096);
  for (const value of [undefined, "", "0", "-1", "1e6", "10MB", " 5"])
    t.equal(readMaxBytes({ PODRUN_EVENT_LOG_MAX_BYTES: value }), DEFAULT_MAX_BYTES, String(value));
});

const HOUR = 3_600_000;

// Old files last written `hoursAgo` (by their mtime), and a full current file.
async function agedLog(t: Test, hoursAgo: readonly number[]): Promise<{ dir: string; ino: number; now: number }> {
  const dir = await tempDir(t);
  const now = Date.now();
  for (const [i, hours] of hoursAgo.entries()) {
    const file = logFilePath(dir, i + 1);
    await writeFile(file, `old ${i + 1}\n`);
    const at = new Date(now - hours * HOUR);
    await utimes(file, at, at);
  }
  await writeFile(logFilePath(dir), "current\n");
  return { dir, ino: (await stat(logFilePath(dir))).ino, now };
}

// The log's files and their lines (not the lock's directories).
async function contentsOf(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).filter((file) => /^events\.ndjson(\.\d+)?$/.test(file)).sort();
  const entries = await Promise.all(
    files.map(async (file): Promise<[string, string]> => [file, (await readFile(join(dir, file), "utf8")).trim()]),
  );
  return Object.fromEntries(entries);
}

t.test("at rotation, old files last written before the retention are deleted; the rest shift as before", async (t) => {
  const { dir, ino, now } = await agedLog(t, [1, 80, 100]);
  t.equal(await rotateEventLog(dir, ino, { maxBytes: 1, retentionMs: 72 * HOUR, now: () => now }), true);
  t.same(
    await contentsOf(dir),
    { "events.ndjson.1": "current", "events.ndjson.2": "old 1" },
    ".2 (80h) moved to .3 and went with the old .3 (100h): both past 72h",
  );

  const kept = await agedLog(t, [1, 80, 100]);
  await rotateEventLog(kept.dir, kept.ino, { maxBytes: 1, retentionMs: Number.POSITIVE_INFINITY, now: () => kept.now });
  t.same(
    await contentsOf(kept.dir),
    { "events.ndjson.1": "current", "events.ndjson.2": "old 1", "events.ndjson.3": "old 2" },
    "no retention: only the size limits drop files",
  );
});

t.test("no rotation, no pruning: a log under its size limit keeps its old files whatever their age", async (t) => {
  const { dir, ino, now } = await agedLog(t, [500]);
  t.equal(await rotateEventLog(dir, ino, { maxBytes: 1000, retentionMs: HOUR, now: () => now }), false);
  t.same(await contentsOf(dir), { "events.ndjson": "current", "events.ndjson.1": "old 1" });
});

t.test("pruning happens under the lock: a rotation waits for the holder, then prunes", async (t) => {
  const { dir, ino, now } = await agedLog(t, [1, 100]);
  // Another process holds the lock (a live owner: this one).
  await mkdir(logLockPath(dir));
  await writeFile(
    join(logLockPath(dir), "owner.json"),
    JSON.stringify({ pid: process.pid, host: hostname(), token: "other", sinceMs: Date.now() }),
  );
  const rotating = rotateEventLog(dir, ino, { maxBytes: 1, retentionMs: 72 * HOUR, now: () => now });
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.same(
    Object.keys(await contentsOf(dir)),
    ["events.ndjson", "events.ndjson.1", "events.ndjson.2"],
    "nothing moved or deleted while the lock is held",
  );
  // Released in one step (a rename out of the directory): a recursive rm empties the lock before
  // it removes it, and the waiting rotation may take the emptied lock in between.
  await rename(logLockPath(dir), `${dir}-released.lock`);
  await rm(`${dir}-released.lock`, { recursive: true });
  t.equal(await rotating, true);
  t.same(
    await contentsOf(dir),
    { "events.ndjson.1": "current", "events.ndjson.2": "old 1" },
    "then rotated and pruned, the lock released",
  );
});

t.test(
  "a writer prunes with $PODRUN_EVENTS_RETENTION (a bad value: the default), and --retention is the listing's",
  async (t) => {
    for (const [value, expected] of [
      ["1h", ["events.ndjson", "events.ndjson.1"]],
      ["not-a-duration", ["events.ndjson", "events.ndjson.1", "events.ndjson.2"]],
    ] as const) {
      const { dir } = await agedLog(t, [2]);
      const log = await openEventLog(dir, { maxBytes: 1, env: { PODRUN_EVENTS_RETENTION: value } });
      await appendNumbered(log, 0, 1); // rotates "current" into .1, the 2 h old file into .2
      await log.close();
      t.same((await readdir(dir)).sort(), expected, value);
    }
  },
);
