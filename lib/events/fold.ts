import { toApiTime } from "./recorder.js";
import { createScannedLine, keyBucketOf, scanEvent, type ScannedLine } from "./line-scan.js";
import { NameCounts } from "./name-counts.js";
import type { KubeEvent } from "./types.js";

// From the logged stream of events to `kubectl events`-like rows, in two steps:
// 1. Within a run, a repeat is logged again under the same metadata.name with count + 1: the
//    line with the highest count of a name is the one that counts (the API server would have
//    patched the object in place).
// 2. Across runs, every `podrun up` gives the pod a new UID, so the recorder cannot fold
//    "Pulled … already present" of run 2 into run 1's. Rows fold them here: same involved object
//    (kind, namespace, name, field path — not uid), type, reason and message; counts add up, the
//    earliest firstTimestamp and the latest lastTimestamp are kept.
// Memory is one row per distinct key, however long the log. To turn step 1 into sums, each row
// remembers the highest count of its few most recent names (a run lasts minutes, so a name
// stops growing long before it falls out); a line then adds only what its name had not yet
// counted, which also makes a line read twice count once.

export interface FoldedRow {
  /**
   * The row's first event. Its other events differ only in name, uid, count and times, which
   * the row keeps itself: holding on to each new line instead made the garbage collector copy
   * every one of them out of the young generation, a cost larger than reading them.
   */
  event: KubeEvent;
  /**
   * The line `event` was read from, when it was read from one: a checkpoint stores it as it is
   * (fold-checkpoint.ts), where writing the event out again cost more than the rest of saving.
   */
  line: string | undefined;
  /** The key's hash (line-scan.ts): 53 bits, and 11 more. */
  keyHash: number;
  keyCheck: number;
  /** The next row whose key has the same low 30 bits (see EventFolder.rows). */
  sameBucket: FoldedRow | undefined;
  /** metadata.name and involvedObject.uid of the latest run. */
  latestName: string;
  latestUid: string;
  count: number;
  firstMs: number;
  lastMs: number;
  /** Position of the last update in the stream: orders rows last seen in the same second. */
  sequence: number;
  names: NameCounts;
}

/** What a key whose first event the filter rejected maps to: its later lines stop at the lookup. */
function rejected(keyHash: number, keyCheck: number): FoldedRow {
  return { keyHash, keyCheck, sameBucket: undefined } as FoldedRow; // no event: never a row
}

/** A row's key alone (fold-checkpoint.ts: a row the filter rejects). */
export interface RowKey {
  keyHash: number;
  keyCheck: number;
}

/** Accumulates rows from scanned lines (line-scan.ts) in log order. Pure: no clock, no I/O. */
export class EventFolder {
  /**
   * Rows by the low 30 bits of their key's hash (line-scan.ts), then along `sameBucket` to the
   * one with all 64 bits: a small integer maps without making a heap number per line, which the
   * 53-bit number did (~8% of a listing).
   */
  private readonly rows = new Map<number, FoldedRow>();
  private readonly all: FoldedRow[] = [];
  private sequence = 0;

  /**
   * `accept`: which rows to keep (event-filter.ts), asked once per key with its first event:
   * what it looks at must be part of the key.
   */
  constructor(private readonly accept?: (event: KubeEvent) => boolean) {}

  /** Adds one logged event; returns its row if it changed, undefined for a line already counted or not wanted. */
  add(scanned: ScannedLine): FoldedRow | undefined {
    this.sequence++;
    const { keyHash, keyCheck, keyBucket, nameHash, count, firstMs, lastMs } = scanned;
    const row = this.find(keyBucket, keyHash, keyCheck);
    if (row && !row.event) return undefined; // rejected
    if (!row) {
      // Parsed in full once per row; a line the scan let through but JSON would not is no event.
      const event = scanned.parsed();
      if (!event) return undefined;
      if (this.accept !== undefined && !this.accept(event)) {
        this.put(keyBucket, rejected(keyHash, keyCheck));
        return undefined;
      }
      const names = new NameCounts();
      names.raise(nameHash, count);
      // Every field in one literal, so that every row has one shape (see restore).
      const created: FoldedRow = { event, line: scanned.line(), keyHash, keyCheck, sameBucket: undefined, latestName: scanned.name(), latestUid: scanned.uid(), count, firstMs, lastMs, sequence: this.sequence, names };
      this.put(keyBucket, created);
      this.all.push(created);
      return created;
    }
    const counted = row.names.raise(nameHash, count);
    if (count <= counted) return undefined;
    row.count += count - counted;
    if (counted === 0) {
      // A new name: a new run (or an event of it) is the latest.
      row.latestName = scanned.name();
      row.latestUid = scanned.uid();
    }
    if (firstMs < row.firstMs) row.firstMs = firstMs;
    if (lastMs > row.lastMs) row.lastMs = lastMs;
    row.sequence = this.sequence;
    return row;
  }

  private find(keyBucket: number, keyHash: number, keyCheck: number): FoldedRow | undefined {
    let row = this.rows.get(keyBucket);
    while (row !== undefined && (row.keyHash !== keyHash || row.keyCheck !== keyCheck)) row = row.sameBucket;
    return row;
  }

  /** Adds a row whose key find() did not find. */
  private put(keyBucket: number, row: FoldedRow): void {
    row.sameBucket = this.rows.get(keyBucket);
    this.rows.set(keyBucket, row);
  }

  /**
   * Every row in the order first seen, and how many lines were folded: the whole state
   * (fold-checkpoint.ts). Undefined for a folder with a filter, whose rejected keys hold no row.
   */
  snapshot(): { lineCount: number; rows: readonly FoldedRow[] } | undefined {
    if (this.accept !== undefined) return undefined;
    return { lineCount: this.sequence, rows: this.all };
  }

  /**
   * Puts back a row of a snapshot, in the snapshot's order, then `resume(lineCount)` once: the
   * folder is then as it was when the snapshot was taken, but for the filter, which is asked here.
   * A row given by its key alone: one the caller already knows the filter rejects.
   */
  restore(row: FoldedRow | RowKey): void {
    const { keyHash, keyCheck } = row;
    const keyBucket = keyBucketOf(keyHash);
    if (this.find(keyBucket, keyHash, keyCheck)) return; // a key twice (a hand-edited checkpoint): the first stands
    if (!("event" in row) || (this.accept !== undefined && !this.accept(row.event))) {
      this.put(keyBucket, rejected(keyHash, keyCheck));
      return;
    }
    this.put(keyBucket, row);
    this.all.push(row);
  }

  resume(lineCount: number): void {
    this.sequence = lineCount;
  }

  /** The rows by last seen, oldest first (as kubectl sorts events). */
  sortedRows(): FoldedRow[] {
    // -Infinity (no time) equals itself here, where a subtraction would give NaN.
    return [...this.all].sort((a, b) => (a.lastMs === b.lastMs ? a.sequence - b.sequence : a.lastMs < b.lastMs ? -1 : 1));
  }
}

/** Every event folded, oldest row first. */
export function foldEvents(events: Iterable<KubeEvent>): FoldedRow[] {
  const folder = new EventFolder();
  const scanned = createScannedLine();
  for (const event of events) {
    scanEvent(event, scanned);
    folder.add(scanned);
  }
  return folder.sortedRows();
}

/** A row as a core/v1 Event: its latest name and uid, the folded count, the earliest and latest times. */
export function toFoldedEvent(row: FoldedRow): KubeEvent {
  const { event } = row;
  return {
    ...event,
    metadata: { ...event.metadata, name: row.latestName },
    involvedObject: { ...event.involvedObject, uid: row.latestUid },
    count: row.count,
    firstTimestamp: Number.isFinite(row.firstMs) ? toApiTime(row.firstMs) : event.firstTimestamp,
    lastTimestamp: Number.isFinite(row.lastMs) ? toApiTime(row.lastMs) : event.lastTimestamp,
  };
}
