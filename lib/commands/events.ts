import { createEventFilter } from "../events/event-filter.js";
import { EventTable, namespaceOf } from "../output/event-table.js";
import { EventFolder, toFoldedEvent, type FoldedRow } from "../events/fold.js";
import { foldAppended } from "../events/fold-lines.js";
import { createScannedLine } from "../events/line-scan.js";
import { followEventLog } from "../events/follow-log.js";
import { identify, readCheckpointAfterBytes, restoreCheckpoint, saveCheckpoint, type FileIdentity } from "../events/fold-checkpoint.js";
import { logFilePath, openLogFiles } from "../events/log-files.js";
import { textLines, type AppendedLines, type LogFileReader } from "../events/log-file-reader.js";
import { parseDurationOption } from "../events/parse-duration.js";
import { configureColor } from "../output/color.js";
import { resolveStateDir } from "../state/paths.js";
import { StateAccessError } from "../errors.js";
import { describeFsError } from "../state/state-error.js";
import { stopSignal } from "../process/stop-signal.js";
import { watchOutputClosed } from "../output/output-closed.js";

// `podrun events`: the event log, rotated files included, streamed line by line into folded rows
// (fold.ts: one row per distinct event, so memory follows the number of distinct events, not
// the size of the log), filtered, sorted by last seen, printed as kubectl prints events. With
// --watch the newest file stays open where the listing stopped and follow-log.ts carries on.
// SIGINT and SIGTERM end a watch normally: exit 0, since stopping is the only way a watch ends.

export interface EventsOptions {
  pod?: string;
  namespace?: string;
  type?: "Normal" | "Warning";
  reason?: string;
  /** A duration (`90s`, `10m`, `1h30m`, `2d`): only rows last seen within it. */
  since?: string;
  /** Only the `limit` most recent rows. */
  limit?: number;
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

export async function events(options: EventsOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr, now = Date.now } = options;
  const sinceMs = parseSince(options.since);
  const output = openOutput(stdout);
  const dir = options.stateDir ?? resolveStateDir(env);
  const filter = createEventFilter(options);
  const folder = new EventFolder(filter.active ? filter.matches : undefined);
  // Rows changed by the lines of one wake-up of --watch, each printed once in its latest state.
  let changed: Set<FoldedRow> | undefined;
  const scanned = createScannedLine();
  const addLines = (lines: AppendedLines): void => foldAppended(folder, filter, scanned, lines, (row) => changed?.add(row));

  const log = await readLog(dir, folder, addLines, { keepCurrentOpen: options.watch, checkpointAfterBytes: readCheckpointAfterBytes(env), mayMatchLine: filter.mayMatchLine });
  const { kept: current, seenInos } = log;
  const startMs = now();
  const isRecent = (row: FoldedRow) => sinceMs === undefined || row.lastMs >= startMs - sinceMs;
  let rows = folder.sortedRows().filter(isRecent);
  if (options.limit !== undefined) rows = rows.slice(-options.limit);

  const namespaces = new Set(rows.map((row) => namespaceOf(row.event)));
  const table = new EventTable({ wide: options.wide, namespace: !options.namespace && namespaces.size > 1, color: configureColor(env) });
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
  // After the output, which need not wait for it.
  try {
    await log.saveCheckpoint();
  } finally {
    if (!options.watch || output.closed.aborted) await current?.close();
  }
  if (!options.watch || output.closed.aborted) return;

  const { signal, release } = stopSignal(options.signal, output.closed);
  try {
    await followEventLog({
      dir,
      reader: current,
      seenInos,
      signal,
      onLines: (lines) => {
        changed = new Set();
        addLines(lines);
        output.write(formatRows([...changed].filter(isRecent), now()));
      },
    }).catch((error: unknown) => failRead(dir, error));
  } finally {
    release();
  }
}

/**
 * Feeds every line of the log to `onLines`, oldest file first, or, if the checkpoint of an
 * earlier listing still covers the log's start (fold-checkpoint.ts), puts its rows into `folder`
 * and feeds only the lines after it. A torn last line is handed on as it is (it fails to parse),
 * except with `keepCurrentOpen`: then the current file's reader is returned open, its unfinished
 * line kept, for --watch to complete. `seenInos`: the files read. `saveCheckpoint` leaves a
 * checkpoint for the next listing when this one folded enough lines (and had no filter).
 */
async function readLog(
  dir: string,
  folder: EventFolder,
  onLines: (lines: AppendedLines) => void,
  { keepCurrentOpen, checkpointAfterBytes, mayMatchLine }: { keepCurrentOpen: boolean; checkpointAfterBytes: number; mayMatchLine: (line: string) => boolean },
): Promise<{ kept?: LogFileReader; seenInos: number[]; saveCheckpoint(): Promise<void> }> {
  const readers = await openLogFiles(dir).catch((error: unknown) => failRead(dir, error));
  const seenInos = readers.map((reader) => reader.ino);
  const current = readers.find((reader) => reader.path === logFilePath(dir));
  let kept: LogFileReader | undefined;
  let foldedBytes = 0;
  let rotated: FileIdentity[] = [];
  let complete = true; // every rotated file read to the size it had when identified
  let currentEnd: number | undefined;
  try {
    // Identified before reading: a line appended meanwhile must make the checkpoint not match.
    const old = readers.filter((reader) => reader !== current);
    rotated = await Promise.all(old.map(identify));
    const restored = await restoreCheckpoint(dir, folder, rotated, current, mayMatchLine);
    for (const reader of readers) {
      if (restored && reader !== current) continue;
      const start = reader.position;
      for await (const lines of reader.readAppended()) onLines(lines);
      foldedBytes += reader.position - start;
      if (reader !== current && reader.position !== rotated[old.indexOf(reader)]?.size) complete = false;
      if (reader === current) currentEnd = reader.wholeLinesEnd;
      if (keepCurrentOpen && reader === current) kept = reader;
      else onLines(textLines([reader.takePending()]));
    }
  } catch (error) {
    await Promise.all(readers.map((reader) => reader.close()));
    failRead(dir, error);
  }
  // The current file stays open until the checkpoint has read the bytes it ends with.
  await Promise.all(readers.filter((reader) => reader !== kept && reader !== current).map((reader) => reader.close()));
  return {
    kept,
    seenInos,
    async saveCheckpoint() {
      try {
        if (current && currentEnd !== undefined && complete && foldedBytes >= checkpointAfterBytes) await saveCheckpoint(dir, folder, rotated, current, currentEnd);
      } finally {
        if (current !== kept) await current?.close();
      }
    },
  };
}

// A file-system error becomes one line naming the log (exit 1); anything else is a bug.
function failRead(dir: string, error: unknown): never {
  if ((error as NodeJS.ErrnoException).code === undefined) throw error;
  throw new StateAccessError(dir, `cannot read event log ${logFilePath(dir)}: ${describeFsError(error)}`, { cause: error });
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
