// `podrun events` over a large log: writes 100,000 realistic events (300 pods over many runs,
// repeated reasons so that folding matters, long failure messages now and then) into a temporary
// state directory, laid out as rotation leaves it (events.ndjson.3 … events.ndjson), then runs
// the built CLI on it: wall and CPU time (medians of several runs) and peak RSS (/usr/bin/time).
// Prints figures; asserts nothing. Usage: npm run build && npx tsx bench/events.ts [events] [runs]
// (300000 events, three times the log, shows that memory follows the rows, not the log's size).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_KEPT_FILES as KEPT_FILES, logFilePath } from "../lib/events/log-files.js";
import { toApiTime } from "../lib/events/recorder.js";
import { toInvolvedObject, type KubeEvent } from "../lib/events/types.js";

const BIN = fileURLToPath(new URL("../bin/podrun.js", import.meta.url));
const TOTAL = Number(process.argv[2] ?? 100_000);
const RUNS = Number(process.argv[3] ?? 7);

// A deterministic pseudo-random sequence, so every run of the bench writes the same log.
let seed = 42;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** The events of one `podrun up` of one pod, as the recorder logs them (repeats: same name, count + 1). */
function* runEvents(pod: string, namespace: string, run: number, startMs: number): Generator<KubeEvent> {
  const uid = `${pod}-${run}-${Math.floor(random() * 1e9).toString(16)}`;
  let clock = startMs;
  let lastNanos = 0n;
  const make = (container: string, type: "Normal" | "Warning", reason: string, message: string): KubeEvent => {
    clock += Math.floor(random() * 3000);
    // The recorder's names: <pod>.<hex Unix nanos>, kept increasing within a millisecond.
    const nanos = BigInt(clock) * 1_000_000n;
    lastNanos = nanos > lastNanos ? nanos : lastNanos + 1n;
    const time = toApiTime(clock);
    return {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${pod}.${lastNanos.toString(16)}`, namespace },
      involvedObject: toInvolvedObject({ name: pod, namespace, uid }, { name: container }),
      reason,
      message,
      type,
      source: { component: "podrun", host: "ci-runner-7" },
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
      reportingComponent: "podrun",
      reportingInstance: "ci-runner-7",
    };
  };
  for (const container of ["app", "sidecar"]) {
    const image = `127.0.0.1:5100/team/${pod}-${container}:1.${run % 4}`;
    if (random() < 0.15) {
      // A broken registry: a failure with a long message, then BackOff repeated under one name.
      yield make(container, "Warning", "Failed", `Failed to pull image "${image}": ${"rpc error: code = Unknown desc = failed to resolve reference: ".repeat(6)}`);
      const backoff = make(container, "Normal", "BackOff", `Back-off pulling image "${image}"`);
      for (let count = 1; count <= 1 + Math.floor(random() * 5); count++) {
        clock += 10_000;
        yield { ...backoff, count, lastTimestamp: toApiTime(clock) };
      }
      continue;
    }
    yield make(container, "Normal", "Pulled", `Container image "${image}" already present on machine`);
    yield make(container, "Normal", "Created", `Created container: ${container}`);
    yield make(container, "Normal", "Started", `Started container ${container}`);
    if (random() < 0.2) yield make(container, "Warning", "Unhealthy", `Readiness probe failed: HTTP probe failed with statuscode: ${pick([500, 502, 503])}`);
  }
}

async function writeLog(dir: string): Promise<{ events: number; bytes: number; files: number }> {
  const pods = Array.from({ length: 300 }, (_, i) => [`svc-${i}`, pick(["default", "ci", "staging"])] as const);
  const lines: string[] = [];
  // A run every 20 s, ~9 events a run: the newest events are from about now.
  const start = Date.now() - Math.ceil(TOTAL / 9) * 20_000;
  for (let run = 0; lines.length < TOTAL; run++) {
    const [pod, namespace] = pods[run % pods.length]!;
    for (const event of runEvents(pod, namespace, run, start + run * 20_000)) {
      if (lines.length < TOTAL) lines.push(`${JSON.stringify(event)}\n`);
    }
  }
  // Four files, as rotation leaves them (events.ndjson.3 the oldest … events.ndjson the newest).
  // At ~575 bytes an event, 100,000 take 14 MB a file: the default 10 MiB limit keeps ~73,000.
  const perFile = Math.ceil(lines.length / (KEPT_FILES + 1));
  for (let generation = 0; generation <= KEPT_FILES; generation++) {
    const end = lines.length - generation * perFile;
    await writeFile(logFilePath(dir, generation), lines.slice(Math.max(0, end - perFile), Math.max(0, end)).join(""));
  }
  return { events: lines.length, bytes: lines.reduce((sum, line) => sum + line.length, 0), files: KEPT_FILES + 1 };
}

// Wall time as seen from here (start-up included), CPU time and peak RSS from /usr/bin/time.
function measure(args: string[]): { ms: number; cpuMs: number; rssKb: number; outBytes: number } {
  const out = join(tmpdir(), `podrun-bench-time-${process.pid}`);
  const started = performance.now();
  const result = spawnSync("/usr/bin/time", ["-f", "%U %S %M", "-o", out, process.execPath, BIN, ...args], { maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: "1" } });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`podrun ${args.join(" ")}: exit ${result.status}: ${String(result.stderr)}`);
  const [user = 0, system = 0, rssKb = 0] = readFileSync(out, "utf8").trim().split("\n").pop()!.split(" ").map(Number);
  return { ms, cpuMs: (user + system) * 1000, rssKb, outBytes: result.stdout.length };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

if (!existsSync("/usr/bin/time")) throw new Error("bench: /usr/bin/time is missing (apt-get install time)");
const dir = await mkdtemp(join(tmpdir(), "podrun-bench-events-"));
try {
  const log = await writeLog(dir);
  const sizes = await Promise.all(Array.from({ length: log.files }, (_, g) => stat(logFilePath(dir, g)).then((s) => s.size)));
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}, ${cpus().length} CPUs, node ${process.version}`);
  console.log(`log: ${log.events} events, ${(log.bytes / 1e6).toFixed(1)} MB in ${log.files} files (${sizes.map((s) => (s / 1e6).toFixed(1)).join(" + ")} MB); ${RUNS} runs each, median`);
  const cases: [string, string[]][] = [
    ["node bin/podrun.js --version (start-up alone)", ["--version"]],
    ["events", ["events", "--state-dir", dir]],
    ["events --json", ["events", "--json", "--state-dir", dir]],
    ["events -o wide", ["events", "-o", "wide", "--state-dir", dir]],
    ["events --pod svc-7 (filter)", ["events", "--pod", "svc-7", "--state-dir", dir]],
    ["events --reason BackOff --type Normal", ["events", "--reason", "BackOff", "--type", "Normal", "--state-dir", dir]],
    ["events --since 1h --limit 20", ["events", "--since", "1h", "--limit", "20", "--state-dir", dir]],
  ];
  for (const [label, args] of cases) {
    measure(args); // warm the page cache
    const results = Array.from({ length: RUNS }, () => measure(args));
    const ms = median(results.map((r) => r.ms));
    const cpu = median(results.map((r) => r.cpuMs));
    const rss = median(results.map((r) => r.rssKb)) / 1024;
    const out = results[0]!.outBytes;
    console.log(`${ms.toFixed(0).padStart(6)} ms  ${cpu.toFixed(0).padStart(6)} ms CPU  ${rss.toFixed(0).padStart(4)} MB peak RSS  ${String(out).padStart(9)} B out  ${label}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
