import type { FileHandle } from "node:fs/promises";

// Reads one open event-log file by explicit position (pread), so the same reader serves the
// listing and then `--watch`: each call returns what was appended since the previous one, as
// whole lines. A line is whole once its "\n" is there; the unfinished rest (a line being written,
// or torn by a crash) waits until it is completed or the caller gives up on it (takePending).
// Whole lines are handed out as the bytes they were read into, undecoded: `podrun events` scans
// them as bytes (line-scan.ts) and makes strings only of what it keeps; linesOf decodes them for
// other readers. A line begun in one read and ended in the next is joined and handed out as text.

// Large enough that a 10 MB file takes ~40 reads; small enough to stay a bounded buffer.
export const CHUNK_BYTES = 256 * 1024;
// An event is a few hundred bytes; a "line" past this is junk (a file that is not a log) and is
// dropped as it comes rather than held in memory until a newline shows up.
const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** What an oversized line is replaced with: not JSON, so readers count it as invalid. */
export const OVERSIZED_LINE = "\u0000oversized line";

/** What one read added: lines completed across reads (as text), then whole lines as bytes. */
export interface AppendedLines {
  /** At most one line, begun in an earlier read: it comes before the block. */
  joined: string[];
  /** block[start, end) is whole lines, each ending in "\n". The buffer is reused by the next read. */
  block: Buffer;
  start: number;
  end: number;
}

/** Lines given as text only (an unfinished line given up on). */
export function textLines(lines: string[]): AppendedLines {
  return { joined: lines, block: EMPTY, start: 0, end: 0 };
}
const EMPTY = Buffer.alloc(0);

/** The lines of `appended` as text, in order. */
export function linesOf({ joined, block, start, end }: AppendedLines): string[] {
  const lines = [...joined];
  let at = start;
  while (at < end) {
    const newline = block.indexOf(0x0a, at);
    lines.push(block.toString("utf8", at, newline));
    at = newline + 1;
  }
  return lines;
}

export class LogFileReader {
  /** Bytes read so far: the next read starts here. */
  position = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private oversized = false;
  /** Two buffers: the next chunk is read into one while the lines of the other are handed out. */
  private buffers: [Buffer, Buffer] | undefined;

  constructor(
    readonly handle: FileHandle,
    readonly path: string,
    /** Inode of the open file, to tell when the log's path has moved on to another file. */
    readonly ino: number,
  ) {}

  /**
   * Whole lines appended since the last call, read by chunk, up to the end of the file now. A
   * chunk's buffer is read into again once the generator is resumed: use it before.
   */
  async *readAppended(): AsyncGenerator<AppendedLines> {
    let [filling, spare] = (this.buffers ??= [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)]);
    // The next read is asked for before this chunk's lines are cut and folded: the thread pool
    // copies it meanwhile, where waiting for each read in turn left the main thread idle ~10% of
    // a listing. A read still under way when the caller stops is waited for (finally), so that
    // the next call cannot read into a buffer that is still being written.
    let reading: Promise<{ bytesRead: number }> | undefined = this.read(filling);
    try {
      for (;;) {
        const { bytesRead } = await reading;
        reading = undefined;
        if (bytesRead === 0) return;
        const chunk = filling;
        [filling, spare] = [spare, filling];
        this.position += bytesRead;
        reading = this.read(filling);
        const lines = this.cutLines(chunk, bytesRead);
        if (lines.joined.length > 0 || lines.end > lines.start) yield lines;
      }
    } finally {
      await reading?.catch(() => undefined);
    }
  }

  // A read that fails while the caller is busy with the lines before it is only awaited later: a
  // handler now keeps that from counting as an unhandled rejection (the await still throws).
  private read(buffer: Buffer): Promise<{ bytesRead: number }> {
    const reading = this.handle.read(buffer, 0, CHUNK_BYTES, this.position);
    reading.catch(() => undefined);
    return reading;
  }

  /**
   * Where the whole lines handed out so far end: the start of the unfinished line, if any.
   * Undefined while an oversized line is being dropped (its start is not kept).
   */
  get wholeLinesEnd(): number | undefined {
    return this.oversized ? undefined : this.position - this.pendingBytes;
  }

  /** The unfinished last line, handed out once: at the end of a file nobody will append to again. */
  takePending(): string {
    const rest = this.oversized ? OVERSIZED_LINE : Buffer.concat(this.pending).toString("utf8");
    this.clearPending();
    return rest;
  }

  async close(): Promise<void> {
    this.buffers = undefined;
    await this.handle.close().catch(() => undefined);
  }

  // The line begun in an earlier read ends at the first newline; whole lines follow, up to the
  // last newline; the rest waits for the next read.
  private cutLines(chunk: Buffer, length: number): AppendedLines {
    const joined: string[] = [];
    let start = 0;
    const first = chunk.indexOf(0x0a);
    if (first < 0 || first >= length) {
      this.keepPending(chunk.subarray(0, length));
      return { joined, block: chunk, start: 0, end: 0 };
    }
    if (this.pendingBytes > 0 || this.oversized) {
      this.keepPending(chunk.subarray(0, first));
      joined.push(this.takePending());
      start = first + 1;
    }
    const end = chunk.lastIndexOf(0x0a, length - 1) + 1;
    if (end < length) this.keepPending(chunk.subarray(end, length));
    return { joined, block: chunk, start, end };
  }

  // Copied: the chunk buffer is reused by the next read.
  private keepPending(bytes: Buffer): void {
    if (this.oversized) return;
    this.pending.push(Buffer.from(bytes));
    this.pendingBytes += bytes.length;
    if (this.pendingBytes > MAX_LINE_BYTES) {
      this.clearPending();
      this.oversized = true;
    }
  }

  private clearPending(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.oversized = false;
  }
}
