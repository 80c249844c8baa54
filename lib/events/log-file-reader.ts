import type { FileHandle } from "node:fs/promises";

// Reads one open event-log file by explicit position (pread), so the same reader serves the
// listing and then `--watch`: each call returns what was appended since the previous one, as
// whole lines. A line is whole once its "\n" is there; the unfinished rest (a line being written,
// or torn by a crash) waits until it is completed or the caller gives up on it (takePending).
// Lines are cut from the bytes ("\n" never occurs inside a UTF-8 sequence) and each is decoded
// on its own: a substring of one big decoded chunk would keep the whole chunk alive for as long
// as a folded row holds on to the line, which is how memory would grow with the log.

// Large enough that a 10 MB file takes ~40 reads; small enough to stay a bounded buffer.
const CHUNK_BYTES = 256 * 1024;
// An event is a few hundred bytes; a "line" past this is junk (a file that is not a log) and is
// dropped as it comes rather than held in memory until a newline shows up.
const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** What an oversized line is replaced with: not JSON, so readers count it as invalid. */
export const OVERSIZED_LINE = "\u0000oversized line";

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

  /** Whole lines appended since the last call, one array per chunk read, up to the end of the file now. */
  async *readAppended(): AsyncGenerator<string[]> {
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
        const lines = this.splitLines(chunk, bytesRead);
        if (lines.length > 0) yield lines;
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

  private splitLines(chunk: Buffer, length: number): string[] {
    const lines: string[] = [];
    let start = 0;
    let end: number;
    while ((end = chunk.indexOf(0x0a, start)) >= 0 && end < length) {
      if (this.pendingBytes > 0 || this.oversized) {
        this.keepPending(chunk.subarray(start, end));
        lines.push(this.takePending());
      } else {
        // No encoding named: UTF-8 without Buffer's lookup of the encoding's name, once per line.
        lines.push(chunk.toString(undefined, start, end));
      }
      start = end + 1;
    }
    if (start < length) this.keepPending(chunk.subarray(start, length));
    return lines;
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
