import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { CommandError, streamCommand, type OutputLine } from "../../lib/runtime/exec.js";

// streamCommand with real child processes (`node -e`): lines as they are written, both streams,
// failures as CommandError, and the child stopped when the reading stops.

const node = (script: string) => [process.execPath, ["-e", script]] as const;

async function collect(lines: AsyncIterable<OutputLine>): Promise<OutputLine[]> {
  const out: OutputLine[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

t.test("yields the lines of both streams; a last line without a line break still counts", async (t) => {
  const [bin, args] = node(
    "process.stdout.write('a\\nb\\n'); process.stderr.write('e1\\n'); process.stdout.write('c')",
  );
  const lines = await collect(streamCommand(bin, args));
  t.same(
    lines.filter((l) => l.stream === "stdout").map((l) => l.text),
    ["a", "b", "c"],
  );
  t.same(
    lines.filter((l) => l.stream === "stderr").map((l) => l.text),
    ["e1"],
  );
});

t.test("a line is yielded as soon as it is written, long before the command ends", async (t) => {
  const [bin, args] = node("console.log('first'); setTimeout(() => console.log('second'), 1500)");
  const started = Date.now();
  const seen: { text: string; ms: number }[] = [];
  for await (const line of streamCommand(bin, args)) seen.push({ text: line.text, ms: Date.now() - started });
  t.same(
    seen.map((s) => s.text),
    ["first", "second"],
  );
  // Measured between the lines, not from the start: a busy machine may take a second to start node.
  t.ok(
    seen[1]!.ms - seen[0]!.ms >= 1000,
    `first line ${seen[1]!.ms - seen[0]!.ms} ms before the second, not at the end`,
  );
});

t.test("multi-byte characters split across chunks stay whole", async (t) => {
  const [bin, args] = node(
    "const b = Buffer.from('héllo wörld\\n'); process.stdout.write(b.subarray(0, 2)); setTimeout(() => process.stdout.write(b.subarray(2)), 100)",
  );
  t.same(
    (await collect(streamCommand(bin, args))).map((l) => l.text),
    ["héllo wörld"],
  );
});

t.test("a non-zero exit throws CommandError after the lines, with the last stderr lines", async (t) => {
  const [bin, args] = node("console.log('out'); console.error('Error: no such container: x'); process.exit(125)");
  const seen: string[] = [];
  const error = await (async () => {
    for await (const line of streamCommand(bin, args)) seen.push(line.text);
  })().catch((e: unknown) => e);
  t.ok(error instanceof CommandError);
  t.equal((error as CommandError).exitCode, 125);
  t.equal((error as CommandError).stderr, "Error: no such container: x");
  t.match((error as CommandError).shortMessage, /^Command failed with exit code 125: /);
  t.same(seen.sort(), ["Error: no such container: x", "out"]);
});

t.test("a missing binary is 'not installed'", async (t) => {
  const error = await collect(streamCommand("podrun-no-such-binary", [])).catch((e: unknown) => e);
  t.ok(error instanceof CommandError);
  t.equal((error as CommandError).notInstalled, true);
});

t.test("an aborted signal stops the command and ends the stream quietly", async (t) => {
  const [bin, args] = node("console.log('tick'); setInterval(() => console.log('tick'), 50)");
  const controller = new AbortController();
  const started = Date.now();
  let count = 0;
  for await (const _ of streamCommand(bin, args, { signal: controller.signal })) if (++count === 3) controller.abort();
  t.ok(count >= 3);
  t.ok(Date.now() - started < 5000, "ended soon after the abort");
});

t.test("leaving the loop early kills the command", async (t) => {
  const [bin, args] = node("console.log(process.pid); setInterval(() => {}, 1000)");
  let pid = 0;
  for await (const line of streamCommand(bin, args)) {
    pid = Number(line.text);
    break;
  }
  t.ok(pid > 0);
  let alive = true;
  for (let i = 0; i < 50 && alive; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
  }
  t.equal(alive, false, "the child is gone");
});

t.test("a reader that falls behind pauses the child's output instead of buffering it all", async (t) => {
  // The child notes when it managed to write its last line. Without back-pressure, 200k lines
  // (10 MB) would all be read into memory while the consumer sleeps, and the child would finish
  // during the sleep; paused, it can only finish after the consumer catches up.
  const dir = await mkdtemp(join(tmpdir(), "podrun-stream-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const done = join(dir, "done");
  const [bin, args] = node(
    "let i = 0; const w = () => { while (i < 200000) { if (!process.stdout.write(`line ${i++} ${'x'.repeat(40)}\\n`)) return process.stdout.once('drain', w); } process.stdout.write('', () => require('fs').writeFileSync(process.env.DONE_FILE, String(Date.now()))); }; w()",
  );
  let count = 0;
  let sleptUntil = 0;
  for await (const _ of streamCommand(bin, args, { env: { DONE_FILE: done } })) {
    if (++count === 1) {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      sleptUntil = Date.now();
    }
  }
  t.equal(count, 200000, "every line arrives");
  const finishedAt = Number(await readFile(done, "utf8"));
  t.ok(
    finishedAt >= sleptUntil,
    `the child finished writing after the consumer woke up (${finishedAt - sleptUntil} ms)`,
  );
});
