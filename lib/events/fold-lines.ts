import type { EventFilter } from "./event-filter.js";
import type { EventFolder, FoldedRow } from "./fold.js";
import { loadBlock, scanBlockLine, scanEventLine, type ScannedLine } from "./line-scan.js";
import type { AppendedLines } from "./log-file-reader.js";

/**
 * Folds log lines into `folder`, in order: lines as text, then a block of whole lines as bytes
 * (log-file-reader.ts). The folder was made with the filter's decision on rows; `filter` also
 * skips lines that need JSON.parse and cannot match. Torn or foreign lines are skipped silently.
 * `onRow` hears of every row a line changed (for --watch).
 */
export function foldLines(folder: EventFolder, filter: EventFilter, scratch: ScannedLine, lines: readonly string[], onRow?: (row: FoldedRow) => void): void {
  for (const line of lines) {
    if (line === "" || !filter.mayMatchLine(line)) continue;
    if (!scanEventLine(line, scratch)) continue;
    const row = folder.add(scratch);
    if (row && onRow) onRow(row);
  }
}

export function foldAppended(folder: EventFolder, filter: EventFilter, scratch: ScannedLine, appended: AppendedLines, onRow?: (row: FoldedRow) => void): void {
  foldLines(folder, filter, scratch, appended.joined, onRow);
  if (appended.end === appended.start) return;
  const mayMatchLine = filter.active ? filter.mayMatchLine : undefined;
  // One loop, with nothing awaited: the loaded block stays as it is until every line is folded.
  const { end, at: start } = loadBlock(appended.block, appended.start, appended.end);
  for (let at = start; at < end; ) {
    at = scanBlockLine(at, end, scratch, mayMatchLine);
    if (!scratch.isEvent) continue;
    const row = folder.add(scratch);
    if (row && onRow) onRow(row);
  }
}
