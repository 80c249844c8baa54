import t, { type Test } from "tap";
import { existsSync } from "node:fs";
import { appendFile, cp, mkdir, mkdtemp, readFile, rename, rm, stat, truncate, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { events, type EventsOptions } from "../../lib/commands/events.js";
import { CHECKPOINT_FILE, checkpointPath } from "../../lib/events/fold-checkpoint.js";
import { logFilePath } from "../../lib/events/log-files.js";
import type { KubeEvent } from "../../lib/events/types.js";
import { makeEvent, toLines } from "./fixtures/make-event.js";

// The checkpoint is a cache: every listing that uses it must print exactly what a listing that
// reads every line prints (the reference here: the same files copied to a directory without
// one), to the count, whatever was appended, rotated, torn or broken since it was written.

const NOW = Date.parse("2025-03-01T18:00:00Z");
const T0 = Date.parse("2025-03-01T12:00:00Z");

async function list(dir: string, options: Partial<EventsOptions> = {}, env: NodeJS.ProcessEnv = { PODRUN_EVENTS_CHECKPOINT_BYTES: "0" }): Promise<{ stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on("data", (chunk: Buffer) => out.push(chunk));
  stderr.on("data", (chunk: Buffer) => err.push(chunk));
  await events({ wide: false, json: false, watch: false, stateDir: dir, env: { NO_COLOR: "1", ...env }, stdout, stderr, now: () => NOW, ...options });
  return { stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-checkpoint-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** What reading every line gives: the log files alone, in a directory of their own. */
async function fromScratch(t: Test, dir: string, options: Partial<EventsOptions> = {}): Promise<string> {
  const copy = await tempDir(t);
  await cp(dir, copy, { recursive: true, filter: (source) => !source.endsWith(CHECKPOINT_FILE) });
  return (await list(copy, { ...options, json: true }, { PODRUN_EVENTS_CHECKPOINT_BYTES: String(2 ** 40) })).stdout;
}

async function checkpointHeader(dir: string): Promise<{ current: { offset: number }; rows: number; lineCount: number } | undefined> {
  const text = await readFile(checkpointPath(dir), "utf8").catch(() => undefined);
  return text === undefined ? undefined : JSON.parse(text.slice(0, text.indexOf("\n")));
}

// A log as runs leave it: pods in two namespaces, runs that interleave, repeats of one name
// whose count goes on in a later line (so across a checkpoint), hand-written lines in another
// key order, a name with an escape, times missing or not in the recorder's layout.
function* randomEvents(seed: number): Generator<KubeEvent> {
  let state = seed;
  const random = () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let clock = T0;
  let run = 0;
  const open: KubeEvent[] = []; // events whose name may repeat with a higher count
  for (;;) {
    clock += Math.floor(random() * 20_000);
    const roll = random();
    if (roll < 0.25 && open.length > 0) {
      const event = pick(open);
      event.count! += 1;
      event.lastTimestamp = new Date(clock).toISOString().replace(/\.\d+Z$/, "Z");
      yield { ...event };
      continue;
    }
    run++;
    const pod = pick(["web", "db", 'q"uote', "cache"]);
    const event = makeEvent({
      pod,
      namespace: pick(["default", "ci"]),
      uid: `${pod}-${run}`,
      container: pick([undefined, "app", "sidecar"]),
      type: pick(["Normal", "Warning"]),
      reason: pick(["Pulled", "BackOff", "Failed", "Unhealthy"]),
      message: pick(['Back-off pulling image "busybox:1.36"', "probe failed: é 雪\ttab", "Failed: not found", ""]),
      name: `${pod}.${run.toString(16)}`,
      first: clock,
    });
    if (random() < 0.3) open.push(event);
    if (open.length > 20) open.shift();
    if (roll > 0.95) yield Object.fromEntries(Object.entries(event).reverse()) as unknown as KubeEvent; // another writer's key order
    else if (roll > 0.93) yield { ...event, firstTimestamp: "", lastTimestamp: "2025-03-01T12:00:00.250+01:00" };
    else yield { ...event };
  }
}

function take(source: Iterator<KubeEvent>, count: number): KubeEvent[] {
  return Array.from({ length: count }, () => source.next().value as KubeEvent);
}

t.test("listing on from a checkpoint gives what reading every line gives, appends after appends", async (t) => {
  for (const seed of [1, 2, 3]) {
    const dir = await tempDir(t);
    const source = randomEvents(seed);
    await writeFile(logFilePath(dir), toLines(take(source, 200)));
    for (let step = 0; step < 8; step++) {
      const listed = await list(dir, { json: true });
      t.equal(listed.stdout, await fromScratch(t, dir), `seed ${seed}, step ${step}`);
      t.equal(listed.stderr, "");
      t.ok(await checkpointHeader(dir), "a checkpoint is left");
      await appendFile(logFilePath(dir), toLines(take(source, 1 + step * 37)));
    }
    // The table (ages, alignment, folded counts) too, not only the JSON.
    const copy = await tempDir(t);
    await cp(logFilePath(dir), logFilePath(copy));
    t.equal((await list(dir)).stdout, (await list(copy, {}, {})).stdout, `seed ${seed}: table`);
  }
});

t.test("a torn last line is not covered: completed later, it is read then", async (t) => {
  const dir = await tempDir(t);
  const [first, second] = [makeEvent({ name: "web.1", reason: "Pulled" }), makeEvent({ name: "web.2", reason: "Started", message: "Started container app" })];
  const secondLine = JSON.stringify(second);
  await writeFile(logFilePath(dir), `${JSON.stringify(first)}\n${secondLine.slice(0, 50)}`);
  await list(dir, { json: true });
  t.equal((await checkpointHeader(dir))?.current.offset, JSON.stringify(first).length + 1, "the checkpoint stops before the unfinished line");
  await appendFile(logFilePath(dir), `${secondLine.slice(50)}\n`);
  const listed = await list(dir, { json: true });
  t.equal(listed.stdout.trim().split("\n").length, 2, "the completed line is an event");
  t.equal(listed.stdout, await fromScratch(t, dir));
});

t.test("after a rotation, or a file rewritten, the checkpoint is not used, and is replaced", async (t) => {
  const dir = await tempDir(t);
  const source = randomEvents(7);
  await writeFile(logFilePath(dir), toLines(take(source, 300)));
  await list(dir, { json: true });
  const before = await checkpointHeader(dir);

  await rename(logFilePath(dir), logFilePath(dir, 1)); // a rotation…
  await writeFile(logFilePath(dir), toLines(take(source, 50))); // …and the next writer
  t.equal((await list(dir, { json: true })).stdout, await fromScratch(t, dir), "rotated: same as reading every line");
  t.not((await checkpointHeader(dir))?.lineCount, before?.lineCount, "a new checkpoint");

  await appendFile(logFilePath(dir, 1), toLines(take(source, 3))); // a late writer of the old file
  t.equal((await list(dir, { json: true })).stdout, await fromScratch(t, dir), "a late line in the rotated file is read");

  // The current file rewritten (same inode) with other lines, as long as before or longer.
  const size = (await stat(logFilePath(dir))).size;
  await truncate(logFilePath(dir), 0);
  await writeFile(logFilePath(dir), toLines(take(source, 80)));
  t.ok((await stat(logFilePath(dir))).size >= size);
  t.equal((await list(dir, { json: true })).stdout, await fromScratch(t, dir), "rewritten: same as reading every line");
});

t.test("a broken checkpoint is ignored and replaced, silently", async (t) => {
  const dir = await tempDir(t);
  await writeFile(logFilePath(dir), toLines(take(randomEvents(11), 300)));
  const expected = await fromScratch(t, dir);
  await list(dir, { json: true });
  const good = await readFile(checkpointPath(dir));
  const headerEnd = good.indexOf(0x0a) + 1;
  const header = JSON.parse(good.toString("utf8", 0, headerEnd)) as { rows: number; textBytes: number };
  const numbersAt = headerEnd + header.textBytes;
  // The checkpoint with the n-th number of its binary part (of the first row) replaced.
  const withNumber = (n: number, value: number) => {
    const copy = Buffer.from(good);
    copy.writeDoubleLE(value, numbersAt + n * 8);
    return copy;
  };
  const text = good.toString("utf8");
  const broken: Record<string, string | Buffer> = {
    empty: "",
    garbage: "not json\n",
    "cut in half": good.subarray(0, good.length / 2),
    "its last byte missing": good.subarray(0, -1),
    "a byte too many": Buffer.concat([good, Buffer.from("x")]),
    "another version": text.replace('{"version":1', '{"version":2'),
    "a row that is not an event": text.replace('"kind":"Event"', '"kind":"Evenx"'),
    "a latest name that is not a string": text.replace(/\t\["/, '\t[1,"'),
    "a count that is not a whole number": withNumber(1, 1.5),
    "a time that is not a number": withNumber(2, Number.NaN),
    "a names ring of odd length": withNumber(5, 3),
    "a names ring longer than kept": withNumber(5, 34),
    "a hash that is not a number": withNumber(6, Number.POSITIVE_INFINITY),
  };
  for (const [what, content] of Object.entries(broken)) {
    t.not(Buffer.from(content).compare(good), 0, `${what}: broken`);
    await writeFile(checkpointPath(dir), content);
    const listed = await list(dir, { json: true });
    t.equal(listed.stdout, expected, what);
    t.equal(listed.stderr, "", `${what}: nothing said`);
    t.equal((await readFile(checkpointPath(dir))).compare(good), 0, `${what}: replaced`);
  }
});

t.test("filters: a filtered listing leaves no checkpoint, and reads one right", async (t) => {
  const dir = await tempDir(t);
  const source = randomEvents(5);
  await writeFile(logFilePath(dir), toLines(take(source, 300)));
  await list(dir, { json: true, pod: "web" });
  t.equal(await checkpointHeader(dir), undefined, "none from a filtered listing");
  await list(dir, { json: true });
  await appendFile(logFilePath(dir), toLines(take(source, 100)));
  for (const filter of [{ pod: "web" }, { namespace: "ci", type: "Warning" as const }, { reason: "BackOff" }, { pod: 'q"uote' }]) {
    const listed = await list(dir, { json: true, ...filter });
    t.equal(listed.stdout, await fromScratch(t, dir, filter), JSON.stringify(filter));
  }
});

t.test("below PODRUN_EVENTS_CHECKPOINT_BYTES (default 1 MiB) no checkpoint is left", async (t) => {
  const dir = await tempDir(t);
  await writeFile(logFilePath(dir), toLines(take(randomEvents(3), 100)));
  await list(dir, {}, {});
  t.equal(await checkpointHeader(dir), undefined, "default: a small log needs none");
  await list(dir, {}, { PODRUN_EVENTS_CHECKPOINT_BYTES: "1000000000" });
  t.equal(await checkpointHeader(dir), undefined);
  await list(dir, {}, { PODRUN_EVENTS_CHECKPOINT_BYTES: "1000" });
  t.ok(await checkpointHeader(dir));
});

t.test("a checkpoint that cannot be written changes nothing for the listing", async (t) => {
  const dir = await tempDir(t);
  await writeFile(logFilePath(dir), toLines(take(randomEvents(9), 100)));
  await mkdir(checkpointPath(dir)); // the rename fails, whatever the user (root writes anywhere)
  const listed = await list(dir, { json: true });
  t.equal(listed.stdout, await fromScratch(t, dir));
  t.equal(listed.stderr, "");
});

t.test("listings and appends at once: every listing right, the checkpoint left readable", async (t) => {
  const dir = await tempDir(t);
  const source = randomEvents(13);
  await writeFile(logFilePath(dir), toLines(take(source, 200)));
  for (let round = 0; round < 5; round++) {
    const batch = take(source, 40);
    const appending = (async () => {
      for (const event of batch) await appendFile(logFilePath(dir), `${JSON.stringify(event)}\n`);
    })();
    const listings = await Promise.all([list(dir, { json: true }), list(dir, { json: true }), list(dir, { json: true }), appending]);
    for (const listing of listings.slice(0, 3)) t.ok(listing!.stdout.length > 0 && listing!.stderr === "", `round ${round}`);
    t.equal((await list(dir, { json: true })).stdout, await fromScratch(t, dir), `round ${round}: the next listing is right`);
  }
});

t.test("the lines a checkpoint covers are not read again", async (t) => {
  const dir = await tempDir(t);
  const lines = toLines(take(randomEvents(17), 300));
  await writeFile(logFilePath(dir), lines);
  await list(dir, { json: true });
  // Changed in place, far from the end (and so from the bytes the checkpoint checks): a listing
  // from the checkpoint does not see it, one that reads every line does.
  const edited = lines.replace(/"reason":"(\w)/, '"reason":"X');
  t.equal(edited.length, lines.length);
  await writeFile(logFilePath(dir), edited);
  const listed = await list(dir, { json: true });
  t.not(listed.stdout, await fromScratch(t, dir), "the checkpoint was used");
  t.notMatch(listed.stdout, /"reason":"X/);
});

t.test("temp files of listings killed while saving are removed once their process is gone", async (t) => {
  const dir = await tempDir(t);
  await writeFile(logFilePath(dir), toLines(take(randomEvents(19), 100)));
  const old = new Date(Date.now() - 5 * 60_000);
  const dead = join(dir, `.${CHECKPOINT_FILE}.2147483646.0123abcd.tmp`); // no such pid
  const deadButNew = join(dir, `.${CHECKPOINT_FILE}.2147483645.0123abcd.tmp`);
  const alive = join(dir, `.${CHECKPOINT_FILE}.${process.pid}.0123abcd.tmp`);
  for (const file of [dead, deadButNew, alive]) await writeFile(file, "half a checkpoint");
  await utimes(dead, old, old);
  await utimes(alive, old, old);
  await list(dir, { json: true });
  t.notOk(existsSync(dead), "a dead process's, a minute old: removed");
  t.ok(existsSync(deadButNew), "a dead process's, just written (another host's?): kept");
  t.ok(existsSync(alive), "a live process's: kept");
  t.ok(await checkpointHeader(dir), "the checkpoint itself is written");
});
