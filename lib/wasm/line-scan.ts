// AssemblyScript, compiled to WebAssembly by scripts/build.mjs (not part of the TypeScript program):
// the scanner behind lib/events/line-scan.ts. `podrun events` folds every line of the event log,
// and reading 100,000 lines as JavaScript strings (decode each line, match it, cut fields out of
// it, hash and compare the keys) was ~7 µs a line. Here a line is read where it lies, as bytes:
// it is checked against the recorder's layout, its numbers are read, and its fold key and event
// name are hashed; JavaScript gets numbers, and makes a string only for what it keeps.
//
// A line in the layout of lib/events/recorder.ts (the key order JSON.stringify gives a recorder
// event) scans here; any other line (another writer's key order, an escape in a short value, a
// time not at whole seconds in UTC, control characters) reports "not read" and goes through
// JSON.parse in JavaScript, whose key and name are hashed by the same functions (hashBegin…).
// Values are hashed as JSON writes them, escapes and all, as the key has always been compared.

/** The scan's results, for JavaScript (as float64s): see RESULT_* in lib/events/line-scan.ts. */
const OUT = memory.data(16 * 8);
const LITERALS = memory.data(1024);
let literalsEnd: usize = 0;

// The recorder layout's fixed text, as (address << 16) | length.
function literal(text: string): u64 {
  const at = LITERALS + literalsEnd;
  for (let i = 0; i < text.length; i++) store<u8>(at + i, <u8>text.charCodeAt(i));
  literalsEnd += text.length;
  return (<u64>at << 16) | <u64>text.length;
}
const L_HEAD = literal('{"apiVersion":"v1","kind":"Event","metadata":{"name":"');
const L_NAMESPACE = literal('","namespace":"');
const L_OBJECT = literal('"},"involvedObject":{"apiVersion":"v1","kind":"');
const L_NAME = literal('","name":"');
const L_UID = literal('","uid":"');
const L_FIELD_PATH = literal(',"fieldPath":"');
const L_REASON = literal('},"reason":"');
const L_MESSAGE = literal('","message":"');
const L_TYPE = literal('","type":"');
const L_SOURCE = literal('","source":{"component":"');
const L_HOST = literal('","host":"');
const L_FIRST = literal('"},"firstTimestamp":"');
const L_LAST = literal('","lastTimestamp":"');
const L_COUNT = literal('","count":');
const L_REPORTING_COMPONENT = literal(',"reportingComponent":"');
const L_REPORTING_INSTANCE = literal('","reportingInstance":"');
const L_END = literal('"}\n');

export function results(): usize {
  return OUT;
}

/** Where memory free for JavaScript's buffers starts. */
export function freeMemory(): usize {
  return (__heap_base + 15) & ~15;
}

// The position after `lit` if the bytes at p are `lit`, else 0.
@inline function expect(p: usize, lit: u64): usize {
  let q = <usize>(lit >> 16);
  let n = <usize>(lit & 0xffff);
  while (n >= 8) {
    if (load<u64>(p) != load<u64>(q)) return 0;
    p += 8;
    q += 8;
    n -= 8;
  }
  while (n > 0) {
    if (load<u8>(p) != load<u8>(q)) return 0;
    p++;
    q++;
    n--;
  }
  return p;
}

const QUOTE = i8x16.splat(0x22);
const BACKSLASH = i8x16.splat(0x5c);
const SPACE = i8x16.splat(0x20);
const PRINTABLE_SPAN = i8x16.splat(0x5f);

// The closing quote of a short value (printable ASCII, no escape), or 0. Sixteen bytes at a time:
// callers leave readable memory past every line (a newline ends each, and stops the search).
@inline function plainValue(p: usize): usize {
  while (true) {
    const v = v128.load(p);
    const outside = i8x16.gt_u(i8x16.sub(v, SPACE), PRINTABLE_SPAN); // below 0x20 or above 0x7f
    const mask = i8x16.bitmask(v128.or(v128.or(i8x16.eq(v, QUOTE), i8x16.eq(v, BACKSLASH)), outside));
    if (mask != 0) {
      const at = p + ctz(mask);
      return load<u8>(at) == 0x22 ? at : 0;
    }
    p += 16;
  }
}

const ZERO = i8x16.splat(0);

// The closing quote of a message, or 0: escapes allowed (JSON's, kept as written), UTF-8 allowed
// (checked, so that the bytes hashed are the text JSON.parse would read), no control character.
@inline function messageValue(p: usize): usize {
  while (true) {
    const v = v128.load(p);
    const ascii = v128.or(v128.or(i8x16.eq(v, QUOTE), i8x16.eq(v, BACKSLASH)), i8x16.lt_u(v, SPACE));
    const mask = i8x16.bitmask(v128.or(ascii, i8x16.lt_s(v, ZERO))); // and any byte from 0x80
    if (mask == 0) {
      p += 16;
      continue;
    }
    const at = p + ctz(mask);
    const c = load<u8>(at);
    if (c == 0x22) return at;
    if (c == 0x5c) p = escapeEnd(at);
    else if (c >= 0x80) p = utf8End(at);
    else return 0;
    if (p == 0) return 0;
  }
}

// After the JSON escape at p (a backslash), or 0 if it is not one.
function escapeEnd(p: usize): usize {
  const c = load<u8>(p + 1);
  if (c == 0x22 || c == 0x5c || c == 0x2f || c == 0x62 || c == 0x66 || c == 0x6e || c == 0x72 || c == 0x74) return p + 2;
  if (c != 0x75) return 0;
  for (let i: usize = 2; i < 6; i++) {
    const h = load<u8>(p + i) | 0x20; // lower case
    if (!((h >= 0x30 && h <= 0x39) || (h >= 0x61 && h <= 0x66))) return 0;
  }
  return p + 6;
}

@inline function isContinuation(c: u32): bool {
  return (c & 0xc0) == 0x80;
}

// After the UTF-8 sequence at p, or 0 if it is not a well-formed one (overlong, surrogate, past U+10FFFF).
function utf8End(p: usize): usize {
  const lead = <u32>load<u8>(p);
  const second = <u32>load<u8>(p + 1);
  if (lead >= 0xc2 && lead <= 0xdf) return isContinuation(second) ? p + 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const low: u32 = lead == 0xe0 ? 0xa0 : 0x80;
    const high: u32 = lead == 0xed ? 0x9f : 0xbf;
    return second >= low && second <= high && isContinuation(load<u8>(p + 2)) ? p + 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const low: u32 = lead == 0xf0 ? 0x90 : 0x80;
    const high: u32 = lead == 0xf4 ? 0x8f : 0xbf;
    return second >= low && second <= high && isContinuation(load<u8>(p + 2)) && isContinuation(load<u8>(p + 3)) ? p + 4 : 0;
  }
  return 0;
}

// Hashing: 8 bytes at a time, multiply and fold, the length last, then murmur3's finalizer; 64
// bits, of which JavaScript keeps 53 as a number and 11 as a check. Streamed (hashBegin,
// hashPart…, hashEnd), so that JavaScript can hash a string of any length through a small buffer.
const SEED_OBJECT: u64 = 0x243f6a8885a308d3;
const SEED_NAME: u64 = 0x13198a2e03707344;
let state: u64 = 0;
let stateLength: u64 = 0;
let lastHash: u64 = 0;

@inline function mix(h: u64, word: u64): u64 {
  h = (h ^ word) * 0x9e3779b97f4a7c15;
  return h ^ (h >> 29);
}

function hashBytes(h: u64, p: usize, end: usize): u64 {
  while (p + 8 <= end) {
    h = mix(h, load<u64>(p));
    p += 8;
  }
  if (p < end) h = mix(h, load<u64>(p) & ((<u64>1 << (<u64>(end - p) * 8)) - 1));
  return h;
}

@inline function finish(h: u64, length: u64): u64 {
  h = mix(h, length);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccd;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53;
  return h ^ (h >> 33);
}

/** Starts a hash: 0 an event's involved object, 1 the rest of its key (after the object's), 2 its name. */
export function hashBegin(kind: i32): void {
  state = kind == 0 ? SEED_OBJECT : kind == 1 ? lastHash : SEED_NAME;
  stateLength = 0;
}

/** Hashes bytes [p, p + length): a multiple of 8 bytes, but for the last part. */
export function hashPart(p: usize, length: usize): void {
  state = hashBytes(state, p, p + length);
  stateLength += length;
}

/** Ends the hash: results[1], [2] and [12] as for a key (see storeKey). */
export function hashEnd(): void {
  lastHash = finish(state, stateLength);
  storeKey(lastHash);
}

// A key's 64 bits for JavaScript: the high 53 as a number (results[1]), the low 11 (results[2]),
// and the low 30 of those 53 (results[12]), a small integer that JavaScript can map rows by
// without making a heap number per lookup.
@inline function storeKey(key: u64): void {
  store<f64>(OUT, <f64>(key >> 11), 8);
  store<f64>(OUT, <f64>(key & 0x7ff), 16);
  store<f64>(OUT, <f64>((key >> 11) & 0x3fffffff), 96);
}

@inline function twoDigits(p: usize): i32 {
  const a = <i32>load<u8>(p) - 48;
  const b = <i32>load<u8>(p + 1) - 48;
  return <u32>a > 9 || <u32>b > 9 ? -1 : a * 10 + b;
}

// `YYYY-MM-DDTHH:MM:SSZ"` at p as ms since the epoch, or NaN. What lib/events/event-time.ts reads
// digit by digit: years from 1000, day 31 of any month rolls over as Date.UTC does.
function timeAt(p: usize): f64 {
  if (load<u8>(p + 4) != 0x2d || load<u8>(p + 7) != 0x2d || load<u8>(p + 10) != 0x54 || load<u8>(p + 13) != 0x3a) return NaN;
  if (load<u8>(p + 16) != 0x3a || load<u8>(p + 19) != 0x5a || load<u8>(p + 20) != 0x22) return NaN;
  const century = twoDigits(p);
  const years = twoDigits(p + 2);
  const month = twoDigits(p + 5);
  const day = twoDigits(p + 8);
  const hour = twoDigits(p + 11);
  const minute = twoDigits(p + 14);
  const second = twoDigits(p + 17);
  if (century < 10 || years < 0 || month < 1 || month > 12 || day < 1 || day > 31) return NaN;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return NaN;
  // Days from 1970-01-01 to the date: years counted from March, so that a leap day ends a year.
  const year = century * 100 + years - (month <= 2 ? 1 : 0);
  const era = year / 400;
  const yearOfEra = year - era * 400;
  const dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
  const days = era * 146097 + dayOfEra - 719468;
  return <f64>days * 86400000 + <f64>(hour * 3600000 + minute * 60000 + second * 1000);
}

const NEWLINE = i8x16.splat(0x0a);

// The newline at or after p, before end; 0 if there is none.
function newlineFrom(p: usize, end: usize): usize {
  while (p + 16 <= end) {
    const mask = i8x16.bitmask(i8x16.eq(v128.load(p), NEWLINE));
    if (mask != 0) return p + ctz(mask);
    p += 16;
  }
  while (p < end) {
    if (load<u8>(p) == 0x0a) return p;
    p++;
  }
  return 0;
}

/**
 * Scans the line starting at `start`, in bytes that end before `end` (memory stays readable
 * ≥ 16 bytes past it). Returns the position after its newline, or 0 if it has none before `end`.
 * results[0] = 1 if the line is in the recorder's layout, with its numbers; 0 if not.
 */
export function scanLine(start: usize, end: usize): usize {
  const after = readRecorderLine(start);
  if (after != 0 && after <= end) return after;
  store<f64>(OUT, 0);
  const newline = newlineFrom(start, end);
  return newline == 0 ? 0 : newline + 1;
}

// The position after the newline of a recorder line at `start`, with results filled; else 0.
function readRecorderLine(start: usize): usize {
  let p = expect(start, L_HEAD);
  if (p == 0) return 0;
  const nameStart = p;
  if ((p = plainValue(p)) == 0) return 0;
  const nameEnd = p;
  if ((p = expect(p, L_NAMESPACE)) == 0 || (p = plainValue(p)) == 0) return 0;
  if ((p = expect(p, L_OBJECT)) == 0) return 0;
  const objectStart = p - 8; // from `"kind":"`
  if ((p = plainValue(p)) == 0) return 0;
  if ((p = expect(p, L_NAME)) == 0 || (p = plainValue(p)) == 0) return 0;
  // An empty namespace would be keyed as the event's own (JavaScript's reading): not read here.
  if ((p = expect(p, L_NAMESPACE)) == 0 || load<u8>(p) == 0x22 || (p = plainValue(p)) == 0) return 0;
  const objectEnd = p + 1;
  if ((p = expect(p, L_UID)) == 0) return 0;
  const uidStart = p;
  if ((p = plainValue(p)) == 0) return 0;
  const uidEnd = p;
  const restStart = p + 1;
  p = restStart;
  if (load<u8>(p) == 0x2c) {
    if ((p = expect(p, L_FIELD_PATH)) == 0 || (p = plainValue(p)) == 0) return 0;
    p++;
  }
  if ((p = expect(p, L_REASON)) == 0 || (p = plainValue(p)) == 0) return 0;
  if ((p = expect(p, L_MESSAGE)) == 0 || (p = messageValue(p)) == 0) return 0;
  if ((p = expect(p, L_TYPE)) == 0 || (p = plainValue(p)) == 0) return 0;
  const restEnd = p + 1;
  if ((p = expect(p, L_SOURCE)) == 0 || (p = plainValue(p)) == 0) return 0;
  if ((p = expect(p, L_HOST)) == 0 || (p = plainValue(p)) == 0) return 0;
  if ((p = expect(p, L_FIRST)) == 0) return 0;
  const first = timeAt(p);
  if (isNaN(first) || (p = expect(p + 20, L_LAST)) == 0) return 0;
  const last = timeAt(p);
  if (isNaN(last) || (p = expect(p + 20, L_COUNT)) == 0) return 0;
  const digits = p;
  let count: u64 = 0;
  while (true) {
    const digit = <u32>load<u8>(p) - 48;
    if (digit > 9) break;
    count = count * 10 + digit;
    p++;
  }
  // JSON's numbers: no leading zero; 15 digits stay exact as a float64.
  if (p == digits || p - digits > 15 || (load<u8>(digits) == 0x30 && p - digits > 1)) return 0;
  if ((p = expect(p, L_REPORTING_COMPONENT)) == 0 || (p = plainValue(p)) == 0) return 0;
  if ((p = expect(p, L_REPORTING_INSTANCE)) == 0 || (p = plainValue(p)) == 0) return 0;
  if ((p = expect(p, L_END)) == 0) return 0;

  const objectHash = finish(hashBytes(SEED_OBJECT, objectStart, objectEnd), objectEnd - objectStart);
  const key = finish(hashBytes(objectHash, restStart, restEnd), restEnd - restStart);
  const name = finish(hashBytes(SEED_NAME, nameStart, nameEnd), nameEnd - nameStart);
  store<f64>(OUT, 1);
  storeKey(key);
  store<f64>(OUT, <f64>(name >> 11), 24);
  store<f64>(OUT, count == 0 ? 1 : <f64>count, 32); // the newer API's 0 is "once"
  store<f64>(OUT, first, 40);
  store<f64>(OUT, last, 48);
  store<f64>(OUT, <f64>nameStart, 56);
  store<f64>(OUT, <f64>nameEnd, 64);
  store<f64>(OUT, <f64>uidStart, 72);
  store<f64>(OUT, <f64>uidEnd, 80);
  store<f64>(OUT, <f64>(p - 1), 88);
  return p;
}
