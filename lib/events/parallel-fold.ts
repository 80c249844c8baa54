import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { EventFilterOptions } from "./event-filter.js";
import type { FoldState } from "./fold.js";
import type { LogFileReader } from "./log-file-reader.js";

// `podrun events` on a large log: reading is CPU-bound (a regular expression per line, then a
// fold), so the log is cut into parts at line starts, the older parts are folded by worker
// threads while the main thread folds the newest part, and the folders are merged in log order
// (EventFolder.appendLater). The main thread keeps the newest part because `--watch` goes on
// from where it stopped reading. Workers read through the main thread's descriptors, so a
// rotation meanwhile changes nothing: the parts were cut from files already open.

/** Below this many bytes a part is not worth a thread (a worker takes ~30 ms to start). */
export const MIN_BYTES_PER_THREAD = 4 * 1024 * 1024;
const MAX_THREADS = 4;
// In the bundle this module is a chunk beside dist/chunks/fold-worker.js; run from source (tests
// through tsx) there is no such file and the log is read in one thread.
const WORKER_FILE = fileURLToPath(new URL("./fold-worker.js", import.meta.url));

export interface FoldRange {
  fd: number;
  path: string;
  start: number;
  end: number;
  /** The range ends an old file: its unfinished last line is a (torn) line too. */
  atFileEnd: boolean;
}

export interface FoldJob {
  ranges: FoldRange[];
  filter: EventFilterOptions;
}

/** A line start in the log: file index (oldest first) and byte offset. */
export interface LogPosition {
  file: number;
  offset: number;
}

export interface ParallelFold {
  /** Where the main thread starts reading. */
  mainFrom: LogPosition;
  /** The workers' folders, oldest part first. */
  states: Promise<FoldState[]>;
}

/**
 * Threads for a log of `bytes`: one per MIN_BYTES_PER_THREAD, at most the CPUs (and 4). The
 * environment may set PODRUN_EVENTS_THREADS (1 reads in one thread).
 */
export function chooseThreads(bytes: number, cpus: number, env: NodeJS.ProcessEnv = process.env): number {
  const forced = Number(env.PODRUN_EVENTS_THREADS);
  if (Number.isInteger(forced) && forced >= 1) return Math.min(forced, MAX_THREADS * 4);
  return Math.max(1, Math.min(MAX_THREADS, cpus, Math.floor(bytes / MIN_BYTES_PER_THREAD)));
}

/** `threads - 1` cut points that split the log's bytes evenly, before aligning them to lines (pure). */
export function planCuts(sizes: readonly number[], threads: number): LogPosition[] {
  const total = sizes.reduce((sum, size) => sum + size, 0);
  const cuts: LogPosition[] = [];
  for (let part = 1; part < threads; part++) {
    let target = Math.floor((total * part) / threads);
    let file = 0;
    while (file < sizes.length - 1 && target >= sizes[file]!) target -= sizes[file++]!;
    cuts.push({ file, offset: target });
  }
  return cuts;
}

/** The ranges of each part between consecutive line starts (pure). The last position is the main thread's. */
export function rangesBetween(positions: readonly LogPosition[], readers: readonly { fd: number; path: string; size: number }[]): FoldRange[][] {
  const parts: FoldRange[][] = [];
  for (let i = 0; i + 1 < positions.length; i++) {
    const [from, to] = [positions[i]!, positions[i + 1]!];
    const ranges: FoldRange[] = [];
    for (let file = from.file; file <= to.file; file++) {
      const { fd, path, size } = readers[file]!;
      const start = file === from.file ? from.offset : 0;
      const end = file === to.file ? to.offset : size;
      const atFileEnd = end === size && file < readers.length - 1;
      if (end > start || atFileEnd) ranges.push({ fd, path, start, end, atFileEnd });
    }
    parts.push(ranges);
  }
  return parts;
}

/**
 * Starts worker threads on the older parts of the log open in `readers`, or returns undefined
 * when one thread is enough (a small log, one CPU, no worker file).
 */
export async function startParallelFold(readers: readonly LogFileReader[], filter: EventFilterOptions, env: NodeJS.ProcessEnv = process.env): Promise<ParallelFold | undefined> {
  const sizes = readers.map((reader) => reader.size);
  const threads = chooseThreads(sizes.reduce((sum, size) => sum + size, 0), availableParallelism(), env);
  if (threads < 2 || readers.some((reader) => reader.handle.fd === undefined) || !existsSync(WORKER_FILE)) return undefined;
  const aligned: LogPosition[] = [];
  for (const cut of planCuts(sizes, threads)) {
    const position = await alignToLine(readers, cut);
    const last = aligned.at(-1) ?? { file: 0, offset: 0 };
    if (position && (position.file > last.file || (position.file === last.file && position.offset > last.offset))) aligned.push(position);
  }
  if (aligned.length === 0) return undefined;
  const files = readers.map((reader) => ({ fd: reader.handle.fd!, path: reader.path, size: reader.size }));
  const parts = rangesBetween([{ file: 0, offset: 0 }, ...aligned], files);
  const states = Promise.all(parts.map((ranges) => runWorker({ ranges, filter })));
  states.catch(() => undefined); // awaited by the caller once its own part is read
  return { mainFrom: aligned.at(-1)!, states };
}

/**
 * The first line start at or after `cut`: just past the next "\n". The end of an old file ends a
 * line too; in the current file, with no "\n" after the cut, there is no cut (undefined).
 */
async function alignToLine(readers: readonly LogFileReader[], cut: LogPosition): Promise<LogPosition | undefined> {
  if (cut.offset === 0) return cut;
  const reader = readers[cut.file]!;
  const block = Buffer.allocUnsafe(64 * 1024);
  for (let from = cut.offset - 1; from < reader.size; from += block.length) {
    const { bytesRead } = await reader.handle.read(block, 0, Math.min(block.length, reader.size - from), from);
    if (bytesRead === 0) break;
    const newline = block.subarray(0, bytesRead).indexOf(0x0a);
    if (newline >= 0) return normalize(readers, { file: cut.file, offset: from + newline + 1 });
  }
  return cut.file < readers.length - 1 ? { file: cut.file + 1, offset: 0 } : undefined;
}

// The end of a file is the start of the next one, if there is a next one.
function normalize(readers: readonly LogFileReader[], position: LogPosition): LogPosition {
  return position.offset >= readers[position.file]!.size && position.file < readers.length - 1 ? { file: position.file + 1, offset: 0 } : position;
}

function runWorker(job: FoldJob): Promise<FoldState> {
  return new Promise((resolve, reject) => {
    // A worker's default young generation is small for this allocation rate: measured, it spent
    // a third of its time collecting; 48 MB brings it level with the main thread.
    const worker = new Worker(WORKER_FILE, { workerData: job, resourceLimits: { maxYoungGenerationSizeMb: 48 } });
    let settled = false;
    worker.once("message", (state: FoldState) => {
      settled = true;
      resolve(state);
    });
    worker.once("error", (error) => {
      settled = true;
      reject(error);
    });
    worker.once("exit", (code) => {
      if (!settled) reject(new Error(`event log reader thread exited with code ${code}`));
    });
  });
}
