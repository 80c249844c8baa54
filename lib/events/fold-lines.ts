import type { EventFilter } from "./event-filter.js";
import type { EventFolder, FoldedRow } from "./fold.js";
import { scanEventLine, type ScannedLine } from "./line-scan.js";

/**
 * Folds log lines into `folder`, keeping those `filter` wants. Torn or foreign lines are skipped
 * silently. `onRow` hears of every row a line changed (for --watch).
 */
export function foldLines(folder: EventFolder, filter: EventFilter, scratch: ScannedLine, lines: readonly string[], onRow?: (row: FoldedRow) => void): void {
  for (const line of lines) {
    if (line === "" || !filter.mayMatchLine(line)) continue;
    if (!scanEventLine(line, scratch) || !filter.matches(scratch)) continue;
    const row = folder.add(scratch, scratch.event ?? line);
    if (row && onRow) onRow(row);
  }
}
