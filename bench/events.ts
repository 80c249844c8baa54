// `podrun events` over a large log: writes 100,000 realistic events (300 pods over many runs,
// repeated reasons so that folding matters, long failure messages now and then) into a temporary
// state directory, laid out as rotation leaves it (events.ndjson.3 … events.ndjson), then runs
// the built CLI on it: wall and CPU time (medians of several runs) and peak RSS (/usr/bin/time).
// Three states of the checkpoint (lib/events/fold-checkpoint.ts): none (the first listing of a
// log, or the first after a rotation: every line is read), the one the previous listing left
// (nothing new since), and that one with 1,000 events appended since. Prints figures; asserts
// nothing. Usage: npm run build && npx tsx bench/events.ts [events] [runs]
// (300000 events, three times the log, shows that memory follows the rows, not the log's size).
import { spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, readFileSync, rmSync, truncateSync } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_KEPT_FILES as KEPT_FILES, logFilePath } from "../lib/events/log-files.js";
import { checkpointPath } from "../lib/events/fold-checkpoint.js";
import { toApiTime } from "../lib/events/recorder.js";
import { toInvolvedObject, type KubeEvent } from "../lib/events/types.js";

const BIN = fileURLToPath(new URL("../bin/podrun.js", import.meta.url));
const TOTAL = Number(process.argv[2] ?? 100_000);
const RUNS = Number(process.argv[3] ?? 7);
/** Events appended after the checkpoint, for the third state. */
const MORE = 1000;

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

async function writeLog(dir: string): Promise<{ events: number; bytes: number; files: number; more: string }> {
  const pods = Array.from({ length: 300 }, (_, i) => [`svc-${i}`, pick(["default", "ci", "staging"])] as const);
  const lines: string[] = [];
  // A run every 20 s, ~9 events a run: the newest events are from about now.
  const start = Date.now() - Math.ceil(TOTAL / 9) * 20_000;
  const more: string[] = [];
  for (let run = 0; lines.length < TOTAL || more.length < MORE; run++) {
    const [pod, namespace] = pods[run % pods.length]!;
    for (const event of runEvents(pod, namespace, run, start + run * 20_000)) {
      if (lines.length < TOTAL) lines.push(`${JSON.stringify(event)}\n`);
      else if (more.length < MORE) more.push(`${JSON.stringify(event)}\n`);
    }
  }
  // Four files, as rotation leaves them (events.ndjson.3 the oldest … events.ndjson the newest).
  // At ~575 bytes an event, 100,000 take 14 MB a file: the default 10 MiB limit keeps ~73,000.
  const perFile = Math.ceil(lines.length / (KEPT_FILES + 1));
  for (let generation = 0; generation <= KEPT_FILES; generation++) {
    const end = lines.length - generation * perFile;
    await writeFile(logFilePath(dir, generation), lines.slice(Math.max(0, end - perFile), Math.max(0, end)).join(""));
  }
  return { events: lines.length, bytes: lines.reduce((sum, line) => sum + line.length, 0), files: KEPT_FILES + 1, more: more.join("") };
}

// Wall time as seen from here (start-up included), CPU time and peak RSS from /usr/bin/time.
// `args` go to podrun, or to node itself when they start with "-e".
function measure(args: string[], prepare?: () => void): { ms: number; cpuMs: number; rssKb: number; outBytes: number } {
  const out = join(tmpdir(), `podrun-bench-time-${process.pid}`);
  prepare?.();
  const started = performance.now();
  const result = spawnSync("/usr/bin/time", ["-f", "%U %S %M", "-o", out, process.execPath, ...(args[0] === "-e" ? [] : [BIN]), ...args], { maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: "1" } });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`podrun ${args.join(" ")}: exit ${result.status}: ${String(result.stderr)}`);
  const [user = 0, system = 0, rssKb = 0] = readFileSync(out, "utf8").trim().split("\n").pop()!.split(" ").map(Number);
  return { ms, cpuMs: (user + system) * 1000, rssKb, outBytes: result.stdout.length };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

if (!existsSync("/usr/bin/time")) throw new Error("bench: /usr/bin/time is missing (apt-get install time)");
// PODRUN_BENCH_KEEP_DIR=DIR writes the log there and keeps it, to profile a listing by hand.
const keptDir = process.env.PODRUN_BENCH_KEEP_DIR;
const dir = keptDir ?? (await mkdtemp(join(tmpdir(), "podrun-bench-events-")));
try {
  const log = await writeLog(dir);
  const sizes = await Promise.all(Array.from({ length: log.files }, (_, g) => stat(logFilePath(dir, g)).then((s) => s.size)));
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}, ${cpus().length} CPUs, node ${process.version}`);
  // Node loads these certificates at start-up, before any of podrun's code: ~70 ms on the machine
  // the README's figures come from, which sets it for every process.
  if (process.env.NODE_EXTRA_CA_CERTS) console.log(`NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS} (read by node at every start)`);
  console.log(`log: ${log.events} events, ${(log.bytes / 1e6).toFixed(1)} MB in ${log.files} files (${sizes.map((s) => (s / 1e6).toFixed(1)).join(" + ")} MB); ${RUNS} runs each, median`);
  const checkpoint = checkpointPath(dir);
  const saved = `${checkpoint}.bench`;
  const current = logFilePath(dir);
  const currentSize = (await stat(current)).size;
  const noCheckpoint = () => rmSync(checkpoint, { force: true });
  const events = (...args: string[]) => ["events", ...args, "--state-dir", dir];
  const cases: [string, string[], (() => void)?][] = [
    ["node -e 0 (node's own start-up)", ["-e", "0"]],
    ["node bin/podrun.js --version (start-up alone)", ["--version"]],
    ["events, no checkpoint (every line read)", events(), noCheckpoint],
    ["events --json, no checkpoint", events("--json"), noCheckpoint],
    ["events --pod svc-7, no checkpoint", events("--pod", "svc-7"), noCheckpoint],
    ["events (the checkpoint of the listing before)", events()],
    ["events --json", events("--json")],
    ["events -o wide", events("-o", "wide")],
    ["events --pod svc-7 (filter)", events("--pod", "svc-7")],
    ["events --reason BackOff --type Normal", events("--reason", "BackOff", "--type", "Normal")],
    ["events --since 1h --limit 20", events("--since", "1h", "--limit", "20")],
  ];
  const report = (label: string, args: string[], prepare?: () => void) => {
    measure(args, prepare); // warm the page cache (and leave a checkpoint)
    const results = Array.from({ length: RUNS }, () => measure(args, prepare));
    const ms = median(results.map((r) => r.ms));
    const cpu = median(results.map((r) => r.cpuMs));
    const rss = median(results.map((r) => r.rssKb)) / 1024;
    const out = results[0]!.outBytes;
    console.log(`${ms.toFixed(0).padStart(6)} ms  ${cpu.toFixed(0).padStart(6)} ms CPU  ${rss.toFixed(0).padStart(4)} MB peak RSS  ${String(out).padStart(9)} B out  ${label}`);
  };
  for (const [label, args, prepare] of cases) report(label, args, prepare);
  // The checkpoint as the listing before left it, then MORE events appended since (the same
  // ones each run: the file is cut back to its size and they are appended again).
  copyFileSync(checkpoint, saved);
  report(`events, ${MORE} events appended since the checkpoint`, events(), () => {
    copyFileSync(saved, checkpoint);
    truncateSync(current, currentSize);
    appendFileSync(current, log.more);
  });
} finally {
  if (keptDir === undefined) await rm(dir, { recursive: true, force: true });
}
