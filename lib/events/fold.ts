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

/** Accumulates rows from scanned lines (line-scan.ts) in log order. Pure: no clock, no I/O. */
export class EventFolder {
  /** Rows by the two parts of their key (line-scan.ts): object, then the rest. */
  private readonly rows = new Map<string, Map<string, FoldedRow>>();
  private readonly all: FoldedRow[] = [];
  private sequence = 0;

  /** Adds one logged event; returns its row if it changed, undefined for a line already counted. */
  add(scanned: ScannedLine, origin: string | KubeEvent): FoldedRow | undefined {
    this.sequence++;
    const { objectKey, tailKey, name, count, firstMs, lastMs } = scanned;
    let byTail = this.rows.get(objectKey);
    const row = byTail?.get(tailKey);
    if (!row) {
      // Parsed in full once per row; a line the scan let through but JSON would not is no event.
      const event = typeof origin === "string" ? parseEventLine(origin) : origin;
      if (!event) return undefined;
      const names = new NameCounts();
      names.remember(hashName(name), count);
      const created: FoldedRow = { event, latestName: name, latestUid: scanned.uid, count, firstMs, lastMs, sequence: this.sequence, names };
      if (!byTail) this.rows.set(copyString(objectKey), (byTail = new Map()));
      byTail.set(copyString(tailKey), created);
      this.all.push(created);
      return created;
    }
    const hash = hashName(name);
    const counted = row.names.countedFor(hash);
    if (count <= counted) return undefined;
    row.count += count - counted;
    row.names.remember(hash, count);
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
