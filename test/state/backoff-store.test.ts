import t, { type Test } from "tap";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { BACKOFF_FILE, createFileBackoffStore, updateBackoff } from "../../lib/state/backoff-store.js";
import { withLock } from "../../lib/state/lock.js";

// The persisted back-off file, with real files in a temp directory.

const NOW = Date.parse("2025-03-01T12:00:00.000Z");

/** backoff.json as written: what the assertions read of it. */
interface SavedBackoff {
  entries: Record<string, { backoffMs: number; lastUpdate: string; lastError?: string }>;
}

async function readSaved(dir: string): Promise<SavedBackoff> {
  return JSON.parse(await readFile(join(dir, BACKOFF_FILE), "utf8")) as SavedBackoff;
}

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-backoff-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

t.test("round trip: entries survive a write and a read, in the documented format", async (t) => {
  const dir = await tempDir(t);
  const returned = await updateBackoff(dir, (state) => {
    state.next("default/web_busybox", NOW).lastError = "ErrImagePull: not found";
    state.next("default/web_busybox", NOW + 10_000);
    state.entries.get("default/web_busybox")!.lastError = "ErrImagePull: not found again";
    return "mutate's result";
  });
  t.equal(returned, "mutate's result");
  t.same(JSON.parse(await readFile(join(dir, BACKOFF_FILE), "utf8")), {
    version: 1,
    entries: {
      "default/web_busybox": {
        backoffMs: 20_000,
        lastUpdate: "2025-03-01T12:00:10.000Z",
        lastError: "ErrImagePull: not found again",
      },
    },
  });
  t.equal((await stat(join(dir, BACKOFF_FILE))).mode & 0o777, 0o600, "private to the user");
  const seen = await updateBackoff(dir, (state) => [
    state.get("default/web_busybox", NOW + 20_000),
    state.isInBackOffSinceUpdate("default/web_busybox", NOW + 20_000),
  ]);
  t.same(seen, [20_000, true]);
});

t.test("a missing file (and a missing directory) is empty state", async (t) => {
  const dir = join(await tempDir(t), "not", "yet");
  t.equal(await updateBackoff(dir, (state) => state.entries.size), 0);
  t.same(await readdir(dir), [], "nothing changed: nothing written");
});

t.test("the atomic write leaves no temp or lock files behind", async (t) => {
  const dir = await tempDir(t);
  const store = createFileBackoffStore(dir);
  for (let i = 0; i < 5; i++) await store.update((state) => void state.next(`k${i}`, NOW));
  t.same(await readdir(dir), [BACKOFF_FILE]);
});

t.test("lastError is capped so the registry cannot grow the file", async (t) => {
  const dir = await tempDir(t);
  await updateBackoff(dir, (state) => void (state.next("k", NOW).lastError = `ErrImagePull: ${"x".repeat(5000)}`));
  const saved = await readSaved(dir);
  t.equal(saved.entries.k?.lastError?.length, 1024);
});

t.test("a corrupt file is moved aside, reported once, and state starts empty", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, BACKOFF_FILE), '{"version": 1, "entries": {');
  const warnings: string[] = [];
  const options = { onWarning: (m: string) => warnings.push(m), now: () => NOW };
  t.equal(await updateBackoff(dir, (state) => state.entries.size, options), 0);
  const aside = join(dir, `${BACKOFF_FILE}.corrupt-2025-03-01T12:00:00.000Z`);
  t.equal(await readFile(aside, "utf8"), '{"version": 1, "entries": {', "kept for inspection");
  t.equal(warnings.length, 1);
  t.match(
    warnings[0],
    new RegExp(
      `^state file ${join(dir, BACKOFF_FILE)} is not valid JSON \\(.+\\): moved it to ${aside}; pull back-off starts empty$`,
    ),
  );
  await updateBackoff(dir, (state) => void state.next("k", NOW), options);
  t.equal(warnings.length, 1, "the next run does not warn again");
  t.same(Object.keys((await readSaved(dir)).entries), ["k"]);
});

t.test("an unknown version or shape is moved aside too", async (t) => {
  for (const [content, problem] of [
    ['{"version": 2, "entries": {}}', "has unknown version 2"],
    ['{"entries": {}}', "is not a podrun back-off file"],
    ["[1, 2]", "is not a podrun back-off file"],
    ["", "is not valid JSON"],
  ] as const) {
    const dir = await tempDir(t);
    await writeFile(join(dir, BACKOFF_FILE), content);
    const warnings: string[] = [];
    t.equal(
      await updateBackoff(dir, (state) => state.entries.size, { onWarning: (m) => warnings.push(m) }),
      0,
      content,
    );
    t.match(warnings, [new RegExp(problem)], content);
    t.equal((await readdir(dir)).filter((f) => f.startsWith(`${BACKOFF_FILE}.corrupt-`)).length, 1);
  }
});

t.test("bad entries are dropped with one warning and the cleaned file is written", async (t) => {
  const dir = await tempDir(t);
  const good = { backoffMs: 10_000, lastUpdate: "2025-03-01T12:00:00.000Z" };
  await writeFile(
    join(dir, BACKOFF_FILE),
    JSON.stringify({
      version: 1,
      entries: {
        good,
        noTime: { backoffMs: 1 },
        badTime: { backoffMs: 1, lastUpdate: "yesterday" },
        zero: { ...good, backoffMs: 0 },
        err: { ...good, lastError: 3 },
        nul: null,
      },
    }),
  );
  const warnings: string[] = [];
  t.same(await updateBackoff(dir, (state) => [...state.entries.keys()], { onWarning: (m) => warnings.push(m) }), [
    "good",
  ]);
  t.same(warnings, [`state file ${join(dir, BACKOFF_FILE)}: ignored 5 invalid entries`]);
  t.same((await readSaved(dir)).entries, { good });
  await updateBackoff(dir, () => undefined, { onWarning: (m) => warnings.push(m) });
  t.equal(warnings.length, 1, "reported once");
});

t.test("a state path that cannot be a directory fails with one line naming it", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "file"), "");
  const error = await updateBackoff(join(dir, "file"), () => undefined).catch((e: unknown) => e);
  t.equal((error as Error).name, "StateAccessError");
  t.match(
    (error as Error).message,
    `cannot use state directory ${join(dir, "file")}: it exists and is not a directory`,
  );
});

t.test("lock: a lock left by a dead process is broken at once", async (t) => {
  const dir = await tempDir(t);
  const lock = join(dir, "x.lock");
  await mkdir(lock);
  // PID 2^22 + 1 is above Linux's pid_max: no such process.
  await writeFile(
    join(lock, "owner.json"),
    JSON.stringify({ pid: 4_194_305, host: hostname(), token: "dead", sinceMs: Date.now() }),
  );
  // The lock is fresh (sinceMs: now), so only its dead owner lets it be broken: waiting for it to
  // turn stale would take 10 s, past the 2 s this acquisition may wait (the suite's load makes a
  // tighter bound on the time a mere measure of the machine).
  t.equal(await withLock(lock, () => "held", { timeoutMs: 2000 }), "held", "no waiting for staleness");
  t.same(await readdir(dir), [], "released, and the stale lock removed");
});

t.test("lock: a live holder is waited for, then the wait times out with a clear message", async (t) => {
  const dir = await tempDir(t);
  const lock = join(dir, "x.lock");
  const order: string[] = [];
  let release!: () => void;
  const holding = withLock(lock, () => new Promise<void>((resolve) => ((release = resolve), order.push("first in"))));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const timedOut = await withLock(lock, () => "no", { timeoutMs: 100 }).catch((e: unknown) => e);
  t.match(
    (timedOut as Error).message,
    new RegExp(
      `^timed out waiting for lock ${lock} \\(held by pid ${process.pid} on .+\\); if no podrun is running, remove it$`,
    ),
  );
  const waiting = withLock(lock, () => void order.push("second in"));
  await new Promise((resolve) => setTimeout(resolve, 50));
  order.push("first out");
  release();
  await Promise.all([holding, waiting]);
  t.same(order, ["first in", "first out", "second in"]);
});

t.test("lock: a live holder older than staleMs is presumed abandoned", async (t) => {
  const dir = await tempDir(t);
  const lock = join(dir, "x.lock");
  await mkdir(lock);
  await writeFile(
    join(lock, "owner.json"),
    JSON.stringify({ pid: process.pid, host: hostname(), token: "old", sinceMs: Date.now() - 60_000 }),
  );
  t.equal(await withLock(lock, () => "held", { timeoutMs: 2000, staleMs: 10_000 }), "held");
});

t.test("concurrency smoke: child processes updating the same file lose nothing", async (t) => {
  const dir = await tempDir(t);
  const child = fileURLToPath(new URL("./fixtures/update-backoff.ts", import.meta.url));
  const run = promisify(execFile);
  const children = 6;
  const updates = 15;
  await Promise.all(
    Array.from({ length: children }, (_, i) =>
      run(process.execPath, ["--import", "tsx", child, dir, `c${i}`, String(updates)], { timeout: 120_000 }),
    ),
  );
  const saved = await readSaved(dir);
  t.equal(saved.entries.counter?.backoffMs, children * updates, "every increment counted");
  t.equal(Object.keys(saved.entries).length, children * updates + 1, "every key kept");
  t.same(await readdir(dir), [BACKOFF_FILE], "no temp or lock files left");
});

t.test("a temp file left by a writer killed before its rename is removed by the next update", async (t) => {
  const dir = await tempDir(t);
  await updateBackoff(dir, (state) => void state.next("k", NOW));
  const orphan = join(dir, `.${BACKOFF_FILE}.4194305.0123456789ab.tmp`);
  await writeFile(orphan, '{"version": 1, "entries": {"half-writ');
  t.equal(await updateBackoff(dir, (state) => state.entries.size), 1, "the real file is read, not the temp file");
  t.same(await readdir(dir), [BACKOFF_FILE]);
});

t.test(
  "lock: what a killed process left while releasing or preparing a lock is removed by the next holder",
  async (t) => {
    const dir = await tempDir(t);
    const lock = join(dir, "x.lock");
    const dead = 4_194_305; // above pid_max: no such process
    const names = {
      deadReleased: `x.lock.${dead}-0123456789ab.old`,
      liveReleasing: `x.lock.${process.pid}-0123456789ab.old`,
      deadPrepared: `x.lock.${dead}-dddddddddddd.tmp`,
      unknownPreparedOld: `x.lock.${dead}-aaaaaaaaaaaa.tmp`,
      unknownPreparedRecent: `x.lock.${dead}-bbbbbbbbbbbb.tmp`,
      otherLock: `y.lock.${dead}-cccccccccccc.old`,
    };
    for (const name of Object.values(names)) {
      await mkdir(join(dir, name));
      await writeFile(join(dir, name, "owner.json"), "{}");
    }
    // A prepared lock names its owner as a held one does; without that, only its age tells.
    await writeFile(
      join(dir, names.deadPrepared, "owner.json"),
      JSON.stringify({ pid: dead, host: hostname(), token: "t", sinceMs: Date.now() }),
    );
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(join(dir, names.unknownPreparedOld), hourAgo, hourAgo);
    await withLock(lock, () => undefined);
    t.same(
      (await readdir(dir)).sort(),
      [names.unknownPreparedRecent, names.liveReleasing, names.otherLock].sort(),
      "a live process's, a recent unknown one and other locks' stay",
    );
  },
);
