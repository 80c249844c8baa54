import { rm } from "node:fs/promises";
import { join } from "node:path";
import { createEventFilter } from "../events/event-filter.js";
import { EventTable, namespaceOf } from "../output/event-table.js";
import { EventFold, toFoldedEvent, type FoldedRow } from "../events/fold.js";
import { followEventLog } from "../events/follow-log.js";
import { logFilePath, openLogFiles } from "../events/log-files.js";
import type { LogFileReader } from "../events/log-file-reader.js";
import { parseDurationOption } from "../events/parse-duration.js";
import { resolveRetention } from "../events/retention.js";
import { configureColor } from "../output/color.js";
import { resolveStateDir } from "../state/paths.js";
import { StateAccessError, UsageError } from "../errors.js";
import { parseLabelSelector } from "../manifest/label-selector.js";
import { findPods, selectByLabels } from "../pod/status/find-pods.js";
import type { RuntimeFactory } from "../runtime/cli-runtime.js";
import { openEngine } from "./engine-command.js";
import type { RuntimeName } from "../runtime/detect.js";
import { describeFsError } from "../state/state-error.js";
import { stopSignal } from "../process/stop-signal.js";
import { watchOutputClosed } from "../output/output-closed.js";
import { createWorkloadEventFilter } from "../kinds/workload-event-filter.js";
import { parseResourceRef } from "../kinds/workload-ref.js";

// `podrun events`: the event log, rotated files included (oldest first), read line by line into
// folded rows (fold.ts), events past the retention left out, filtered, sorted by last seen,
// printed as kubectl prints events. With --watch the newest file stays open where the listing
// stopped and follow-log.ts carries on. SIGINT and SIGTERM end a watch normally: exit 0, since
// stopping is the only way a watch ends.

/** What podrun before this layout of the log left beside it (a cache of folded rows): deleted. */
const LEFTOVER_CHECKPOINT = "events.folded";

export interface EventsOptions {
  /** A pod's name, `pod/NAME`, a workload (`deploy/web`): its own events and its pods', or a Service (`svc/api`). */
  pod?: string;
  /**
   * `-l`: the events of the pods whose labels match, as the engine holds them now (a pod already
   * gone has no labels left to match). Instead of `pod`.
   */
  selector?: string;
  /** With `selector`: the engine to ask (default: $PODRUN_RUNTIME, else the first that answers). */
  runtime?: RuntimeName;
  /** The engine to talk to; a fake in engine-free tests. Default: the container CLI. */
  createRuntime?: RuntimeFactory;
  namespace?: string;
  type?: "Normal" | "Warning";
  reason?: string;
  /** A duration (`90s`, `10m`, `1h30m`, `2d`): only rows last seen within it. */
  since?: string;
  /** Only the `limit` most recent rows. */
  limit?: number;
  /** Hide events last seen longer ago (`72h`, `7d`; `0` or `none`: hide none). Default: $PODRUN_EVENTS_RETENTION, else 72h. */
  retention?: string;
  wide: boolean;
  json: boolean;
  watch: boolean;
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** Wall-clock ms since the epoch (default Date.now). */
  now?: () => number;
  /** Ends a watch (default: SIGINT or SIGTERM). */
  signal?: AbortSignal;
}

/** `-l`: the pods (`namespace/name`) the engine has whose labels match (in -n's namespace, if given, as the other filters). */
async function selectedPods(options: EventsOptions, env: NodeJS.ProcessEnv): Promise<Set<string> | undefined> {
  if (options.selector === undefined) return undefined;
  if (options.pod !== undefined) throw new UsageError("only a selector (-l) or a POD name is allowed");
  const selector = parseLabelSelector(options.selector);
  const runtime = await openEngine(options, env);
  const filter = options.namespace === undefined ? {} : { namespace: options.namespace };
  const records = selectByLabels(await findPods(runtime, filter), selector);
  return new Set(records.map((record) => `${record.namespace}/${record.name}`));
}

export async function events(options: EventsOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr, now = Date.now } = options;
  const sinceMs = parseSince(options.since);
  const retentionMs = resolveRetention(options.retention, env);
  const output = openOutput(stdout);
  const dir = options.stateDir ?? resolveStateDir(env);
  const ref = options.pod === undefined ? undefined : parseResourceRef(options.pod, "events");
  const pods = await selectedPods(options, env);
  // An object's own events (a workload's, a Service's: involvedObject kind and name), and its pods'.
  const filter =
    ref && ref.kind !== "Pod"
      ? createWorkloadEventFilter(ref, { namespace: options.namespace, type: options.type, reason: options.reason })
      : createEventFilter({ ...options, pod: ref?.name ?? options.pod, pods });
  const startMs = now();
  const fold = new EventFold({
    accept: filter.active ? filter.matches : undefined,
    notBeforeMs: Number.isFinite(retentionMs) ? startMs - retentionMs : undefined,
  });
  // Rows changed by the lines of one wake-up of --watch, each printed once in its latest state.
  let changed: Set<FoldedRow> | undefined;
  const addLines = (lines: readonly string[]): void => {
    for (const line of lines) {
      if (line === "" || !filter.mayMatchLine(line)) continue;
      const row = fold.addLine(line);
      if (row) changed?.add(row);
    }
  };

  // Best effort: a checkpoint a killed run left behind; none is the usual case.
  await rm(join(dir, LEFTOVER_CHECKPOINT), { force: true }).catch(() => undefined);
  const { kept: current, seenInos } = await readLog(dir, addLines, options.watch);
  const isRecent = (row: FoldedRow) => sinceMs === undefined || row.lastMs >= startMs - sinceMs;
  let rows = fold.sortedRows().filter(isRecent);
  if (options.limit !== undefined) rows = rows.slice(-options.limit);

  const namespaces = new Set(rows.map((row) => namespaceOf(row.event)));
  const table = new EventTable({
    wide: options.wide,
    namespace: !options.namespace && namespaces.size > 1,
    color: configureColor(env),
  });
  if (options.watch && !options.wide) table.reserveForRepeats();
  let headerDone = false;
  const formatRows = (batch: Iterable<FoldedRow>, nowMs: number): string[] => {
    if (options.json) return [...batch].map((row) => JSON.stringify(toFoldedEvent(row)));
    const cells = [...batch].map((row) => table.cellsOf(row, nowMs));
    for (const row of cells) table.fit(row); // every width known before the first line
    const lines = cells.map((row) => table.formatLine(row));
    if (!headerDone && lines.length > 0) lines.unshift(table.formatHeader());
    headerDone ||= lines.length > 0;
    return lines;
  };

  if (rows.length === 0) stderr.write("No events found.\n");
  else output.write(formatRows(rows, startMs));
  if (!options.watch || output.closed.aborted) {
    await current?.close();
    return;
  }

  const stop = stopSignal(options.signal, output.closed);
  try {
    await followEventLog({
      dir,
      reader: current,
      seenInos,
      signal: stop.signal,
      onLines: (lines) => {
        changed = new Set();
        addLines(lines);
        output.write(formatRows([...changed].filter(isRecent), now()));
      },
    }).catch((error: unknown) => failRead(dir, error));
  } finally {
    stop.release();
  }
}

/**
 * Feeds every line of the log to `onLines`, oldest file first. A torn last line is handed on as
 * it is (it fails to parse), except with `keepCurrentOpen`: then the current file's reader is
 * returned open, its unfinished line kept, for --watch to complete. `seenInos`: the files read.
 */
async function readLog(
  dir: string,
  onLines: (lines: readonly string[]) => void,
  keepCurrentOpen: boolean,
): Promise<{ kept?: LogFileReader; seenInos: number[] }> {
  const readers = await openLogFiles(dir).catch((error: unknown) => failRead(dir, error));
  const current = readers.find((reader) => reader.path === logFilePath(dir));
  let kept: LogFileReader | undefined;
  try {
    for (const reader of readers) {
      for await (const lines of reader.readLines()) onLines(lines);
      if (keepCurrentOpen && reader === current) kept = reader;
      else onLines([reader.takePending()]);
    }
  } catch (error) {
    await Promise.all(readers.map((reader) => reader.close()));
    failRead(dir, error);
  }
  await Promise.all(readers.filter((reader) => reader !== kept).map((reader) => reader.close()));
  return { kept, seenInos: readers.map((reader) => reader.ino) };
}

// A file-system error becomes one line naming the log (exit 1); anything else is a bug.
function failRead(dir: string, error: unknown): never {
  if ((error as NodeJS.ErrnoException).code === undefined) throw error;
  throw new StateAccessError(dir, `cannot read event log ${logFilePath(dir)}: ${describeFsError(error)}`, {
    cause: error,
  });
}

function parseSince(value: string | undefined): number | undefined {
  return value === undefined ? undefined : parseDurationOption(value, "--since");
}

/**
 * Writes lines to `stream` in a few big writes rather than one per row, and notices when the
 * reader goes away (`podrun events | head -3`: EPIPE): the rest is dropped, a watch stops, and
 * the exit is quiet, as for any command whose output was cut short on purpose.
 */
function openOutput(stream: NodeJS.WritableStream): { write(lines: readonly string[]): void; closed: AbortSignal } {
  const closed = watchOutputClosed(stream);
  return {
    closed,
    write(lines) {
      for (let start = 0; start < lines.length && !closed.aborted; start += 1000) {
        stream.write(`${lines.slice(start, start + 1000).join("\n")}\n`);
      }
    },
  };
}
