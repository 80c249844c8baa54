// `logs` prints a container's stdout on the CLI's stdout and its stderr on the CLI's stderr, and
// two pipes lose the order between them. With `--timestamps` every line carries the time the
// engine received it, so the two streams can be merged back into one, in order.

const TIMESTAMPED = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d) ?(.*)$/;

interface LogLine {
  key: string;
  text: string;
}

/** Merges `logs --timestamps` output of both streams by time, and drops the timestamps. */
export function mergeTimestampedLogs(stdout: string, stderr: string): string {
  const lines = [...parseLines(stdout), ...parseLines(stderr)];
  // A stable sort keeps each stream's own order for lines stamped with the same time.
  lines.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return lines.map((line) => line.text).join("\n");
}

function parseLines(output: string): LogLine[] {
  if (output === "") return [];
  let previous = "";
  return output.split("\n").map((line) => {
    const m = TIMESTAMPED.exec(line);
    // A line without a stamp (a value's embedded line break in some drivers) follows its predecessor.
    if (!m) return { key: previous, text: line };
    previous = sortKey(m[1] ?? "", m[2] ?? "", m[3] ?? "Z");
    return { key: previous, text: m[4] ?? "" };
  });
}

// RFC 3339 with a fraction of varying length does not sort as text ("…47.4Z" vs "…47.39Z"):
// pad the fraction to nanoseconds. Engines stamp in UTC; an offset is rare enough to sort as is.
function sortKey(seconds: string, fraction: string, zone: string): string {
  return `${seconds}.${fraction.padEnd(9, "0")}${zone === "Z" ? "" : zone}`;
}
