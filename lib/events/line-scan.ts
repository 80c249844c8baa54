import { readFileSync } from "node:fs";
import { timeOf } from "./event-time.js";
import { CHUNK_BYTES } from "./log-file-reader.js";
import { parseEventLine } from "./parse-event.js";
import type { KubeEvent } from "./types.js";

// What folding needs of one log line: its fold key and event name (as hashes), count and times.
// Lines in the recorder's layout are read as bytes by a WebAssembly scanner (lib/wasm/line-scan.ts):
// decoding every line into a string and cutting fields out of it with a regular expression was
// two thirds of listing 100,000 events. Any other line (an older or newer podrun, a hand-written
// line, an escape in a name) is parsed with JSON.parse here, and its key and name are hashed by
// the same WebAssembly functions from the text the recorder would have written, so that the same
// event folds into one row whichever way it was read.
//
// Keys are compared by 64-bit hashes (53 bits as a number, 11 as a check): two different keys of
// one log would have to agree on all 64 bits to fold together, a chance of about 2^-40 among
// 5,000 distinct rows (100,000 events of 300 pods make 4,647), 2^-25 among a million.

declare const PODRUN_LINE_SCAN_WASM: string | undefined; // base64, set by the bundle (scripts/build.mjs)

// Memory left readable after the bytes of a read: the scanner loads 16 bytes at a time.
const SLACK_BYTES = 64;
// Lines given as text are copied here to be scanned; longer ones (no recorder line is) go to JSON.parse.
const SCRATCH_BYTES = 64 * 1024;
const PAGE_BYTES = 64 * 1024;

// results[] of lib/wasm/line-scan.ts.
const RESULT_IN_LAYOUT = 0;
const RESULT_KEY = 1;
const RESULT_KEY_CHECK = 2;
const RESULT_NAME = 3;
const RESULT_COUNT = 4;
const RESULT_FIRST = 5;
const RESULT_LAST = 6;
const RESULT_NAME_START = 7;
const RESULT_NAME_END = 8;
const RESULT_UID_START = 9;
const RESULT_UID_END = 10;
const RESULT_NEWLINE = 11;
const RESULT_KEY_BUCKET = 12;

// The part of the WebAssembly API used here (@types/node leaves it to the DOM's types).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: WasmApi | undefined };

interface ScannerExports {
  memory: WasmMemory;
  results(): number;
  freeMemory(): number;
  scanLine(start: number, end: number): number;
  hashBegin(kind: number): void;
  hashPart(at: number, length: number): void;
  hashEnd(): void;
}

interface Scanner {
  exports: ScannerExports;
  /** All of its memory, which never grows (views of it would be detached). */
  bytes: Buffer;
  results: Float64Array;
  /** Where a block of lines is copied to be scanned (CHUNK_BYTES), then the scratch buffer. */
  block: number;
  scratch: number;
}

let scanner: Scanner | undefined;

// Compiled on first use: commands that read no log pay nothing.
function getScanner(): Scanner {
  if (scanner) return scanner;
  // `node --jitless` has no WebAssembly. A code makes it an error of reading the log (exit 1, one
  // line), not a bug.
  if (!wasm) throw Object.assign(new Error("it needs WebAssembly, which this node process lacks (started with --jitless?)"), { code: "ERR_PODRUN_NO_WASM" });
  const exports = new wasm.Instance(new wasm.Module(wasmBytes())).exports as ScannerExports;
  const block = exports.freeMemory();
  const scratch = block + CHUNK_BYTES + SLACK_BYTES;
  const needed = scratch + SCRATCH_BYTES + SLACK_BYTES;
  const have = exports.memory.buffer.byteLength;
  if (needed > have) exports.memory.grow(Math.ceil((needed - have) / PAGE_BYTES));
  const bytes = Buffer.from(exports.memory.buffer);
  scanner = {
    exports,
    bytes,
    results: new Float64Array(exports.memory.buffer, exports.results(), 16),
    block,
    scratch,
  };
  return scanner;
}

function wasmBytes(): Uint8Array {
  if (typeof PODRUN_LINE_SCAN_WASM === "string") return Buffer.from(PODRUN_LINE_SCAN_WASM, "base64");
  // Run from source (tests, tsx): the file the build compiled.
  const file = new URL("../../dist/line-scan.wasm", import.meta.url);
  try {
    return readFileSync(file);
  } catch (error) {
    throw new Error(`${file.pathname} is missing: run \`npm run build\` first`, { cause: error });
  }
}

// Buffer's own decoder of Latin-1 (ASCII here: the scanner lets no other byte into a name or
// uid), called without toString's checks and encoding lookup: two strings per line made this way
// were ~7% of a listing through toString.
interface FastBuffer extends Buffer {
  latin1Slice(start: number, end: number): string;
}

/** One scanned line: filled in place line after line (no object per line). */
export class ScannedLine {
  /** The fold key (involved object but its uid, field path, reason, message, type) as a 53-bit number… */
  keyHash = 0;
  /** …and 11 more bits of it. */
  keyCheck = 0;
  /** The low 30 bits of keyHash: a small integer, to map rows by (fold.ts). */
  keyBucket = 0;
  /** metadata.name, hashed. */
  nameHash = 0;
  count = 0;
  firstMs = 0;
  lastMs = 0;
  /** Whether the last line scanned into this was an event (scanBlockLine). */
  isEvent = false;
  /** The event, when the line was read by JSON.parse or given as an object. */
  event: KubeEvent | undefined = undefined;
  // Where the line was read from: text, or bytes of the scanner's memory (valid until the next scan).
  private text: string | undefined = undefined;
  private memory: Buffer | undefined = undefined;
  private lineStart = 0;
  private lineEnd = 0;
  private nameStart = 0;
  private nameEnd = 0;
  private uidStart = 0;
  private uidEnd = 0;
  private nameText = "";
  private uidText = "";

  /** metadata.name. */
  name(): string {
    return this.memory ? (this.memory as FastBuffer).latin1Slice(this.nameStart, this.nameEnd) : this.nameText;
  }

  /** involvedObject.uid. */
  uid(): string {
    return this.memory ? (this.memory as FastBuffer).latin1Slice(this.uidStart, this.uidEnd) : this.uidText;
  }

  /** The line as the log has it, or undefined for an event given as an object. */
  line(): string | undefined {
    if (this.text !== undefined) return this.text;
    return this.memory ? this.memory.toString("utf8", this.lineStart, this.lineEnd) : undefined;
  }

  /** The event, parsed from the line if it was scanned as bytes; undefined if JSON rejects it. */
  parsed(): KubeEvent | undefined {
    if (this.event) return this.event;
    const line = this.line();
    return line === undefined ? undefined : parseEventLine(line);
  }

  /** Fills from the scanner's results of a line in the recorder's layout. */
  fromResults(results: Float64Array, memory: Buffer, lineStart: number, text: string | undefined): void {
    this.keyHash = results[RESULT_KEY]!;
    this.keyCheck = results[RESULT_KEY_CHECK]!;
    this.keyBucket = results[RESULT_KEY_BUCKET]! | 0;
    this.nameHash = results[RESULT_NAME]!;
    this.count = results[RESULT_COUNT]!;
    this.firstMs = results[RESULT_FIRST]!;
    this.lastMs = results[RESULT_LAST]!;
    this.nameStart = results[RESULT_NAME_START]!;
    this.nameEnd = results[RESULT_NAME_END]!;
    this.uidStart = results[RESULT_UID_START]!;
    this.uidEnd = results[RESULT_UID_END]!;
    this.lineStart = lineStart;
    this.lineEnd = results[RESULT_NEWLINE]!;
    this.memory = memory;
    this.text = text;
    this.event = undefined;
    if (text !== undefined) {
      // Scanned in the scratch buffer, which the next scan or hash overwrites: read now.
      this.nameText = this.name();
      this.uidText = this.uid();
      this.memory = undefined;
    }
  }

  /** Fills from an event object (and the line it was parsed from, if any). */
  fromEvent(event: KubeEvent, text: string | undefined): void {
    const object = event.involvedObject ?? {};
    const quote = (value: unknown) => JSON.stringify(value === undefined || value === null ? "" : String(value));
    const namespace = quote(object.namespace || event.metadata.namespace || "default");
    const fieldPath = object.fieldPath === undefined ? "" : `,"fieldPath":${quote(object.fieldPath)}`;
    // The two spans of text the scanner hashes, as JSON.stringify writes them in a recorder line.
    const { keyHash, keyCheck, keyBucket } = hashKey(
      `"kind":${quote(object.kind)},"name":${quote(object.name)},"namespace":${namespace}`,
      `${fieldPath}},"reason":${quote(event.reason)},"message":${quote(event.message)},"type":${quote(event.type)}`,
    );
    this.keyHash = keyHash;
    this.keyCheck = keyCheck;
    this.keyBucket = keyBucket;
    this.nameText = event.metadata.name;
    this.nameHash = hashName(this.nameText);
    this.uidText = String(object.uid ?? "");
    this.count = typeof event.count === "number" && event.count > 0 ? event.count : 1; // the newer API leaves 0 for "once"
    this.firstMs = timeOf(event.firstTimestamp || event.lastTimestamp || "");
    this.lastMs = timeOf(event.lastTimestamp || event.firstTimestamp || "");
    this.memory = undefined;
    this.text = text;
    this.event = event;
  }
}

/** ScannedLine.keyBucket of a keyHash: its low 30 bits, as the scanner gives them. */
export function keyBucketOf(keyHash: number): number {
  return keyHash % 2 ** 30;
}

export function createScannedLine(): ScannedLine {
  return new ScannedLine();
}

/** Whole lines copied into the scanner's memory, [at, end), to be scanned by scanBlockLine. */
export interface LoadedBlock {
  at: number;
  end: number;
}

/**
 * Copies whole lines (`bytes[start, end)`, at most CHUNK_BYTES, each ending in a newline) into
 * the scanner's memory, replacing the block loaded before. Copied rather than read there: a
 * copy costs ~4 ms per 57 MB here, and leaves no buffer shared between readers (listings run
 * side by side in one process, as tests do).
 */
export function loadBlock(bytes: Buffer, start: number, end: number): LoadedBlock {
  const { bytes: memory, block } = getScanner();
  if (end - start > CHUNK_BYTES) throw new RangeError(`a block of ${end - start} bytes is larger than ${CHUNK_BYTES}`);
  return { at: block, end: block + bytes.copy(memory, block, start, end) };
}

/**
 * Scans the line at `at` of the loaded block, up to `end`, and returns the position after it.
 * `out.isEvent` says whether it was an event, and `out` is filled if so (until the next load).
 * `mayMatchLine`, a filter's cheap test, is asked only of lines that need JSON.parse: lines in
 * the recorder's layout cost less to scan than to test.
 */
export function scanBlockLine(at: number, end: number, out: ScannedLine, mayMatchLine?: (line: string) => boolean): number {
  const { exports, bytes, results } = getScanner();
  const next = exports.scanLine(at, end);
  out.isEvent = false;
  if (next === 0) return end; // no newline: not a whole line (loadBlock takes whole lines)
  if (results[RESULT_IN_LAYOUT] === 1) {
    out.fromResults(results, bytes, at, undefined);
    out.isEvent = true;
  } else {
    const line = bytes.toString("utf8", at, next - 1);
    out.isEvent = line !== "" && (mayMatchLine === undefined || mayMatchLine(line)) && scanParsedLine(line, out);
  }
  return next;
}

/** Fills `out` from `line` (text); false if the line is not an event. */
export function scanEventLine(line: string, out: ScannedLine): boolean {
  const { exports, bytes, results, scratch } = getScanner();
  // A recorder line is a few hundred bytes: utf8 at most 3 bytes per UTF-16 unit.
  if (line.length * 3 < SCRATCH_BYTES) {
    const length = bytes.write(line, scratch, "utf8");
    bytes[scratch + length] = 0x0a;
    const end = scratch + length + 1;
    // The whole text must be the line: a newline inside it would end the line there.
    if (exports.scanLine(scratch, end) === end && results[RESULT_IN_LAYOUT] === 1) {
      out.fromResults(results, bytes, scratch, line);
      return true;
    }
  }
  return scanParsedLine(line, out);
}

function scanParsedLine(line: string, out: ScannedLine): boolean {
  const event = parseEventLine(line);
  if (!event) return false;
  out.fromEvent(event, line);
  return true;
}

/** Fills `out` from an event object, with the same key and name hashes as its line would give. */
export function scanEvent(event: KubeEvent, out: ScannedLine): void {
  out.fromEvent(event, undefined);
}

const KIND_OBJECT = 0;
const KIND_REST = 1;
const KIND_NAME = 2;

function hashKey(objectSpan: string, restSpan: string): { keyHash: number; keyCheck: number; keyBucket: number } {
  const { results } = getScanner();
  hashText(KIND_OBJECT, objectSpan);
  hashText(KIND_REST, restSpan);
  return { keyHash: results[RESULT_KEY]!, keyCheck: results[RESULT_KEY_CHECK]!, keyBucket: results[RESULT_KEY_BUCKET]! | 0 };
}

/** metadata.name hashed as the scanner hashes it in a line. */
export function hashName(name: string): number {
  hashText(KIND_NAME, name);
  return getScanner().results[RESULT_KEY]!; // hashEnd's slot
}

// Streams the UTF-8 of `text` through the scratch buffer, in parts of a multiple of 8 bytes.
function hashText(kind: number, text: string): void {
  const { exports, bytes, scratch } = getScanner();
  exports.hashBegin(kind);
  if (text.length * 3 <= SCRATCH_BYTES) {
    exports.hashPart(scratch, bytes.write(text, scratch, "utf8"));
  } else {
    const utf8 = Buffer.from(text, "utf8");
    for (let at = 0; at < utf8.length; at += SCRATCH_BYTES) {
      const length = utf8.copy(bytes, scratch, at, Math.min(at + SCRATCH_BYTES, utf8.length));
      exports.hashPart(scratch, length);
    }
  }
  exports.hashEnd();
}
