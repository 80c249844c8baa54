// A container's `logs`: the arguments that ask for them, and reading what comes back. The CLI
// prints the container's stdout on its stdout and its stderr on its stderr, and two pipes lose the
// order between them. With `--timestamps` every line carries the time the engine received it, so
// the two streams can be merged back into one, in order.

import type { RuntimeName } from "./detect.js";
import type { LogLine, LogStreamOptions } from "./types.js";

const TIMESTAMPED = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d) ?(.*)$/;

/** The stamp `logs --timestamps` puts before each line: RFC 3339, nanoseconds with docker and podman. */
const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/;

interface StampedLine {
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

function parseLines(output: string): StampedLine[] {
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

/**
 * `logs` arguments, from each CLI's documented flags: `--timestamps`, `--follow`, `--tail N`,
 * `--since TIME` are spelled alike in docker, podman and nerdctl. `--timestamps` is always asked
 * for: it tells the container's stderr lines from the CLI's own error messages, and callers strip
 * it when unwanted. `--since` gets RFC 3339 (milliseconds, UTC) rather than a relative duration:
 * the three CLIs read that form alike. nerdctl reads `--tail 0` as "all" (its uint 0 is the
 * default): there, no line of the past is asked as "only lines from now on".
 */
export function buildLogsArgs(
  runtime: RuntimeName,
  id: string,
  request: Omit<LogStreamOptions, "signal"> = {},
  now: Date = new Date(),
): string[] {
  const args = ["logs", "--timestamps"];
  if (request.follow) args.push("--follow");
  let since = request.since;
  if (request.tail === 0 && runtime === "nerdctl") since = since && since > now ? since : now;
  else if (request.tail !== undefined) args.push("--tail", String(request.tail));
  if (since !== undefined) args.push("--since", since.toISOString());
  args.push(id);
  return args;
}

/** A line of `logs --timestamps` output split in two; undefined when the line has no stamp. */
export function splitTimestamp(line: string): { time: string; text: string } | undefined {
  const space = line.indexOf(" ");
  const stamp = space === -1 ? line : line.slice(0, space);
  if (!STAMP.test(stamp)) return undefined;
  return { time: stamp, text: space === -1 ? "" : line.slice(space + 1) };
}

/** How long a line waits for the other stream to show an older one (`logs --follow` latency). */
export const MERGE_HOLD_MS = 50;
/** Lines held at most: past this the oldest goes out anyway, so memory stays bounded. */
export const MERGE_MAX_HELD = 1000;

/**
 * Merges the two streams of a container's log back into time order while they are read, as
 * mergeTimestampedLogs does for a finished read: each stream is in order, so the older of the two
 * heads goes first. A head whose other stream has nothing yet waits at most `holdMs` (a line of
 * the other stream may still be in its pipe; Infinity: until the reading ends), and never while
 * more than `maxHeld` lines are held.
 */
export class LogLineMerger {
  private readonly queues: Record<LogLine["stream"], { line: LogLine; key: string; arrivedMs: number }[]> = {
    stdout: [],
    stderr: [],
  };

  constructor(
    private readonly options: { holdMs: number; maxHeld: number } = { holdMs: MERGE_HOLD_MS, maxHeld: MERGE_MAX_HELD },
  ) {}

  push(line: LogLine, nowMs: number): void {
    const m = TIMESTAMPED.exec(`${line.time} `);
    const key = m ? sortKey(m[1] ?? "", m[2] ?? "", m[3] ?? "Z") : "";
    this.queues[line.stream].push({ line, key, arrivedMs: nowMs });
  }

  /** The lines that may go out now, in order; with `ended`, all of them. */
  take(nowMs: number, ended = false): LogLine[] {
    const out: LogLine[] = [];
    const { stdout, stderr } = this.queues;
    for (;;) {
      const [a, b] = [stdout[0], stderr[0]];
      if (a && b) out.push((a.key <= b.key ? stdout : stderr).shift()!.line);
      else {
        const queue = a ? stdout : stderr;
        const head = queue[0];
        if (!head) break;
        const due =
          ended ||
          nowMs - head.arrivedMs >= this.options.holdMs ||
          stdout.length + stderr.length > this.options.maxHeld;
        if (!due) break;
        out.push(queue.shift()!.line);
      }
    }
    return out;
  }

  /** When `take` will next release a held line (ms since the epoch); undefined when none is held or none is released by time. */
  nextDueMs(): number | undefined {
    const head = this.queues.stdout[0] ?? this.queues.stderr[0];
    return head === undefined || !Number.isFinite(this.options.holdMs)
      ? undefined
      : head.arrivedMs + this.options.holdMs;
  }
}
