import { open, stat, type FileHandle } from "node:fs/promises";
import { ensureStateDir } from "../state/paths.js";
import { StateAccessError } from "../errors.js";
import { describeFsError } from "../state/state-error.js";
import { DEFAULT_KEPT_FILES, DEFAULT_MAX_BYTES, logFilePath, openLogFiles, rotateEventLog } from "./log-files.js";
import { parseEventLine } from "./parse-event.js";
import type { EventLogWriter } from "./recorder.js";
import { DEFAULT_RETENTION_MS, RETENTION_ENV, parseRetention } from "./retention.js";
import type { KubeEvent } from "./types.js";

// The event log: `<state dir>/events.ndjson`, one Event per line, appended by every podrun run.
// Each line goes out in one write(2) on a file opened with O_APPEND, so lines from concurrent
// runs never interleave. A repeated event appears again with its new count and lastTimestamp
// under the same metadata.name: readers keep the last line of each name (fold.ts).
//
// Rotation (log-files.ts): the writer that finds the file past the size limit rotates it under
// the lock, and deletes the old files past the retention (retention.ts). Every other writer
// still holds the old file open, so before each append a writer stat()s the path and reopens
// when the inode there is no longer its own. The other way, open, write and close per event,
// costs more (bench/event-append.ts) and would check the file's last byte on every open; a run
// writes a few dozen events, so either is noise next to one engine command, and the cheaper one
// wins. A write that races a rotation (stat, someone rotates, write) lands at the end of `.1`:
// late, not lost, and readers read `.1` too.

export { EVENT_LOG_FILE } from "./log-files.js";

export interface EventLog extends EventLogWriter {
  close(): Promise<void>;
}

export interface EventLogOptions {
  /** Rotate once the file is this large (default: $PODRUN_EVENT_LOG_MAX_BYTES, else DEFAULT_MAX_BYTES). */
  maxBytes?: number;
  /** Old files kept (default 3). */
  keep?: number;
  /** At rotation, delete old files last written longer ago (default: $PODRUN_EVENTS_RETENTION, else 72h). */
  retentionMs?: number;
  /** For PODRUN_EVENT_LOG_MAX_BYTES and PODRUN_EVENTS_RETENTION (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** How the file is opened (default fs.promises.open): tests make its writes short, as a full disk does. */
  open?: typeof open;
}

interface OpenFile {
  handle: FileHandle;
  ino: number;
  /** The file does not end with "\n" (a line torn by a crash): start the next write with one. */
  needsNewline: boolean;
}

/** Opens (creating if needed) the event log of `dir` for appending. */
export async function openEventLog(dir: string, options: EventLogOptions = {}): Promise<EventLog> {
  await ensureStateDir(dir);
  const file = logFilePath(dir);
  const env = options.env ?? process.env;
  const maxBytes = options.maxBytes ?? readMaxBytes(env);
  const keep = options.keep ?? DEFAULT_KEPT_FILES;
  const retentionMs = options.retentionMs ?? readWriterRetention(env);
  const fail = (what: string, error: unknown): never => {
    throw new StateAccessError(file, `cannot ${what} event log ${file}: ${describeFsError(error)}`, { cause: error });
  };
  const openFile = options.open ?? open;
  let current = await openForAppend(file, openFile).catch((error: unknown) => fail("open", error));

  // Makes `current` the file the path names now, rotating it first if it is full.
  const followPath = async (): Promise<void> => {
    // No file at the path (removed meanwhile): openForAppend below makes one.
    let info = await stat(file).catch(() => undefined);
    if (info && info.size >= maxBytes) {
      // Best effort: if the lock cannot be had, the event still goes into the big file, and the
      // next append tries again. Losing an event would be worse than a file past its size.
      await rotateEventLog(dir, info.ino, { maxBytes, keep, retentionMs }).catch(() => false);
      // Rotated away: nothing at the path until openForAppend makes the new file.
      info = await stat(file).catch(() => undefined);
    }
    if (info?.ino === current.ino) return;
    const next = await openForAppend(file, openFile);
    // Every append to the old file has completed: a failed close cannot take one back.
    await current.handle.close().catch(() => undefined);
    current = next;
  };

  return {
    async append(event) {
      await followPath().catch((error: unknown) => fail("reopen", error));
      const text = `${current.needsNewline ? "\n" : ""}${JSON.stringify(event)}\n`;
      const line = Buffer.from(text, "utf8");
      const { bytesWritten } = await current.handle.write(line).catch((error: unknown) => fail("write", error));
      // Only a full disk writes short; what was written is a torn line that readers skip, and
      // the next line, should space come back, must not be glued to it.
      current.needsNewline = bytesWritten !== line.length;
      if (bytesWritten !== line.length)
        throw new StateAccessError(file, `cannot write event log ${file}: short write (disk full?)`);
    },
    close: () => current.handle.close(),
  };
}

async function openForAppend(file: string, openFile: typeof open): Promise<OpenFile> {
  // "a+": O_APPEND for the writes, plus reading, to look at the last byte.
  const handle = await openFile(file, "a+", 0o600);
  try {
    const { ino, size } = await handle.stat();
    let needsNewline = false;
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      needsNewline = last[0] !== 0x0a;
    }
    return { handle, ino, needsNewline };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** PODRUN_EVENT_LOG_MAX_BYTES when it is a positive integer, else DEFAULT_MAX_BYTES. */
export function readMaxBytes(env: NodeJS.ProcessEnv): number {
  const value = env.PODRUN_EVENT_LOG_MAX_BYTES;
  return value && /^[1-9]\d*$/.test(value) ? Number(value) : DEFAULT_MAX_BYTES;
}

// A writer keeps the default for a value that is not a duration: pruning is housekeeping, and
// must not fail a run (`podrun events` reports the value as a usage error).
function readWriterRetention(env: NodeJS.ProcessEnv): number {
  const value = env[RETENTION_ENV];
  if (value === undefined || value === "") return DEFAULT_RETENTION_MS;
  try {
    return parseRetention(value, `$${RETENTION_ENV}`);
  } catch {
    // Not a duration: the default, as said above; `podrun events` reports the value.
    return DEFAULT_RETENTION_MS;
  }
}

export interface ReadEventLogOptions {
  /** Told about each line that is not an event (a torn line from a crash or a full disk). */
  onInvalidLine?: (lineNumber: number, file: string) => void;
  /** Old files to read besides the current one (default 3). */
  keep?: number;
}

/**
 * The events of `dir`'s log, the rotated files first (oldest first), streamed; a missing log has
 * none; lines that are not events are skipped. Every event on disk, expired or not.
 */
export async function* readEventLog(dir: string, options: ReadEventLogOptions = {}): AsyncGenerator<KubeEvent> {
  const readers = await openLogFiles(dir, options.keep).catch((error: unknown) => {
    throw new StateAccessError(dir, `cannot read event log ${logFilePath(dir)}: ${describeFsError(error)}`, {
      cause: error,
    });
  });
  try {
    for (const reader of readers) {
      const file = reader.path;
      let lineNumber = 0;
      const parse = function* (lines: readonly string[]) {
        for (const line of lines) {
          lineNumber++;
          if (line === "") continue;
          const event = parseEventLine(line);
          if (event) yield event;
          else options.onInvalidLine?.(lineNumber, file);
        }
      };
      for await (const lines of reader.readLines()) yield* parse(lines);
      yield* parse([reader.takePending()]);
    }
  } finally {
    await Promise.all(readers.map((reader) => reader.close()));
  }
}
