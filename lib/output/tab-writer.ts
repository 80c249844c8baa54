// The alignment of Go's text/tabwriter as kubectl's describe uses it (padding 2): each line's
// cells are separated by tabs, and a column is as wide as its widest cell over the block of
// consecutive lines that have a cell after it. A line without a tab ends every block.

const PADDING = 2;

/** Lines with tab-separated cells, aligned; the last cell of a line is never padded. */
export function alignTabs(lines: readonly string[]): string[] {
  const cells = lines.map((line) => line.split("\t"));
  const widths = cells.map((row) => row.map(() => 0));
  // Column by column: the blocks of consecutive lines that have a cell after column c.
  const columns = Math.max(0, ...cells.map((row) => row.length - 1));
  for (let c = 0; c < columns; c++) {
    let start = 0;
    while (start < cells.length) {
      if (cells[start]!.length - 1 <= c) {
        start++;
        continue;
      }
      let end = start;
      while (end < cells.length && cells[end]!.length - 1 > c) end++;
      const width = Math.max(...cells.slice(start, end).map((row) => row[c]!.length)) + PADDING;
      for (let i = start; i < end; i++) widths[i]![c] = width;
      start = end;
    }
  }
  return cells.map((row, i) =>
    row
      .map((cell, c) => (c < row.length - 1 ? cell.padEnd(widths[i]![c]!) : cell))
      .join("")
      .trimEnd(),
  );
}
