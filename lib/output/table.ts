// Columns as kubectl prints them (text/tabwriter, padding 3): every column but the last padded
// to its widest cell, so a long last column (a message) never pushes the others around.

const PADDING = 3;

/** The rows (the header first) as aligned lines, without trailing spaces. */
export function formatTable(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + PADDING)))
      .join("")
      .trimEnd(),
  );
}
