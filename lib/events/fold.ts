import { eventKeyOf, fieldText } from "./event-key.js";
import { timeOf } from "./event-time.js";
import { parseEventLine } from "./parse-event.js";
import { toApiTime } from "./recorder.js";
import type { KubeEvent } from "./types.js";

// From the logged stream of events to `kubectl events`-like rows, in two steps:
// 1. Within a run, a repeat is logged again under the same metadata.name with count + 1: the
//    line with the highest count of a name is the one that counts (the API server would have
//    patched the object in place).
// 2. Across runs, every `podrun up` gives the pod a new uid, so the recorder cannot fold
//    "Pulled … already present" of run 2 into run 1's. Rows fold them here, by the recorder's
//    key without the uid (event-key.ts); counts add up, the earliest firstTimestamp and the
//    latest lastTimestamp are kept.
// Each row remembers the highest count of each of its names: a line adds only what its name
// had not yet counted, which also makes a line read twice count once.

export interface FoldedRow {
  /**
   * The row's first event. Its other events differ only in name, uid, count and times, which the
   * row keeps itself: the row holds no event object but this one, however many lines it folds.
   */
  event: KubeEvent;
  /** metadata.name and involvedObject.uid of the latest run. */
  latestName: string;
  latestUid: string;
  count: number;
  firstMs: number;
  lastMs: number;
  /** Position of the last update in the stream: orders rows last seen in the same second. */
  sequence: number;
  /** The highest count seen under each metadata.name. */
  names: Map<string, number>;
}

export interface EventFoldOptions {
  /**
   * Which rows to keep (event-filter.ts), asked once per key with its first event: what it looks
   * at must be part of the key.
   */
  accept?: (event: KubeEvent) => boolean;
  /** Events last seen before this (ms since the epoch) are left out: past the retention. */
  notBeforeMs?: number;
}

/** Accumulates rows from logged events in log order. Pure: no clock, no I/O. */
export class EventFold {
  /** Rows by key; null for a key the filter rejected. */
  private readonly rows = new Map<string, FoldedRow | null>();
  private sequence = 0;

  constructor(private readonly options: EventFoldOptions = {}) {}

  /** Adds the event on one log line; torn and foreign lines are skipped. See add. */
  addLine(line: string): FoldedRow | undefined {
    const event = parseEventLine(line);
    return event && this.add(event);
  }

  /** Adds one logged event; returns its row if it changed, undefined for an event already counted or not wanted. */
  add(event: KubeEvent): FoldedRow | undefined {
    this.sequence++;
    const lastMs = timeOf(event.lastTimestamp || event.firstTimestamp);
    // Once-only events (most) have one time: read once.
    const firstMs =
      event.firstTimestamp === event.lastTimestamp ? lastMs : timeOf(event.firstTimestamp || event.lastTimestamp);
    // An event of unknown time cannot be said to be expired: the size limits drop it in the end.
    if (
      this.options.notBeforeMs !== undefined &&
      lastMs !== Number.NEGATIVE_INFINITY &&
      lastMs < this.options.notBeforeMs
    )
      return undefined;
    const name = event.metadata.name;
    const count = typeof event.count === "number" && event.count > 0 ? event.count : 1; // the newer API leaves 0 for "once"
    const key = eventKeyOf(event);
    const row = this.rows.get(key);
    if (row === null) return undefined;
    if (row === undefined) {
      if (this.options.accept && !this.options.accept(event)) {
        this.rows.set(key, null);
        return undefined;
      }
      const created: FoldedRow = {
        event,
        latestName: name,
        latestUid: fieldText(event.involvedObject.uid),
        count,
        firstMs,
        lastMs,
        sequence: this.sequence,
        names: new Map([[name, count]]),
      };
      this.rows.set(key, created);
      return created;
    }
    const counted = row.names.get(name) ?? 0;
    if (count <= counted) return undefined;
    row.names.set(name, count);
    row.count += count - counted;
    if (counted === 0) {
      // A new name: a new run (or an event of it) is the latest.
      row.latestName = name;
      row.latestUid = fieldText(event.involvedObject.uid);
    }
    if (firstMs < row.firstMs) row.firstMs = firstMs;
    if (lastMs > row.lastMs) row.lastMs = lastMs;
    row.sequence = this.sequence;
    return row;
  }

  /** The rows by last seen, oldest first (as kubectl sorts events); equal times in log order. */
  sortedRows(): FoldedRow[] {
    const rows: FoldedRow[] = [];
    for (const row of this.rows.values()) if (row) rows.push(row);
    // -Infinity (no time) equals itself here, where a subtraction would give NaN.
    return rows.sort((a, b) => (a.lastMs === b.lastMs ? a.sequence - b.sequence : a.lastMs < b.lastMs ? -1 : 1));
  }
}

/** Every event folded, oldest row first. */
export function foldEvents(events: Iterable<KubeEvent>, options?: EventFoldOptions): FoldedRow[] {
  const fold = new EventFold(options);
  for (const event of events) fold.add(event);
  return fold.sortedRows();
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
