// `podrun events` beside its floor, in one run: a bare Node script that reads the same files and
// JSON.parses every line (bench/bare-parse.mjs), then the built CLI listing the log, as a table,
// as --json and filtered, with `node -e 0` and `podrun --version` for scale. Two logs: a full log
// at the default limits (every file at DEFAULT_MAX_BYTES, DEFAULT_KEPT_FILES old ones), and
// 100,000 events with the size limit raised through $PODRUN_EVENT_LOG_MAX_BYTES (reported, not a
// target: the defaults never keep that many). Both are written through the real writer and
// recorder (openEventLog, createRecorder): realistic runs of 300 pods, repeats folded by the
// recorder, long failure messages now and then, all within the retention. For each case: median,
// min and max wall time of RUNS runs (start-up included) and the median peak RSS (/usr/bin/time).
// Prints a Markdown table and whether the targets hold (full log: ≤ 2× the floor, ≤ 300 ms).
// Usage: npm run build && npx tsx bench/events.ts [runs]
// (PODRUN_BENCH_KEEP=1 keeps the two state directories, to profile a listing by hand; runs 0: only write them.)
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openEventLog, readMaxBytes } from "../lib/events/event-log.js";
import { DEFAULT_KEPT_FILES, DEFAULT_MAX_BYTES, logFilePath } from "../lib/events/log-files.js";
import { createRecorder } from "../lib/events/recorder.js";
import { toInvolvedObject } from "../lib/events/types.js";

const BIN = fileURLToPath(new URL("../bin/podrun.js", import.meta.url));
const BARE = fileURLToPath(new URL("./bare-parse.mjs", import.meta.url));
const RUNS = process.argv[2] === "0" ? 0 : Math.max(7, Number(process.argv[2] ?? 9));
const KEEP = process.env.PODRUN_BENCH_KEEP === "1";
const HOUR = 3_600_000;
/** The log's events span this much time before now: inside the default retention (72h). */
const SPAN_MS = 60 * HOUR;

// A deterministic pseudo-random sequence, so every run of the bench writes the same log.
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const PODS = Array.from({ length: 300 }, (_, i) => [`svc-${i}`, pick(["default", "ci", "staging"])] as const);

/**
 * Fills `dir` through the real writer, run after run (one recorder each, as one `podrun up`),
 * until `full()` says so. Times go from SPAN_MS ago to now, `runs` runs being expected.
 */
async function fillLog(
  dir: string,
  maxBytes: number,
  runs: number,
  full: (events: number) => boolean | Promise<boolean>,
): Promise<number> {
  const log = await openEventLog(dir, { env: { PODRUN_EVENT_LOG_MAX_BYTES: String(maxBytes) } });
  let events = 0;
  const start = Date.now() - SPAN_MS;
  const step = SPAN_MS / runs;
  for (let run = 0; !(await full(events)); run++) {
    const [pod, namespace] = PODS[run % PODS.length]!;
    let clock = start + Math.min(run, runs) * step;
    const recorder = createRecorder({
      sinks: [],
      log,
      clock: () => (clock += Math.floor(random() * 3000)),
      host: "ci-runner-7",
    });
    const uid = `${pod}-${run}-${Math.floor(random() * 1e9).toString(16)}`;
    for (const container of ["app", "sidecar"]) {
      const object = toInvolvedObject({ name: pod, namespace, uid }, { name: container });
      const record = (type: "Normal" | "Warning", reason: string, message: string) => {
        recorder.event(object, type, reason, message);
        events++;
      };
      const image = `127.0.0.1:5100/team/${pod}-${container}:1.${run % 4}`;
      if (random() < 0.15) {
        // A broken registry: a failure with a long message, then BackOff repeated (same name, count + 1).
        record(
          "Warning",
          "Failed",
          `Failed to pull image "${image}": ${"rpc error: code = Unknown desc = failed to resolve reference: ".repeat(6)}`,
        );
        for (let i = 1 + Math.floor(random() * 5); i > 0; i--)
          record("Normal", "BackOff", `Back-off pulling image "${image}"`);
        continue;
      }
      record("Normal", "Pulled", `Container image "${image}" already present on machine`);
      record("Normal", "Created", `Created container: ${container}`);
      record("Normal", "Started", `Started container ${container}`);
      if (random() < 0.2)
        record(
          "Warning",
          "Unhealthy",
          `Readiness probe failed: HTTP probe failed with statuscode: ${pick([500, 502, 503])}`,
        );
    }
    await recorder.flush();
  }
  await log.close();
  return events;
}

async function describeLog(dir: string): Promise<string> {
  const files = (await readdir(dir))
    .filter((name) => name.startsWith("events.ndjson") && !name.includes("lock"))
    .sort()
    .reverse();
  const sizes = await Promise.all(files.map(async (name) => (await stat(join(dir, name))).size));
  const lines = (
    await Promise.all(
      files.map(async (name) => (await readFile(join(dir, name), "utf8")).split("\n").filter(Boolean).length),
    )
  ).reduce((a, b) => a + b, 0);
  const total = sizes.reduce((a, b) => a + b, 0);
  return `${lines} lines, ${(total / 2 ** 20).toFixed(1)} MiB in ${files.length} files (${sizes.map((size) => (size / 2 ** 20).toFixed(2)).join(" + ")} MiB)`;
}

interface Result {
  ms: number[];
  rssKb: number[];
  outBytes: number;
}

// Wall time as seen from here (start-up included) and peak RSS from /usr/bin/time.
function measureOnce(argv: string[]): { ms: number; rssKb: number; outBytes: number } {
  const out = join(tmpdir(), `podrun-bench-time-${process.pid}`);
  const started = performance.now();
  const result = spawnSync("/usr/bin/time", ["-f", "%M", "-o", out, process.execPath, ...argv], {
    maxBuffer: 1 << 30,
    env: { ...process.env, NO_COLOR: "1" },
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`node ${argv.join(" ")}: exit ${result.status}: ${String(result.stderr)}`);
  const rssKb = Number(readFileSync(out, "utf8").trim().split("\n").pop());
  rmSync(out, { force: true });
  return { ms, rssKb, outBytes: result.stdout.length };
}

/** Runs every case RUNS times, interleaved (case 1, case 2, … then again), so that load on the machine falls on all alike. */
function measure(cases: readonly (readonly [string, string[]])[]): Map<string, Result> {
  const results = new Map<string, Result>(cases.map(([label]) => [label, { ms: [], rssKb: [], outBytes: 0 }]));
  for (const [, argv] of cases) measureOnce(argv); // warm the page cache
  for (let run = 0; run < RUNS; run++) {
    for (const [label, argv] of cases) {
      const { ms, rssKb, outBytes } = measureOnce(argv);
      const result = results.get(label)!;
      result.ms.push(ms);
      result.rssKb.push(rssKb);
      result.outBytes = outBytes;
    }
  }
  return results;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function printTable(title: string, results: Map<string, Result>): void {
  console.log(`\n${title}\n`);
  console.log("| case | median ms | min ms | max ms | peak RSS MiB | output |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const [label, { ms, rssKb, outBytes }] of results) {
    const output = outBytes >= 1024 ? `${(outBytes / 1024).toFixed(0)} KiB` : `${outBytes} B`;
    console.log(
      `| ${label} | ${median(ms).toFixed(0)} | ${Math.min(...ms).toFixed(0)} | ${Math.max(...ms).toFixed(0)} | ${(median(rssKb) / 1024).toFixed(0)} | ${output} |`,
    );
  }
}

const cases = (dir: string): [string, string[]][] => {
  const events = (...args: string[]) => [BIN, "events", "--state-dir", dir, ...args];
  return [
    ["(a) bare: read + JSON.parse every line", [BARE, dir]],
    ["(b) podrun events", events()],
    ["(c) podrun events --json", events("--json")],
    ["(d) podrun events --pod svc-7", events("--pod", "svc-7")],
    ["(d) podrun events --reason BackOff -o wide", events("--reason", "BackOff", "-o", "wide")],
  ];
};

if (!existsSync("/usr/bin/time")) throw new Error("bench: /usr/bin/time is missing (apt-get install time)");
if (!existsSync(new URL("../dist/cli.js", import.meta.url))) throw new Error("bench: run npm run build first");
if (readMaxBytes(process.env) !== DEFAULT_MAX_BYTES)
  throw new Error("bench: unset PODRUN_EVENT_LOG_MAX_BYTES: the full log is at the defaults");
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}, ${cpus().length} CPUs, node ${process.version}; ${RUNS} runs a case`,
);
if (process.env.NODE_EXTRA_CA_CERTS)
  console.log(`NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS} (read by node at every start)`);

const fullDir = await mkdtemp(join(tmpdir(), "podrun-bench-full-"));
const bigDir = await mkdtemp(join(tmpdir(), "podrun-bench-100k-"));
try {
  // Full: every old file kept, and the current one within a run of rotating again.
  const fullEvents = await fillLog(fullDir, DEFAULT_MAX_BYTES, 2000, async () => {
    const current = await stat(logFilePath(fullDir)).catch(() => undefined);
    return existsSync(logFilePath(fullDir, DEFAULT_KEPT_FILES)) && (current?.size ?? 0) >= DEFAULT_MAX_BYTES - 8 * 1024;
  });
  console.log(
    `full log at the defaults (${DEFAULT_MAX_BYTES / 2 ** 20} MiB × ${DEFAULT_KEPT_FILES + 1} files): ${await describeLog(fullDir)}; ${fullEvents} events written`,
  );
  // 100,000 events kept whole: four files of 16 MiB hold them.
  const BIG = 100_000;
  await fillLog(bigDir, 16 * 2 ** 20, Math.ceil(BIG / 9), (events) => events >= BIG);
  console.log(`100,000 events, PODRUN_EVENT_LOG_MAX_BYTES=${16 * 2 ** 20}: ${await describeLog(bigDir)}`);
  if (KEEP) console.log(`kept: ${fullDir} ${bigDir}`);
  if (RUNS > 0) report(fullDir, bigDir);
} finally {
  if (!KEEP) {
    await rm(fullDir, { recursive: true, force: true });
    await rm(bigDir, { recursive: true, force: true });
  }
}

function report(fullDir: string, bigDir: string): void {
  const scale = measure([
    ["(e) node -e 0", ["-e", "0"]],
    ["(e) podrun --version", [BIN, "--version"]],
  ]);
  const full = measure(cases(fullDir));
  const big = measure(cases(bigDir));
  printTable("Start-up, for scale", scale);
  printTable("(b)–(d) A full log at the default limits", full);
  printTable("(f) 100,000 events (limits raised; reported, not targeted)", big);
  const floor = median(full.get("(a) bare: read + JSON.parse every line")!.ms);
  const listing = median(full.get("(b) podrun events")!.ms);
  console.log(
    `\nfull log: podrun events ${listing.toFixed(0)} ms = ${(listing / floor).toFixed(2)}× the floor (target ≤ 2×), ${listing <= 300 ? "within" : "OVER"} 300 ms`,
  );
}
