import t, { type Test } from "tap";
import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLogFile } from "../../lib/events/log-files.js";
import { linesOf } from "../../lib/events/log-file-reader.js";

// The reader asks for the next chunk while the caller folds the one before: lines must still come
// once each, whole and in order, across chunk boundaries, and when a caller stops half way.

// ~1.5 MB: several 256 KiB chunks, lines cut at every chunk boundary, some with multi-byte characters.
const LINES = Array.from({ length: 12_000 }, (_, i) => `line ${i} ${"é雪".repeat(i % 40)}${"x".repeat(i % 97)}`);

async function setup(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-reader-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "events.ndjson");
  await writeFile(file, `${LINES.join("\n")}\n`);
  return file;
}

t.test("every line once, in order, across chunks", async (t) => {
  const reader = (await openLogFile(await setup(t)))!;
  const seen: string[] = [];
  for await (const lines of reader.readAppended()) seen.push(...linesOf(lines));
  await reader.close();
  t.equal(seen.length, LINES.length);
  t.ok(seen.every((line, i) => line === LINES[i]), "same lines");
});

t.test("a caller that stops after one chunk, then reads on, misses nothing and sees nothing twice", async (t) => {
  const file = await setup(t);
  const reader = (await openLogFile(file))!;
  const seen: string[] = [];
  for await (const lines of reader.readAppended()) {
    seen.push(...linesOf(lines));
    break; // the read of the next chunk is under way
  }
  t.ok(seen.length > 0 && seen.length < LINES.length);
  await appendFile(file, "appended\n");
  for await (const lines of reader.readAppended()) seen.push(...linesOf(lines));
  await reader.close();
  t.same(seen.length, LINES.length + 1);
  t.ok(seen.slice(0, -1).every((line, i) => line === LINES[i]), "same lines");
  t.equal(seen.at(-1), "appended");
});
