// The cost of appending one event with the ways a writer can avoid writing into a rotated file
// for long (lib/events/event-log.ts explains the choice):
//   open-write-close   open(O_APPEND) + write + close per event: always the current file
//   stat-then-write    one handle kept open; stat(path) before each write to see whether the
//                      inode there is still its own (what openEventLog does, through its API)
//   write only         one handle, no check: the floor, and what the log did before rotation
// Prints microseconds per event (median of runs); asserts nothing.
// Usage: npx tsx bench/event-append.ts [events] [runs]
import { open, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEventLog } from "../lib/events/event-log.js";
import { toApiTime } from "../lib/events/recorder.js";
import { toInvolvedObject, type KubeEvent } from "../lib/events/types.js";

const EVENTS = Number(process.argv[2] ?? 5000);
const RUNS = Number(process.argv[3] ?? 5);

const event: KubeEvent = {
  apiVersion: "v1",
  kind: "Event",
  metadata: { name: "web.18eb7945b3c4d443", namespace: "default" },
  involvedObject: toInvolvedObject(
    { name: "web", namespace: "default", uid: "3f1c0e7a-8d4b-4c39-9a43-1c2b3d4e5f60" },
    { name: "app" },
  ),
  reason: "Pulled",
  message: 'Container image "127.0.0.1:5100/podrun-test/busybox:1.36" already present on machine',
  type: "Normal",
  source: { component: "podrun", host: "ci-runner" },
  firstTimestamp: toApiTime(Date.now()),
  lastTimestamp: toApiTime(Date.now()),
  count: 1,
  reportingComponent: "podrun",
  reportingInstance: "ci-runner",
};
const line = Buffer.from(`${JSON.stringify(event)}\n`);

const strategies: Record<string, (file: string) => Promise<void>> = {
  "open-write-close": async (file) => {
    for (let i = 0; i < EVENTS; i++) {
      const handle = await open(file, "a", 0o600);
      await handle.write(line);
      await handle.close();
    }
  },
  "stat-then-write": async (file) => {
    const handle = await open(file, "a", 0o600);
    const { ino } = await handle.stat();
    for (let i = 0; i < EVENTS; i++) {
      if ((await stat(file)).ino !== ino) throw new Error("rotated");
      await handle.write(line);
    }
    await handle.close();
  },
  "write only": async (file) => {
    const handle = await open(file, "a", 0o600);
    for (let i = 0; i < EVENTS; i++) await handle.write(line);
    await handle.close();
  },
  "openEventLog().append": async (file) => {
    const log = await openEventLog(join(file, ".."), { maxBytes: Number.MAX_SAFE_INTEGER });
    for (let i = 0; i < EVENTS; i++) await log.append(event);
    await log.close();
  },
};

const dir = await mkdtemp(join(tmpdir(), "podrun-bench-append-"));
try {
  console.log(`${EVENTS} appends of ${line.length} bytes, median of ${RUNS} runs (${dir})`);
  for (const [name, run] of Object.entries(strategies)) {
    const times: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const file = join(dir, "events.ndjson");
      await rm(file, { force: true });
      const started = performance.now();
      await run(file);
      times.push(((performance.now() - started) * 1000) / EVENTS);
    }
    const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
    console.log(`${median.toFixed(1).padStart(7)} µs/event  ${name}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
