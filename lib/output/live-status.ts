import type { ChalkInstance } from "chalk";

// One live line per container on a terminal, redrawn in place while `up --wait` works:
//   ⠹ pod/web[app]      Waiting for readiness (1/3)
//   ✔ pod/web[sidecar]  Ready
// Event lines are printed above the block, so the scrollback keeps the log of what happened and
// the block stays at the bottom. Rendering is pure (frames from rows, redraws from line counts);
// createLiveStatus only owns the timer and the stream. Use it only on an interactive terminal.

export type RowTone = "pending" | "active" | "done" | "failed";

export interface StatusRow {
  /** `pod/web[app]`, as event lines name the container. */
  label: string;
  text: string;
  tone: RowTone;
}

export const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;

const ESC = "\u001b[";
const HIDE_CURSOR = `${ESC}?25l`;
const SHOW_CURSOR = `${ESC}?25h`;

/**
 * The lines of one frame: a symbol (the spinner while working), the label, the state. Each line
 * is cut to fit `columns`, since a wrapped line would break the count of lines to redraw; with
 * more rows than the screen has lines, the last shown says how many are left out.
 */
export function renderStatusFrame(
  rows: readonly StatusRow[],
  options: { frame: number; chalk: ChalkInstance; columns: number; maxLines?: number },
): string[] {
  const { chalk } = options;
  const width = Math.max(0, ...rows.map((row) => row.label.length));
  const spinner = SPINNER_FRAMES[options.frame % SPINNER_FRAMES.length]!;
  const room = Math.max(1, (options.maxLines ?? Infinity) - 1);
  const shown = rows.length > room ? rows.slice(0, room - 1) : rows;
  const lines = shown.map((row) => {
    const symbol =
      row.tone === "done"
        ? chalk.green("✔")
        : row.tone === "failed"
          ? chalk.red("✖")
          : row.tone === "active"
            ? chalk.cyan(spinner)
            : chalk.dim("·");
    const text = fit(`${row.label.padEnd(width)}  ${row.text}`, options.columns - 3);
    return `${symbol} ${row.tone === "failed" ? chalk.red(text) : row.tone === "pending" ? chalk.dim(text) : text}`;
  });
  if (shown.length < rows.length)
    lines.push(chalk.dim(fit(`… and ${rows.length - shown.length} more`, options.columns - 1)));
  return lines;
}

/**
 * The text that replaces the `previous` lines drawn last (the cursor being just below them) with
 * `above` (permanent lines, each ending in a newline) followed by the new `lines`.
 */
export function redrawSequence(previous: number, lines: readonly string[], above = ""): string {
  const up = previous > 0 ? `${ESC}${previous}A` : "";
  return `${up}\r${ESC}J${above}${lines.map((line) => `${line}\n`).join("")}`;
}

/** What an event says about its container's progress, for its status line. */
export function statusOfEvent(reason: string): { text: string; tone: RowTone } | undefined {
  switch (reason) {
    case "Pulling":
      return { text: "Pulling", tone: "active" };
    case "Pulled":
      return { text: "Creating", tone: "active" };
    case "BackOff":
      return { text: "Back-off pulling image", tone: "active" };
    case "Created":
      return { text: "Starting", tone: "active" };
    case "Started":
      return { text: "Running", tone: "active" };
    case "Failed":
    case "ErrImageNeverPull":
    case "InspectFailed":
    case "FailedPostStartHook":
      return { text: "Failed", tone: "failed" };
    default:
      return undefined;
  }
}

export interface LiveStatus {
  set(label: string, text: string, tone: RowTone): void;
  /** Prints a permanent line above the live block. */
  print(line: string): void;
  /** Draws the last frame without a spinner and leaves it; later prints are plain lines. */
  stop(): void;
}

export function createLiveStatus(options: {
  stream: NodeJS.WritableStream & { columns?: number; rows?: number };
  chalk: ChalkInstance;
  /** Every row, in order, known up front so that the block never moves. */
  labels: readonly string[];
  intervalMs?: number;
}): LiveStatus {
  const { stream, chalk } = options;
  const rows = options.labels.map((label): StatusRow => ({ label, text: "Waiting", tone: "pending" }));
  let frame = 0;
  let drawn = 0;
  let stopped = false;
  const restoreCursor = () => stream.write(SHOW_CURSOR);
  const frameLines = () =>
    renderStatusFrame(rows, { frame, chalk, columns: stream.columns ?? 80, maxLines: stream.rows || undefined });
  const draw = (above = "") => {
    const lines = frameLines();
    stream.write(redrawSequence(drawn, lines, above));
    drawn = lines.length;
  };
  stream.write(HIDE_CURSOR);
  process.once("exit", restoreCursor); // a crash must not leave the terminal without its cursor
  draw();
  const timer = setInterval(() => {
    frame++;
    draw();
  }, options.intervalMs ?? 100);
  timer.unref();

  return {
    set(label, text, tone) {
      const row = rows.find((r) => r.label === label);
      if (!row || (row.text === text && row.tone === tone)) return;
      Object.assign(row, { text, tone });
      if (!stopped) draw();
    },
    print(line) {
      if (stopped) stream.write(`${line}\n`);
      else draw(`${line}\n`);
    },
    stop() {
      if (stopped) return;
      clearInterval(timer);
      // Whatever never got going is shown as it stands, without a spinner.
      for (const row of rows) if (row.tone === "active") row.tone = "pending";
      draw();
      stopped = true;
      process.off("exit", restoreCursor);
      restoreCursor();
    },
  };
}

// Cut to `width` characters (ellipsis included), counting code points.
function fit(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? chars.slice(0, Math.max(0, width)).join("") : `${chars.slice(0, width - 1).join("")}…`;
}
