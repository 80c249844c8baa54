import { toApiTime } from "./recorder.js";
import { createScannedLine, scanEvent, type ScannedLine } from "./line-scan.js";
import { copyString, hashName, NameCounts } from "./name-counts.js";
import { parseEventLine } from "./parse-event.js";
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
  /**
   * metadata.name and involvedObject.uid of the latest run: views into its line, which a row
   * thus keeps (one line per row, never more; copying them out of every line cost more).
   */
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
const REJECTED = {} as FoldedRow;

/** Tails of one object looked up one by one before a Map takes over (see RowsOfObject). */
const TAILS_SCANNED = 32;

/**
 * The rows of one involved object, by the rest of their key. An object has a handful of them
 * (Pulled, Created, Started… per container), and a line's tail is a view into the line, so a Map
 * would hash its ~150 characters on every line, then compare them (in a profile, string hashing
 * and comparing took ~12% of a listing). Compared one by one, tails of another length cost an
 * integer comparison, and the one that matches is read once. An object with many distinct tails
 * gets a Map, to stay O(1).
 */
class RowsOfObject {
  private tails: string[] = [];
  private rows: FoldedRow[] = [];
  private byTail: Map<string, FoldedRow> | undefined;

  *entries(): Generator<[string, FoldedRow]> {
    if (this.byTail) yield* this.byTail;
    else for (let i = 0; i < this.tails.length; i++) yield [this.tails[i]!, this.rows[i]!];
  }

  get(tail: string): FoldedRow | undefined {
    if (this.byTail) return this.byTail.get(tail);
    const { tails } = this;
    const length = tail.length;
    for (let i = 0; i < tails.length; i++) {
      const candidate = tails[i]!;
      if (candidate.length === length && candidate === tail) return this.rows[i];
    }
    return undefined;
  }

  /** `tail` must not be a view into a line (copyString). */
  set(tail: string, row: FoldedRow): void {
    if (this.byTail) {
      this.byTail.set(tail, row);
      return;
    }
    this.tails.push(tail);
    this.rows.push(row);
    if (this.tails.length > TAILS_SCANNED) {
      this.byTail = new Map(this.tails.map((key, i) => [key, this.rows[i]!]));
      this.tails = [];
      this.rows = [];
    }
  }
}

/** Accumulates rows from scanned lines (line-scan.ts) in log order. Pure: no clock, no I/O. */
export class EventFolder {
  /** Rows by the two parts of their key (line-scan.ts): object, then the rest. */
  private readonly rows = new Map<string, RowsOfObject>();
  private readonly all: FoldedRow[] = [];
  private sequence = 0;

  /**
   * `accept`: which rows to keep (event-filter.ts), asked once per key with its first event:
   * what it looks at must be part of the key.
   */
  constructor(private readonly accept?: (event: KubeEvent) => boolean) {}

  /** Adds one logged event; returns its row if it changed, undefined for a line already counted or not wanted. */
  add(scanned: ScannedLine, origin: string | KubeEvent): FoldedRow | undefined {
    this.sequence++;
    const { objectKey, tailKey, name, count, firstMs, lastMs } = scanned;
    let byTail = this.rows.get(objectKey);
    const row = byTail?.get(tailKey);
    if (row === REJECTED) return undefined;
    if (!row) {
      // Parsed in full once per row; a line the scan let through but JSON would not is no event.
      const event = typeof origin === "string" ? parseEventLine(origin) : origin;
      if (!event) return undefined;
      if (!byTail) this.rows.set(copyString(objectKey), (byTail = new RowsOfObject()));
      if (this.accept !== undefined && !this.accept(event)) {
        byTail.set(copyString(tailKey), REJECTED);
        return undefined;
      }
      const names = new NameCounts();
      names.raise(hashName(name), count);
      // Every field in one literal, `line` too, so that every row has one shape (see restore).
      const line = typeof origin === "string" ? origin : undefined;
      const created: FoldedRow = { event, line, latestName: name, latestUid: scanned.uid, count, firstMs, lastMs, sequence: this.sequence, names };
      byTail.set(copyString(tailKey), created);
      this.all.push(created);
      return created;
    }
    const counted = row.names.raise(hashName(name), count);
    if (count <= counted) return undefined;
    row.count += count - counted;
    if (counted === 0) {
      // A new name: a new run (or an event of it) is the latest.
      row.latestName = name;
      row.latestUid = scanned.uid;
    }
    row.firstMs = Math.min(row.firstMs, firstMs);
    row.lastMs = Math.max(row.lastMs, lastMs);
    row.sequence = this.sequence;
    return row;
  }

  /**
   * Every row with the two parts of its key, in the order first seen: the whole state, with what
   * `restore` needs to rebuild it (fold-checkpoint.ts). Undefined for a folder with a filter,
   * whose rejected keys hold no row to save.
   */
  snapshot(): { lineCount: number; rows: { objectKey: string; tailKey: string; row: FoldedRow }[] } | undefined {
    if (this.accept !== undefined) return undefined;
    const keysOf = new Map<FoldedRow, [string, string]>();
    for (const [objectKey, byTail] of this.rows) for (const [tailKey, row] of byTail.entries()) keysOf.set(row, [objectKey, tailKey]);
    const rows = this.all.map((row) => {
      const [objectKey, tailKey] = keysOf.get(row)!;
      return { objectKey, tailKey, row };
    });
    return { lineCount: this.sequence, rows };
  }

  /**
   * Puts back a row of a snapshot, in the snapshot's order, then `resume(lineCount)` once: the
   * folder is then as it was when the snapshot was taken, but for the filter, which is asked here.
   * An undefined row: one the caller already knows the filter rejects.
   */
  restore(objectKey: string, tailKey: string, row: FoldedRow | undefined): void {
    let byTail = this.rows.get(objectKey);
    if (!byTail) this.rows.set(copyString(objectKey), (byTail = new RowsOfObject()));
    if (byTail.get(tailKey)) return; // a key twice (a hand-edited checkpoint): the first stands
    if (row === undefined || (this.accept !== undefined && !this.accept(row.event))) {
      byTail.set(copyString(tailKey), REJECTED);
      return;
    }
    byTail.set(copyString(tailKey), row);
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
    folder.add(scanned, event);
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
