import t, { type Test } from "tap";
import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLogFile } from "../../lib/events/log-files.js";
import { OVERSIZED_LINE } from "../../lib/events/log-file-reader.js";

// Lines must come once each, whole and in order, across chunk boundaries (multi-byte characters
// cut in two among them), and when a caller stops half way and reads on later.

// ~1.5 MB: more than one chunk.
const LINES = Array.from({ length: 12_000 }, (_, i) => `line ${i} ${"é雪".repeat(i % 40)}${"x".repeat(i % 97)}`);

async function setup(t: Test, text = `${LINES.join("\n")}\n`): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-reader-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "events.ndjson");
  await writeFile(file, text);
  return file;
}

t.test("every line once, in order, across chunks", async (t) => {
  const reader = (await openLogFile(await setup(t)))!;
  const seen: string[] = [];
  for await (const lines of reader.readLines()) seen.push(...lines);
  await reader.close();
  t.equal(seen.length, LINES.length);
  t.ok(
    seen.every((line, i) => line === LINES[i]),
    "same lines",
  );
  t.equal(reader.takePending(), "", "nothing unfinished");
});

t.test("a caller that stops after one chunk, then reads on, misses nothing and sees nothing twice", async (t) => {
  const file = await setup(t);
  const reader = (await openLogFile(file))!;
  const seen: string[] = [];
  for await (const lines of reader.readLines()) {
    seen.push(...lines);
    break;
  }
  t.ok(seen.length > 0 && seen.length < LINES.length);
  await appendFile(file, "appended\n");
  for await (const lines of reader.readLines()) seen.push(...lines);
  await reader.close();
  t.same(seen.length, LINES.length + 1);
  t.ok(
    seen.slice(0, -1).every((line, i) => line === LINES[i]),
    "same lines",
  );
  t.equal(seen.at(-1), "appended");
});

t.test("an unfinished line waits for its newline, or is given up on with takePending", async (t) => {
  const file = await setup(t, "one\ntw");
  const reader = (await openLogFile(file))!;
  const read = async () => {
    const seen: string[] = [];
    for await (const lines of reader.readLines()) seen.push(...lines);
    return seen;
  };
  t.same(await read(), ["one"]);
  await appendFile(file, "o\nthr");
  t.same(await read(), ["two"], "completed by the next write");
  t.equal(reader.takePending(), "thr");
  await reader.close();
});

t.test("a line past 4 MiB (a file that is no log) is dropped as it comes, replaced by a marker", async (t) => {
  const file = await setup(t, `${"x".repeat(5 * 1024 * 1024)}\nafter\n`);
  const reader = (await openLogFile(file))!;
  const seen: string[] = [];
  for await (const lines of reader.readLines()) seen.push(...lines);
  await reader.close();
  t.same(seen, [OVERSIZED_LINE, "after"]);
});
