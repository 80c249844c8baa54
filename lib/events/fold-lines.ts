import type { EventFilter } from "./event-filter.js";
import type { EventFolder, FoldedRow } from "./fold.js";
import { scanEventLine, type ScannedLine } from "./line-scan.js";

/**
 * Folds log lines into `folder`. `filter` skips lines that cannot match before they are scanned;
 * the folder itself was made with the filter's decision on rows. Torn or foreign lines are skipped
 * silently. `onRow` hears of every row a line changed (for --watch).
 */
export function foldLines(folder: EventFolder, filter: EventFilter, scratch: ScannedLine, lines: readonly string[], onRow?: (row: FoldedRow) => void): void {
  for (const line of lines) {
    if (line === "" || !filter.mayMatchLine(line)) continue;
    if (!scanEventLine(line, scratch)) continue;
    const row = folder.add(scratch, scratch.event ?? line);
    if (row && onRow) onRow(row);
  }
}
