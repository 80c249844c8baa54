import { open, rename, rm, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { withLock } from "../state/lock.js";
import { LogFileReader } from "./log-file-reader.js";
import { DEFAULT_RETENTION_MS } from "./retention.js";

// The files of the event log: `events.ndjson`, and after rotation `events.ndjson.1` (the newest
// old one) … `events.ndjson.3` (the oldest). Rotation renames each one step older under the state
// directory's lock; the file older than the last kept is overwritten by the rename, so there is
// no moment when a kept file is missing. Then, still under the lock, old files whose last write
// is older than the retention are deleted: every event in them is older still. Readers open
// files, never rename or delete them.

export const EVENT_LOG_FILE = "events.ndjson";
/** Old files kept by rotation (the "keep 3 old files"). */
export const DEFAULT_KEPT_FILES = 3;
/** Size past which the next writer rotates the log. */
export const DEFAULT_MAX_BYTES = 256 * 1024;

/** `events.ndjson` for 0, `events.ndjson.N` for the N-th old file. */
export function logFilePath(dir: string, generation = 0): string {
  return join(dir, generation === 0 ? EVENT_LOG_FILE : `${EVENT_LOG_FILE}.${generation}`);
}

/** The lock that serializes rotations (a directory next to the log, see state/lock.ts). */
export function logLockPath(dir: string): string {
  return join(dir, `${EVENT_LOG_FILE}.lock`);
}

export interface RotateOptions {
  maxBytes?: number;
  keep?: number;
  /** Old files last written longer ago than this are deleted (default 72h; Infinity keeps them). */
  retentionMs?: number;
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
}

/**
 * Rotates the log if its path still names the file with inode `seenIno` and that file is still
 * past `maxBytes`: two writers that notice the same full file rotate it once, not twice (a
 * second rotation would push a nearly empty file into `.1` and drop a full one for nothing).
 * Then prunes the old files past the retention. Returns whether this call rotated.
 */
export async function rotateEventLog(
  dir: string,
  seenIno: number,
  {
    maxBytes = DEFAULT_MAX_BYTES,
    keep = DEFAULT_KEPT_FILES,
    retentionMs = DEFAULT_RETENTION_MS,
    now = Date.now,
  }: RotateOptions = {},
): Promise<boolean> {
  return withLock(logLockPath(dir), async () => {
    // No current file (another podrun rotated or removed it meanwhile): nothing to rotate.
    const current = await stat(logFilePath(dir)).catch(() => undefined);
    if (!current || current.ino !== seenIno || current.size < maxBytes) return false;
    if (keep === 0) {
      await unlink(logFilePath(dir));
      return true;
    }
    for (let generation = keep - 1; generation >= 0; generation--) {
      await rename(logFilePath(dir, generation), logFilePath(dir, generation + 1)).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code !== "ENOENT") throw error; // a gap in the old files is fine
        },
      );
    }
    await pruneExpired(dir, keep, now() - retentionMs);
    return true;
  });
}

// An event is written when it happens (or, for a repeat, happens again), so no event in a file
// is newer than the file's last write: a file last written before `cutoffMs` holds only expired
// events.
async function pruneExpired(dir: string, keep: number, cutoffMs: number): Promise<void> {
  for (let generation = 1; generation <= keep; generation++) {
    // A generation that is not there has nothing to prune.
    const info = await stat(logFilePath(dir, generation)).catch(() => undefined);
    if (info && info.mtimeMs < cutoffMs) await rm(logFilePath(dir, generation), { force: true });
  }
}

/**
 * Opens every file of the log, oldest first, as one consistent set. The current file is opened
 * first, then `.1`, `.2`…: a rotation in between can only make a file appear twice (dropped here
 * by inode), never skip one that exists, because rename moves files towards the higher numbers
 * this loop has not reached yet. Open descriptors keep their content even if renamed meanwhile.
 */
export async function openLogFiles(dir: string, keep = DEFAULT_KEPT_FILES): Promise<LogFileReader[]> {
  const readers: LogFileReader[] = [];
  const seen = new Set<number>();
  try {
    for (let generation = 0; generation <= keep; generation++) {
      const reader = await openLogFile(logFilePath(dir, generation));
      if (!reader) continue;
      if (seen.has(reader.ino)) await reader.close();
      else {
        seen.add(reader.ino);
        readers.unshift(reader);
      }
    }
  } catch (error) {
    await Promise.all(readers.map((reader) => reader.close()));
    throw error;
  }
  return readers;
}

/** A reader at the start of `file`, or undefined if there is no such file. */
export async function openLogFile(file: string): Promise<LogFileReader | undefined> {
  const handle = await open(file, "r").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (!handle) return undefined;
  try {
    return new LogFileReader(handle, file, (await handle.stat()).ino);
  } catch (error) {
    await handle.close();
    throw error;
  }
}
