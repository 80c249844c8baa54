import t, { type Test } from "tap";
import { execFile } from "node:child_process";
import { appendFile, mkdtemp, open, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { EVENT_LOG_FILE, openEventLog, readEventLog } from "../../lib/events/event-log.js";
import { createRecorder } from "../../lib/events/recorder.js";
import { toInvolvedObject, type KubeEvent } from "../../lib/events/types.js";

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-events-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function readAll(dir: string, onInvalidLine?: (n: number) => void): Promise<KubeEvent[]> {
  const events: KubeEvent[] = [];
  for await (const event of readEventLog(dir, { onInvalidLine })) events.push(event);
  return events;
}

const OBJECT = toInvolvedObject({ name: "web", namespace: "default", uid: "u" }, { name: "app" });

t.test("events are appended one line each, across opens, and read back in order", async (t) => {
  const dir = join(await tempDir(t), "state");
  for (const run of ["first", "second"]) {
    const log = await openEventLog(dir);
    const recorder = createRecorder({ sinks: [], log, host: "h" });
    recorder.event(OBJECT, "Normal", "Pulling", `${run} pull`);
    recorder.event(OBJECT, "Normal", "Pulling", `${run} pull`);
    await recorder.flush();
    await log.close();
  }
  const text = await readFile(join(dir, EVENT_LOG_FILE), "utf8");
  t.equal(text.split("\n").length, 5, "four lines and a final newline");
  const events = await readAll(dir);
  t.same(
    events.map((e) => [e.message, e.count]),
    [
      ["first pull", 1],
      ["first pull", 2],
      ["second pull", 1],
      ["second pull", 2],
    ],
  );
  t.equal(events[0]!.metadata.name, events[1]!.metadata.name, "a repeat is a later line of the same name");
  t.equal((await stat(join(dir, EVENT_LOG_FILE))).mode & 0o777, 0o600);
});

t.test("a torn last line (a crash mid-write) is skipped and reported", async (t) => {
  const dir = await tempDir(t);
  const log = await openEventLog(dir);
  const recorder = createRecorder({ sinks: [], log });
  recorder.event(OBJECT, "Normal", "Pulled", "ok");
  await recorder.flush();
  await log.close();
  await appendFile(join(dir, EVENT_LOG_FILE), '{"apiVersion":"v1","kind":"Event","metadata":{"na');
  const invalid: number[] = [];
  const events = await readAll(dir, (n) => invalid.push(n));
  t.same(
    events.map((e) => e.message),
    ["ok"],
  );
  t.same(invalid, [2]);
});

t.test("lines that are not events are skipped anywhere; blank lines are ignored", async (t) => {
  const dir = await tempDir(t);
  await appendFile(
    join(dir, EVENT_LOG_FILE),
    '\n{"kind":"Pod"}\nnot json\n{"kind":"Event","metadata":{"name":"a.1"},"involvedObject":{}}\n',
  );
  const invalid: number[] = [];
  t.same(
    (await readAll(dir, (n) => invalid.push(n))).map((e) => e.metadata.name),
    ["a.1"],
  );
  t.same(invalid, [2, 3]);
});

t.test("a missing log has no events", async (t) => {
  t.same(await readAll(join(await tempDir(t), "none")), []);
});

t.test("a log that cannot be opened fails with one line naming it", async (t) => {
  const dir = await tempDir(t);
  await appendFile(join(dir, "file"), "");
  const error = await openEventLog(join(dir, "file")).catch((e: unknown) => e);
  t.equal((error as Error).name, "StateAccessError");
  t.notMatch((error as Error).message, /\n/);
});

t.test("concurrent appends from several processes never interleave", async (t) => {
  const dir = await tempDir(t);
  const child = fileURLToPath(new URL("./fixtures/append-events.ts", import.meta.url));
  const children = ["a", "b", "c", "d", "e", "f"];
  const perChild = 40;
  // ~4 MB in all, under a size limit set high enough that the log does not rotate (rotation: event-log-rotation.test.ts).
  await Promise.all(
    children.map((name) =>
      promisify(execFile)(
        process.execPath,
        ["--import", "tsx", child, dir, name, String(perChild), String(64 * 1024 * 1024)],
        { timeout: 120_000 },
      ),
    ),
  );
  const invalid: number[] = [];
  const events = await readAll(dir, (n) => invalid.push(n));
  t.same(invalid, [], "every line is a whole event");
  t.equal(events.length, children.length * perChild);
  for (const name of children) {
    const own = events.filter((e) => e.involvedObject.name === name).map((e) => Number(e.message.split(" ")[0]));
    t.same(
      own,
      Array.from({ length: perChild }, (_, i) => i),
      `${name}: all, in its order`,
    );
    t.ok(
      events.filter((e) => e.involvedObject.name === name).every((e) => e.message.endsWith(name.repeat(16_000))),
      `${name}: intact`,
    );
  }
});

t.test(
  "a short write (a full disk): the error names the log, and the next line starts on a line of its own",
  async (t) => {
    const dir = await tempDir(t);
    let writes = 0;
    // The first write lands half its bytes, as write(2) does when the disk fills mid-line.
    const log = await openEventLog(dir, {
      open: async (...args: Parameters<typeof open>) => {
        const handle = await open(...args);
        const write = handle.write.bind(handle) as (
          buffer: Buffer,
        ) => Promise<{ bytesWritten: number; buffer: Buffer }>;
        return Object.assign(handle, {
          write: (buffer: Buffer) => (++writes === 1 ? write(buffer.subarray(0, buffer.length >> 1)) : write(buffer)),
        });
      },
    });
    const recorder = createRecorder({ sinks: [], log, host: "h" });
    recorder.event(OBJECT, "Normal", "Pulling", "torn");
    await t.rejects(recorder.flush(), {
      name: "StateAccessError",
      message: `cannot write event log ${join(dir, EVENT_LOG_FILE)}: short write (disk full?)`,
    });
    recorder.event(OBJECT, "Normal", "Pulled", "whole");
    await recorder.flush();
    await log.close();
    const invalid: number[] = [];
    t.same(
      (await readAll(dir, (n) => invalid.push(n))).map((e) => e.message),
      ["whole"],
      "the line after the torn one is intact",
    );
    t.same(invalid, [1], "only the torn line is skipped");
  },
);
