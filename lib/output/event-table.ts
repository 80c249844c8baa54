import type { ChalkInstance } from "chalk";
import { formatHumanDuration } from "../text/human-duration.js";
import { escapeControlCharacters, toOneLine } from "../text/terminal-text.js";
import { timeOf } from "../events/event-time.js";
import type { FoldedRow } from "../events/fold.js";
import type { KubeEvent } from "../events/types.js";

// Folded events as `kubectl get events` prints them (pkg/printers/internalversion/printers.go): LAST SEEN TYPE REASON
// OBJECT MESSAGE, `-o wide` adding SUBOBJECT SOURCE … FIRST SEEN COUNT NAME in kubectl's own
// order, and LAST SEEN in `kubectl events`' form `2m (x3 over 10m)` for a repeated event.
// Alignment is kubectl's text/tabwriter (minwidth 10, padding 3): each column but the last as wide
// as its widest cell plus 3. Widths only grow, so rows printed later by --watch stay in line.

const MIN_WIDTH = 10;
const PADDING = 3;
/** 0001-01-01T00:00:00Z, Go's zero time: how a missing time reads back from a real API server. */
const GO_ZERO_TIME_MS = -62_135_596_800_000;

export interface EventTableOptions {
  wide: boolean;
  /** A NAMESPACE column first, as `kubectl events -A` has, when rows span several namespaces. */
  namespace: boolean;
  /** Colours TYPE (Warning in yellow); level 0 prints plain text. */
  color: ChalkInstance;
}

export class EventTable {
  readonly columns: string[];
  private readonly widths: number[];
  private readonly typeIndex: number;

  constructor(private readonly options: EventTableOptions) {
    this.columns = [
      ...(options.namespace ? ["NAMESPACE"] : []),
      ...(options.wide
        ? ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"]
        : ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]),
    ];
    this.widths = this.columns.map((title) => title.length);
    this.typeIndex = this.columns.indexOf("TYPE");
  }

  /** The cells of one row, ages relative to `nowMs`. */
  cellsOf(row: FoldedRow, nowMs: number): string[] {
    const { event } = row;
    const object = event.involvedObject ?? {};
    const lastSeen = formatAgeOf(row.lastMs, nowMs);
    const firstSeen = formatAgeOf(row.firstMs, nowMs);
    const target = `${String(object.kind ?? "").toLowerCase()}/${object.name ?? ""}`;
    const message = toOneLine(String(event.message ?? ""));
    const cells = this.options.wide
      ? [
          lastSeen,
          event.type,
          event.reason,
          target,
          object.fieldPath,
          formatSource(event),
          message,
          firstSeen,
          String(row.count),
          row.latestName,
        ]
      : [
          row.count > 1 ? `${lastSeen} (x${row.count} over ${firstSeen})` : firstSeen,
          event.type,
          event.reason,
          target,
          message,
        ];
    const all = this.options.namespace ? [namespaceOf(event), ...cells] : cells;
    return all.map((cell) => escapeCell(String(cell ?? "")));
  }

  /**
   * For --watch: LAST SEEN wide enough for a repeat (`0s (x12 over 10m)`) from the start, so
   * that a repeat seen a moment later does not shift the columns at once.
   */
  reserveForRepeats(): void {
    const index = this.columns.indexOf("LAST SEEN");
    this.widths[index] = Math.max(this.widths[index]!, "0s (x12 over 10m)".length);
  }

  /** Makes room for `cells` in every column but the last. */
  fit(cells: readonly string[]): void {
    for (let i = 0; i < cells.length - 1; i++) this.widths[i] = Math.max(this.widths[i] ?? 0, cells[i]!.length);
  }

  /** One aligned line (no newline), fitting it first. */
  formatLine(cells: readonly string[]): string {
    this.fit(cells);
    const last = cells.length - 1;
    let line = "";
    for (let i = 0; i < last; i++) {
      const cell = cells[i]!;
      const padding = " ".repeat(Math.max(MIN_WIDTH, this.widths[i]! + PADDING) - cell.length);
      line += (i === this.typeIndex ? this.colorType(cell) : cell) + padding;
    }
    return (line + (cells[last] ?? "")).trimEnd();
  }

  formatHeader(): string {
    return this.formatLine(this.columns);
  }

  private colorType(cell: string): string {
    return cell === "Warning" ? this.options.color.yellow(cell) : cell;
  }
}

/** kubectl's age of a timestamp: HumanDuration(now − t), `<unknown>` for a missing one. */
export function formatAge(timestamp: string | undefined, nowMs: number): string {
  return formatAgeOf(timestamp ? timeOf(timestamp) : Number.NaN, nowMs);
}

function formatAgeOf(ms: number, nowMs: number): string {
  if (!Number.isFinite(ms) || ms <= GO_ZERO_TIME_MS) return "<unknown>";
  return formatHumanDuration(nowMs - ms);
}

/** The namespace of the event's object (of the event, for a sloppy hand-written one). */
export function namespaceOf(event: KubeEvent): string {
  return event.involvedObject?.namespace || event.metadata.namespace || "default";
}

/** kubectl's SOURCE: `component, host`. */
function formatSource(event: KubeEvent): string {
  const component = event.source?.component || event.reportingComponent || "";
  const host = event.source?.host || event.reportingInstance || "";
  return host ? `${component}, ${host}` : component;
}

// Control characters from a log anyone can write must not reach the terminal as such; most
// cells have none, and the test is cheaper than the replace.
function escapeCell(text: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f]/.test(text) ? escapeControlCharacters(text) : text;
}
