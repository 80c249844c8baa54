import t, { type Test } from "tap";
import { appendFile, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { followEventLog } from "../../lib/events/follow-log.js";
import type { LogFileReader } from "../../lib/events/log-file-reader.js";
import { logFilePath, openLogFile } from "../../lib/events/log-files.js";

// The follower sees lines, not events: what it must get right is which file, from where, and
// that a line is handed on once and whole.

async function until(what: () => boolean, label: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; !what(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
  }
}

/** A log of one line, and a reader at its end: where the listing left off. */
async function listedLog(t: Test): Promise<{ dir: string; file: string; reader: LogFileReader }> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-follow-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = logFilePath(dir);
  await writeFile(file, "listed\n");
  const reader = (await openLogFile(file))!;
  for await (const lines of reader.readLines()) void lines; // what the listing read
  return { dir, file, reader };
}

t.test("follows appends, partial lines, a rotation, and late writes to the rotated file", async (t) => {
  const { dir, file, reader } = await listedLog(t);

  const seen: string[] = [];
  const controller = new AbortController();
  const following = followEventLog({
    dir,
    reader,
    signal: controller.signal,
    onLines: (lines) => seen.push(...lines),
    pollMs: 20,
    graceMs: 60_000,
  });

  await appendFile(file, "one\npar");
  await until(() => seen.includes("one"), "one");
  await appendFile(file, "tial\n");
  await until(() => seen.includes("partial"), "the completed line");

  await rename(file, logFilePath(dir, 1)); // a rotation…
  await appendFile(logFilePath(dir, 1), "late\n"); // …a writer that still had the old file…
  await writeFile(file, "new\n"); // …and the new file
  await until(() => seen.includes("late") && seen.includes("new"), "both files");
  await appendFile(logFilePath(dir, 1), "later\n");
  await appendFile(file, "newer\n");
  await until(() => seen.includes("later") && seen.includes("newer"), "both files again");

  controller.abort();
  await following;
  t.same(
    seen.filter((line) => line !== "late" && line !== "later"),
    ["one", "partial", "new", "newer"],
    "each line once, in file order",
  );
  t.same(
    seen.filter((line) => line === "late" || line === "later"),
    ["late", "later"],
  );
});

t.test("without a log yet: waits for the file; an abort ends it at once", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-follow-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const seen: string[] = [];
  const controller = new AbortController();
  const following = followEventLog({
    dir,
    reader: undefined,
    signal: controller.signal,
    onLines: (lines) => seen.push(...lines),
    pollMs: 10_000,
  });
  await writeFile(logFilePath(dir), "first\n");
  await until(() => seen.includes("first"), "fs.watch to notice the new file well before the 10 s poll");
  const started = Date.now();
  controller.abort();
  await following;
  t.ok(Date.now() - started < 1000, "stopped without waiting for the poll");
});

t.test("two rotations before it wakes: the file that was current in between is read too, in order", async (t) => {
  const { dir, file, reader } = await listedLog(t);
  // Rotated twice before the follower's first step (a busy machine): A → .1 → .2, B → .1, C current.
  await appendFile(file, "a-late\n");
  await rename(file, logFilePath(dir, 1));
  await writeFile(file, "b1\nb2\n");
  await rename(logFilePath(dir, 1), logFilePath(dir, 2));
  await rename(file, logFilePath(dir, 1));
  await writeFile(file, "c1\n");

  const seen: string[] = [];
  const controller = new AbortController();
  const following = followEventLog({
    dir,
    reader,
    seenInos: [reader.ino],
    signal: controller.signal,
    onLines: (lines) => seen.push(...lines),
    pollMs: 20,
    graceMs: 0,
  });
  await until(() => seen.includes("c1"), "the current file");
  await new Promise((resolve) => setTimeout(resolve, 100));
  controller.abort();
  await following;
  t.same(seen, ["a-late", "b1", "b2", "c1"], "each line once, in log order");
});
