import type { FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";

// Reads one open event-log file by position, so the same reader serves the listing and then
// `--watch`: each call returns the lines appended since the previous one. A line is whole once
// its "\n" is there; the unfinished rest (a line being written, or torn by a crash) waits until
// it is completed or the caller gives up on it (takePending).

const CHUNK_BYTES = 256 * 1024;
// An event is a few hundred bytes; a "line" past this is junk (a file that is not a log) and is
// dropped as it comes rather than held in memory until a newline shows up.
const MAX_LINE_CHARS = 4 * 1024 * 1024;
/** What an oversized line is replaced with: not JSON, so readers count it as invalid. */
export const OVERSIZED_LINE = "\u0000oversized line";

export class LogFileReader {
  /** Bytes read so far: the next read starts here. */
  position = 0;
  private pending = "";
  private oversized = false;
  private buffer: Buffer | undefined;
  // Keeps a UTF-8 character cut by a chunk's end for the next chunk.
  private readonly decoder = new StringDecoder("utf8");

  constructor(
    readonly handle: FileHandle,
    readonly path: string,
    /** Inode of the open file, to tell when the log's path has moved on to another file. */
    readonly ino: number,
  ) {}

  /** Whole lines appended since the last call, a chunk's worth at a time, up to the end of the file now. */
  async *readLines(): AsyncGenerator<string[]> {
    const buffer = (this.buffer ??= Buffer.allocUnsafe(CHUNK_BYTES));
    for (;;) {
      const { bytesRead } = await this.handle.read(buffer, 0, CHUNK_BYTES, this.position);
      if (bytesRead === 0) return;
      this.position += bytesRead;
      const lines = this.cutLines(this.decoder.write(buffer.subarray(0, bytesRead)));
      if (lines.length > 0) yield lines;
    }
  }

  /** The unfinished last line, handed out once: at the end of a file nobody will append to again. */
  takePending(): string {
    const rest = this.oversized ? OVERSIZED_LINE : this.pending + this.decoder.end();
    this.pending = "";
    this.oversized = false;
    return rest;
  }

  async close(): Promise<void> {
    this.buffer = undefined;
    // Opened to read only: a failed close loses nothing, and the reader is done with it.
    await this.handle.close().catch(() => undefined);
  }

  private cutLines(text: string): string[] {
    const lines = text.split("\n");
    const rest = lines.pop()!;
    if (lines.length > 0) {
      lines[0] = this.oversized ? OVERSIZED_LINE : this.pending + lines[0]!;
      this.pending = "";
      this.oversized = false;
    }
    if (this.oversized) return lines;
    this.pending += rest;
    if (this.pending.length > MAX_LINE_CHARS) {
      this.pending = "";
      this.oversized = true;
    }
    return lines;
  }
}
