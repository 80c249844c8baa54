import { toApiTime } from "./recorder.js";
import { createScannedLine, scanEvent, type ScannedLine } from "./line-scan.js";
import { copyString, hashName, NameCounts, NAMES_KEPT } from "./name-counts.js";
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
  /** metadata.name and involvedObject.uid of the latest run. */
  latestName: string;
  latestUid: string;
  count: number;
  firstMs: number;
  lastMs: number;
  /** Position of the last update in the stream: orders rows last seen in the same second. */
  sequence: number;
  names: NameCounts;
  /**
   * Names this folder first saw with a count above 1, with the highest count seen: a run that
   * began before the first line this folder read. Only a fold of a later part of the log has
   * them, and merging (appendLater) uses them to count those runs once. At most NAMES_KEPT.
   */
  carried?: Map<string, number>;
}

/** A folder as plain data (structured-clone safe). */
export interface FoldState {
  sequence: number;
  rows: (Omit<FoldedRow, "names" | "carried"> & { objectKey: string; tailKey: string; names: [string, number][]; carried: [string, number][] })[];
}

/** Accumulates rows from scanned lines (line-scan.ts) in log order. Pure: no clock, no I/O. */
export class EventFolder {
  /** Rows by the two parts of their key (line-scan.ts): object, then the rest. */
  private readonly rows = new Map<string, Map<string, FoldedRow>>();
  private readonly all: FoldedRow[] = [];
  private readonly keys = new Map<FoldedRow, [objectKey: string, tailKey: string]>();
  private sequence = 0;

  /** Adds one logged event; returns its row if it changed, undefined for a line already counted. */
  add(scanned: ScannedLine, origin: string | KubeEvent): FoldedRow | undefined {
    this.sequence++;
    const { objectKey, tailKey, name, count, firstMs, lastMs } = scanned;
    const row = this.rows.get(objectKey)?.get(tailKey);
    if (!row) {
      // Parsed in full once per row; a line the scan let through but JSON would not is no event.
      const event = typeof origin === "string" ? parseEventLine(origin) : origin;
      if (!event) return undefined;
      const names = new NameCounts();
      const created: FoldedRow = { event, latestName: names.remember(name, count), latestUid: copyString(scanned.uid), count, firstMs, lastMs, sequence: this.sequence, names };
      if (count > 1) created.carried = new Map([[created.latestName, count]]);
      this.insert(copyString(objectKey), copyString(tailKey), created);
      return created;
    }
    const hash = hashName(name);
    const counted = row.names.countedFor(name, hash);
    if (row.carried?.has(name) && count > row.carried.get(name)!) row.carried.set(name, count);
    if (count <= counted) return undefined;
    if (counted === 0 && count > 1 && (row.carried ??= new Map()).size < NAMES_KEPT) row.carried.set(copyString(name), count);
    row.count += count - counted;
    const kept = row.names.remember(name, count, hash);
    if (counted === 0) {
      // A new name: a new run (or an event of it) is the latest.
      row.latestName = kept;
      row.latestUid = copyString(scanned.uid);
    }
    row.firstMs = Math.min(row.firstMs, firstMs);
    row.lastMs = Math.max(row.lastMs, lastMs);
    row.sequence = this.sequence;
    return row;
  }

  /**
   * Adds the rows of a fold of the lines that follow this fold's in the log, as if this folder
   * had read them itself: counts add up, except for runs both saw (a run that went on across the
   * split), whose count is the highest either saw. `later` is consumed.
   */
  appendLater(later: EventFolder): void {
    const offset = this.sequence;
    for (const row of later.all) {
      row.sequence += offset;
      const [objectKey, tailKey] = later.keys.get(row)!;
      const existing = this.rows.get(objectKey)?.get(tailKey);
      if (!existing) {
        // Its runs that began earlier began in rows this folder does not have: nothing to subtract.
        delete row.carried;
        this.insert(objectKey, tailKey, row);
        continue;
      }
      let overlap = 0;
      for (const [name, highest] of row.carried ?? []) overlap += Math.min(existing.names.countedFor(name), highest);
      existing.count += row.count - overlap;
      for (const [name, count] of row.names.entries()) existing.names.remember(name, Math.max(count, existing.names.countedFor(name)));
      existing.latestName = row.latestName;
      existing.latestUid = row.latestUid;
      existing.firstMs = Math.min(existing.firstMs, row.firstMs);
      existing.lastMs = Math.max(existing.lastMs, row.lastMs);
      existing.sequence = row.sequence;
    }
    this.sequence += later.sequence;
  }

  /** Everything this folder knows, as plain data that can cross to another thread (postMessage). */
  toState(): FoldState {
    return {
      sequence: this.sequence,
      rows: this.all.map((row) => {
        const [objectKey, tailKey] = this.keys.get(row)!;
        const { names, carried, ...rest } = row;
        return { ...rest, objectKey, tailKey, names: names.entries(), carried: carried ? [...carried] : [] };
      }),
    };
  }

  /** A folder holding what `toState` gave: it can go on adding lines, or be appended to another. */
  static fromState(state: FoldState): EventFolder {
    const folder = new EventFolder();
    folder.sequence = state.sequence;
    for (const { objectKey, tailKey, names: entries, carried, ...rest } of state.rows) {
      const names = new NameCounts();
      for (const [name, count] of entries) names.remember(name, count);
      folder.insert(objectKey, tailKey, { ...rest, names, ...(carried.length > 0 ? { carried: new Map(carried) } : {}) });
    }
    return folder;
  }

  private insert(objectKey: string, tailKey: string, row: FoldedRow): void {
    let byTail = this.rows.get(objectKey);
    if (!byTail) this.rows.set(objectKey, (byTail = new Map()));
    byTail.set(tailKey, row);
    this.keys.set(row, [objectKey, tailKey]);
    this.all.push(row);
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
