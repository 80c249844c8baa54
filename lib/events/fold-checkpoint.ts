import { randomBytes } from "node:crypto";
import { readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { EventFolder, FoldedRow, RowKey } from "./fold.js";
import { createScannedLine, scanEventLine } from "./line-scan.js";
import type { LogFileReader } from "./log-file-reader.js";
import { NAMES_KEPT, NameCounts } from "./name-counts.js";
import { removeDeadTempFiles } from "../state/dead-temp-files.js";

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
// Layout: a header line (JSON: version, what it covers, lines folded, rows, bytes of text), then
// a line per row, oldest first: the row's first event as the log had it (so the log's fast scan,
// line-scan.ts, reads its key back), a tab (JSON escapes tabs inside strings), then its latest
// name and uid as a JSON array; then the rows' numbers as little-endian float64s, NUMBERS_PER_ROW
// a row: sequence, count, firstMs, lastMs (-Infinity when unknown), then the names ring
// (name-counts.ts: where the next name goes, how many numbers it holds, its hash/count pairs,
// padded). Numbers as text (a ring is 32 numbers of up to 16 digits) took most of the time of
// writing and reading a checkpoint.

export const CHECKPOINT_FILE = "events.folded";
/** A listing that folded fewer bytes of lines than this leaves no checkpoint. */
export const CHECKPOINT_AFTER_BYTES = 1024 * 1024;

/** $PODRUN_EVENTS_CHECKPOINT_BYTES when it is a whole number (0: always), else CHECKPOINT_AFTER_BYTES. */
export function readCheckpointAfterBytes(env: NodeJS.ProcessEnv): number {
  const value = env.PODRUN_EVENTS_CHECKPOINT_BYTES;
  return value && /^\d+$/.test(value) ? Number(value) : CHECKPOINT_AFTER_BYTES;
}
// 2: keys and names hashed by the WebAssembly scanner (line-scan.ts).
const VERSION = 2;
const RING_NUMBERS = NAMES_KEPT * 2;
const NUMBERS_PER_ROW = 4 + 2 + RING_NUMBERS;
/** Temp files of a save (the pid of its process first). */
const TEMP_FILE = /^\.events\.folded\.(\d+)\.[0-9a-f]+\.tmp$/;
const IS_LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;
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
  /** Bytes of the row lines, after the header line; the numbers follow. */
  textBytes: number;
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
  const data = await readFile(checkpointPath(stateDir)).catch(() => undefined);
  const headerEnd = data?.indexOf(0x0a) ?? -1;
  if (!data || headerEnd < 0) return false;
  let header: Header;
  try {
    header = JSON.parse(data.toString("utf8", 0, headerEnd)) as Header;
  } catch {
    return false;
  }
  if (header?.version !== VERSION || !sameFiles(header.rotated, rotated) || !(await coversPrefixOf(header.current, current))) return false;
  const { rows: rowCount, textBytes, lineCount } = header;
  if (!Number.isInteger(lineCount) || !Number.isInteger(rowCount) || !Number.isInteger(textBytes)) return false;
  const textStart = headerEnd + 1;
  const numbersStart = textStart + textBytes;
  if (rowCount < 0 || textBytes < 0 || data.length !== numbersStart + rowCount * NUMBERS_PER_ROW * 8) return false;
  const lines = data.toString("utf8", textStart, numbersStart).split("\n");
  if (lines.length !== rowCount + 1 || lines.at(-1) !== "") return false;
  // Copied out: a Float64Array needs an aligned start, which a slice of the file has not.
  const numbers = new Float64Array(data.buffer.slice(data.byteOffset + numbersStart, data.byteOffset + data.length));
  const rows = readRows(lines, numbers, mayMatchLine);
  if (!rows) return false;
  for (const row of rows) folder.restore(row);
  folder.resume(lineCount);
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
  if (!position || !Number.isInteger(position.offset) || position.offset < 0 || position.ino !== reader.ino || typeof position.before !== "string") return false;
  const before = await bytesBefore(reader, position.offset).catch(() => undefined);
  return before === position.before;
}

async function bytesBefore(reader: LogFileReader, offset: number): Promise<string | undefined> {
  const length = Math.min(CHECK_BYTES, offset);
  const bytes = Buffer.alloc(length);
  const { bytesRead } = await reader.handle.read(bytes, 0, length, offset - length);
  return bytesRead === length ? bytes.toString("hex") : undefined;
}

// All rows, or undefined if one does not read back as written. `lines` ends with "".
function readRows(
  lines: readonly string[],
  numbers: Float64Array,
  mayMatchLine: (line: string) => boolean,
): (FoldedRow | RowKey)[] | undefined {
  const scanned = createScannedLine();
  const rows: (FoldedRow | RowKey)[] = [];
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    const tab = line.lastIndexOf("\t");
    if (tab < 0) return undefined;
    const eventLine = line.slice(0, tab);
    if (!scanEventLine(eventLine, scanned)) return undefined;
    const { keyHash, keyCheck } = scanned;
    if (!mayMatchLine(eventLine)) {
      rows.push({ keyHash, keyCheck });
      continue;
    }
    const event = scanned.parsed();
    let latest: unknown;
    try {
      latest = JSON.parse(line.slice(tab + 1));
    } catch {
      return undefined;
    }
    if (!event || !Array.isArray(latest) || typeof latest[0] !== "string" || typeof latest[1] !== "string") return undefined;
    const at = i * NUMBERS_PER_ROW;
    const [sequence, count, firstMs, lastMs] = [numbers[at]!, numbers[at + 1]!, numbers[at + 2]!, numbers[at + 3]!];
    const names = NameCounts.fromNumbers(numbers, at + 4);
    const isTime = (value: number) => value === Number.NEGATIVE_INFINITY || Number.isFinite(value);
    if (!names || !Number.isInteger(sequence) || !Number.isInteger(count) || !isTime(firstMs) || !isTime(lastMs)) return undefined;
    rows.push({ event, line: eventLine, keyHash, keyCheck, sameBucket: undefined, latestName: latest[0], latestUid: latest[1], count, firstMs, lastMs, sequence, names });
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
  const text: string[] = [];
  const numbers = new Float64Array(snapshot.rows.length * NUMBERS_PER_ROW);
  snapshot.rows.forEach((row, i) => {
    text.push(`${row.line ?? JSON.stringify(row.event)}\t${JSON.stringify([row.latestName, row.latestUid])}\n`);
    const at = i * NUMBERS_PER_ROW;
    numbers[at] = row.sequence;
    numbers[at + 1] = row.count;
    numbers[at + 2] = row.firstMs;
    numbers[at + 3] = row.lastMs;
    row.names.toNumbers(numbers, at + 4);
  });
  const rowText = Buffer.from(text.join(""), "utf8");
  const header: Header = {
    version: VERSION,
    rotated: [...rotated],
    current: { ino: current.ino, offset, before },
    lineCount: snapshot.lineCount,
    rows: snapshot.rows.length,
    textBytes: rowText.length,
  };
  // Float64Array stores in the machine's byte order; the file says little-endian.
  if (!IS_LITTLE_ENDIAN) return;
  const data = [Buffer.from(`${JSON.stringify(header)}\n`), rowText, Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength)];
  const file = checkpointPath(stateDir);
  const temp = join(stateDir, `.${CHECKPOINT_FILE}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    await writeFile(temp, Buffer.concat(data), { mode: 0o600 });
    await rename(temp, file);
  } catch {
    await unlink(temp).catch(() => undefined);
  }
  await removeDeadTempFiles(stateDir, TEMP_FILE);
}
