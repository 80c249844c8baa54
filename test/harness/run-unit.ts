import { fork, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { findUnitTests } from "./unit-files.js";

// `npm run test:unit`: every unit test (test/harness/unit-files.ts says which), in a few processes
// that each import file after file (unit-worker.ts), as test/unit-suite.test.ts runs them all in
// one for `npm test`. A process per file spent more in start-up (node, tsx, the modules) than most
// files take to run; one process for all waits out every file's real timers one after the other.
// Most unit time is waiting (child processes, timers), so there are twice as many processes as
// CPUs, and each takes the next file when it is done with one. Files named on the command line
// run alone the same way. $PODRUN_UNIT_WORKERS sets how many processes (scripts/test.mjs: one, beside tap).
//
// Why not `tap` here: a tap test file is a plain script that node runs with tsx, as tap runs it
// (package.json), and tap's runner and reporter add nothing a unit file needs. Output: one line per
// file, the whole TAP output of a process a failed file ran in, a summary; exit 1 when any failed.

/** Worker → runner: ready for a file, or done with one. (tap sends its own messages too: {setTimeout}.) */
export type UnitMessage = { unit: "ready" } | UnitDone;
export interface UnitDone {
  unit: "done";
  file: string;
  seconds: number;
  ok: boolean;
}
/** Runner → worker: the next file; none when there is no file left. */
export interface UnitNext {
  file?: string;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const WORKER = fileURLToPath(new URL("./unit-worker.ts", import.meta.url));

/**
 * The files that take longest, started first, so that none of them starts last and ends alone:
 * the fuzzing test (CPU: 500 manifests) takes more than the others together share out. A file
 * missing here, or gone, changes only the order.
 */
const SLOWEST = [
  "test/commands/fuzz.test.ts",
  "test/runtime/stream-command.test.ts",
  "test/commands/corpus.test.ts",
  "test/manifest/schema.test.ts",
  "test/output/console-sink.test.ts",
  "test/commands/workload-ref.test.ts",
  "test/state/backoff-store.test.ts",
];
const slowestFirst = (files: string[]) => {
  const rank = (file: string) => (SLOWEST.includes(file) ? SLOWEST.indexOf(file) : SLOWEST.length);
  return [...files].sort((a, b) => rank(a) - rank(b));
};

interface ProcessRun {
  output: string;
  failed: boolean;
  /** The file under way when the process ended, if one was. */
  cut?: string;
}

/** One worker process, taking files from `queue` until none is left or the process ends. */
function runProcess(queue: string[], report: (done: UnitDone) => void): Promise<ProcessRun> {
  const child: ChildProcess = fork(WORKER, [], {
    cwd: ROOT,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    // As tap gives its test processes: no colour, whatever the terminal.
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  let current: string | undefined;
  let failed = false;
  // tap in the worker sends messages of its own ({setTimeout}), for a tap runner: ignored.
  child.on("message", (message: UnitMessage | { unit?: undefined }) => {
    if (message.unit === "done") {
      current = undefined;
      failed ||= !message.ok;
      report(message);
    } else if (message.unit === "ready") {
      current = queue.shift();
      child.send({ file: current } satisfies UnitNext);
    }
  });
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      const ended = current !== undefined || code !== 0 || signal !== null;
      resolve({ output, failed: failed || ended, ...(current !== undefined && { cut: current }) });
    });
  });
}

/**
 * Processes one after the other until the queue is empty. A process can end under a file that is
 * not to blame (an uncaught error from an earlier file's leftover timer ends tap's root test): that
 * file runs once more in a new process, and fails if it ends that one too.
 */
async function runWorker(queue: string[], report: (done: UnitDone) => void): Promise<ProcessRun[]> {
  const runs: ProcessRun[] = [];
  const retried = new Set<string>();
  do {
    const run = await runProcess(queue, report);
    runs.push(run);
    if (run.cut === undefined) continue;
    if (retried.has(run.cut)) report({ unit: "done", file: run.cut, seconds: 0, ok: false });
    else queue.unshift(run.cut);
    retried.add(run.cut);
  } while (queue.length > 0);
  return runs;
}

async function main(): Promise<void> {
  const files = process.argv.length > 2 ? process.argv.slice(2) : await findUnitTests(ROOT);
  const started = performance.now();
  const queue = slowestFirst(files);
  let failures = 0;
  const report = (done: UnitDone) => {
    if (!done.ok) failures++;
    process.stdout.write(`${done.ok ? "ok  " : "FAIL"} ${done.seconds.toFixed(1).padStart(5)}s  ${done.file}\n`);
  };
  const workers = Math.min(Number(process.env["PODRUN_UNIT_WORKERS"]) || availableParallelism() * 2, files.length);
  const runs = (await Promise.all(Array.from({ length: workers }, () => runWorker(queue, report)))).flat();
  for (const run of runs.filter((run) => run.failed)) process.stdout.write(`\n${run.output}\n`);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`\n${files.length} files, ${failures} failed, ${seconds}s\n`);
  if (failures > 0 || runs.some((run) => run.failed)) process.exitCode = 1;
}

await main();
