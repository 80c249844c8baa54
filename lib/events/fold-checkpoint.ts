import { randomBytes } from "node:crypto";
import { readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { EventFolder, FoldedRow } from "./fold.js";
import { createScannedLine, scanEventLine } from "./line-scan.js";
import type { LogFileReader } from "./log-file-reader.js";
import { NameCounts } from "./name-counts.js";
import { parseEventLine } from "./parse-event.js";

// `podrun events` folds every line of the log (fold.ts), ~20 times more lines than rows: on
// 100,000 events that is most of a listing. The log only ever grows at the end of its current
// file, and its rotated files do not change, so a listing leaves the folded rows behind in
// `<state dir>/events.folded`, with where they stop: the next listing puts them back and reads
// only the lines after that. This is a cache, never the record:
// - It names what it covers exactly: each rotated file by inode, size and modification time, the
//   current file by inode, the offset where its folded lines end and the bytes before that
//   offset. Anything else (a rotation since, a file rewritten, a torn or foreign checkpoint) and
//   it is ignored: the listing reads every line, as without it, and leaves a new one.
// - It is the folder's whole state (rows, the names each row has counted), so carrying on from
//   it gives the same rows as reading every line again, to the count.
// - Only a listing without filters leaves one (a filtered fold has dropped rows), and only after
//   reading at least CHECKPOINT_AFTER_BYTES of lines, or $PODRUN_EVENTS_CHECKPOINT_BYTES (a small
//   log is read about as fast as a checkpoint, and needs no file).
// - It is written to a temp file and renamed, so readers see a whole one or none; not fsynced:
//   losing it to a crash costs one slower listing. Concurrent listings each write a valid one.
//
// Layout: a header line (JSON: version, what it covers, lines folded, rows), then a line per row,
// oldest first: the row's first event as the log had it (so the log's fast scan, line-scan.ts,
// reads its key back), a tab (JSON escapes tabs inside strings), then [sequence, count, firstMs,
// lastMs, latest name, latest uid, the row's names ring] (times null when unknown: JSON has no
// -Infinity).

export const CHECKPOINT_FILE = "events.folded";
/** A listing that folded fewer bytes of lines than this leaves no checkpoint. */
export const CHECKPOINT_AFTER_BYTES = 1024 * 1024;

/** $PODRUN_EVENTS_CHECKPOINT_BYTES when it is a whole number (0: always), else CHECKPOINT_AFTER_BYTES. */
export function readCheckpointAfterBytes(env: NodeJS.ProcessEnv): number {
  const value = env.PODRUN_EVENTS_CHECKPOINT_BYTES;
  return value && /^\d+$/.test(value) ? Number(value) : CHECKPOINT_AFTER_BYTES;
}
const VERSION = 1;
/** Bytes before the current file's offset kept to recognize the file: a rewrite changes them. */
const CHECK_BYTES = 64;

/** A rotated file's content: rotation keeps the inode, and any change moves the size or the time. */
export interface FileIdentity {
  ino: number;
  size: number;
  mtimeNs: string;
}

interface CurrentPosition {
  ino: number;
  offset: number;
  /** The CHECK_BYTES bytes before `offset` (fewer at the start of the file), hex. */
  before: string;
}

interface Header {
  version: number;
  rotated: FileIdentity[];
  current: CurrentPosition;
  lineCount: number;
  rows: number;
}

export function checkpointPath(stateDir: string): string {
  return join(stateDir, CHECKPOINT_FILE);
}

/** The identity of the file open in `reader`, now. */
export async function identify(reader: LogFileReader): Promise<FileIdentity> {
  const info = await reader.handle.stat({ bigint: true });
  return { ino: Number(info.ino), size: Number(info.size), mtimeNs: String(info.mtimeNs) };
}

/**
 * Puts the stored rows back into `folder` (empty, with or without a filter) if the checkpoint
 * covers exactly these rotated files (`rotated`: identities taken before any is read) and a
 * prefix of `current`; `current` is then moved to where the checkpoint stops. Returns whether it
 * did; on false, nothing was touched.
 */
export async function restoreCheckpoint(
  stateDir: string,
  folder: EventFolder,
  rotated: readonly FileIdentity[],
  current: LogFileReader | undefined,
  /** The filter's test of a raw line (event-filter.ts): a row whose line fails it is not parsed. */
  mayMatchLine: (line: string) => boolean = () => true,
): Promise<boolean> {
  if (!current) return false;
  const text = await readFile(checkpointPath(stateDir), "utf8").catch(() => undefined);
  if (text === undefined) return false;
  const lines = text.split("\n");
  let header: Header;
  try {
    header = JSON.parse(lines[0]!) as Header;
  } catch {
    return false;
  }
  if (header?.version !== VERSION || !sameFiles(header.rotated, rotated) || !(await coversPrefixOf(header.current, current))) return false;
  if (!Number.isInteger(header.lineCount) || header.rows !== lines.length - 2 || lines.at(-1) !== "") return false;
  const rows = readRows(lines.slice(1, -1), mayMatchLine);
  if (!rows) return false;
  for (const { objectKey, tailKey, row } of rows) folder.restore(objectKey, tailKey, row);
  folder.resume(header.lineCount);
  current.position = header.current.offset;
  return true;
}

function sameFiles(stored: unknown, files: readonly FileIdentity[]): boolean {
  if (!Array.isArray(stored) || stored.length !== files.length) return false;
  return files.every((file, i) => {
    const other = stored[i] as FileIdentity | undefined;
    return other?.ino === file.ino && other.size === file.size && other.mtimeNs === file.mtimeNs;
  });
}

async function coversPrefixOf(position: CurrentPosition | undefined, reader: LogFileReader): Promise<boolean> {
  if (typeof position?.offset !== "number" || position.ino !== reader.ino || typeof position.before !== "string") return false;
  const before = await bytesBefore(reader, position.offset).catch(() => undefined);
  return before === position.before;
}

async function bytesBefore(reader: LogFileReader, offset: number): Promise<string | undefined> {
  const length = Math.min(CHECK_BYTES, offset);
  const bytes = Buffer.alloc(length);
  const { bytesRead } = await reader.handle.read(bytes, 0, length, offset - length);
  return bytesRead === length ? bytes.toString("hex") : undefined;
}

// All rows, or undefined if one does not read back as written.
function readRows(lines: readonly string[], mayMatchLine: (line: string) => boolean): { objectKey: string; tailKey: string; row: FoldedRow | undefined }[] | undefined {
  const scanned = createScannedLine();
  const rows: { objectKey: string; tailKey: string; row: FoldedRow | undefined }[] = [];
  for (const line of lines) {
    const tab = line.lastIndexOf("\t");
    if (tab < 0) return undefined;
    const eventLine = line.slice(0, tab);
    if (!scanEventLine(eventLine, scanned)) return undefined;
    if (!mayMatchLine(eventLine)) {
      rows.push({ objectKey: scanned.objectKey, tailKey: scanned.tailKey, row: undefined });
      continue;
    }
    const event = scanned.event ?? parseEventLine(eventLine);
    let extra: unknown;
    try {
      extra = JSON.parse(line.slice(tab + 1));
    } catch {
      return undefined;
    }
    if (!event || !Array.isArray(extra) || extra.length < 7) return undefined;
    const [sequence, count, firstMs, lastMs, latestName, latestUid, ...ring] = extra as unknown[];
    const names = NameCounts.fromArray(ring as number[]);
    const isTime = (value: unknown) => value === null || Number.isFinite(value);
    if (!names || !Number.isInteger(sequence) || !Number.isInteger(count) || !isTime(firstMs) || !isTime(lastMs)) return undefined;
    if (typeof latestName !== "string" || typeof latestUid !== "string") return undefined;
    const time = (value: unknown) => (value === null ? Number.NEGATIVE_INFINITY : (value as number));
    rows.push({
      // Views into this line: restore copies the keys; the rows keep the checkpoint's text (one
      // copy, read once per process).
      objectKey: scanned.objectKey,
      tailKey: scanned.tailKey,
      row: { event, line: eventLine, latestName, latestUid, count: count as number, firstMs: time(firstMs), lastMs: time(lastMs), sequence: sequence as number, names },
    });
  }
  return rows;
}

/**
 * Stores `folder`'s state as covering `rotated` (identities taken before they were read) and
 * `current` up to `offset`, where its whole lines ended (LogFileReader.wholeLinesEnd, taken
 * before an unfinished line was handed on). Does nothing for a filtered folder, or when the state
 * directory cannot be written (best effort).
 */
export async function saveCheckpoint(stateDir: string, folder: EventFolder, rotated: readonly FileIdentity[], current: LogFileReader, offset: number): Promise<void> {
  const snapshot = folder.snapshot();
  if (!snapshot) return;
  const before = await bytesBefore(current, offset).catch(() => undefined);
  if (before === undefined) return;
  const header: Header = { version: VERSION, rotated: [...rotated], current: { ino: current.ino, offset, before }, lineCount: snapshot.lineCount, rows: snapshot.rows.length };
  const time = (ms: number) => (Number.isFinite(ms) ? ms : null);
  const lines = [JSON.stringify(header)];
  for (const { row } of snapshot.rows) {
    const extra = [row.sequence, row.count, time(row.firstMs), time(row.lastMs), row.latestName, row.latestUid, ...row.names.toArray()];
    lines.push(`${row.line ?? JSON.stringify(row.event)}\t${JSON.stringify(extra)}`);
  }
  const file = checkpointPath(stateDir);
  const temp = join(stateDir, `.${CHECKPOINT_FILE}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    await writeFile(temp, `${lines.join("\n")}\n`, { mode: 0o600 });
    await rename(temp, file);
  } catch {
    await unlink(temp).catch(() => undefined);
  }
  await removeDeadTempFiles(stateDir);
}

// Temp files of listings killed before their rename. Another listing's may be in the middle of
// its rename: only those whose process is gone are removed.
async function removeDeadTempFiles(stateDir: string): Promise<void> {
  const names = await readdir(stateDir).catch(() => [] as string[]);
  const pattern = new RegExp(`^\\.${CHECKPOINT_FILE.replace(".", "\\.")}\\.(\\d+)\\.[0-9a-f]+\\.tmp$`);
  for (const name of names) {
    const pid = pattern.exec(name)?.[1];
    if (pid !== undefined && !isAlive(Number(pid))) await unlink(join(stateDir, name)).catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
