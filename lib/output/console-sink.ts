import type { ChalkInstance } from "chalk";
import type { Ora } from "ora";
import { configureColor } from "./color.js";
import type { EventSink } from "../events/recorder.js";
import { containerNameOf, type KubeEvent } from "../events/types.js";

// Events as aligned lines, in kubectl's column order (TYPE REASON OBJECT MESSAGE) after a
// wall-clock time, since a live stream has no use for kubectl's "LAST SEEN" age:
//   12:03:04  Normal   Pulling    pod/web[app]  Pulling image "busybox"
// Columns only ever widen, so lines stay aligned as longer reasons or names appear; seed
// `objects` with every label the pod will use to keep the layout fixed from the first line.

export interface ConsoleSinkOptions {
  /** Default process.stdout. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** For NO_COLOR / FORCE_COLOR, TERM and CI (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Default: chalk as configureColor leaves it. */
  chalk?: ChalkInstance;
  /** Object labels known in advance (`pod/web`, `pod/web[app]`), to fix the column width. */
  objects?: readonly string[];
  /**
   * A live status view (lib/output/live-status.ts) that owns the terminal: lines go above it,
   * and its rows show pulls, so there is no spinner of our own.
   */
  live?: { print(line: string): void };
}

export interface ConsoleSink extends EventSink {
  /** Shows a spinner with `text` until stopped; on anything but an interactive terminal, nothing. */
  startProgress(text: string): { stop(): void };
}

// Wide enough for the frequent reasons (Pulling, Created, BackOff, Unhealthy…); longer ones widen it.
const MIN_REASON_WIDTH = 9;
const TYPE_WIDTH = "Warning".length;

export function createConsoleSink(options: ConsoleSinkOptions = {}): ConsoleSink {
  const stream = options.stream ?? process.stdout;
  const env = options.env ?? process.env;
  const chalk = options.chalk ?? configureColor(env);
  const widths = { reason: MIN_REASON_WIDTH, object: Math.max(0, ...(options.objects ?? []).map((o) => o.length)) };

  const write = (event: KubeEvent): void => {
    const line = formatEventLine(event, { chalk, widths });
    // ora, while spinning, intercepts writes to the stream: it clears the spinner line first.
    if (options.live) options.live.print(line);
    else stream.write(`${line}\n`);
  };

  const progress = createProgress(stream, !options.live && isInteractive(stream, env));
  return { write, startProgress: progress };
}

/** One event line; `widths` grow to fit it. Colour only through `chalk` (level 0: none). */
export function formatEventLine(
  event: KubeEvent,
  { chalk, widths }: { chalk: ChalkInstance; widths: { reason: number; object: number } },
): string {
  const object = formatObjectLabel(event);
  widths.reason = Math.max(widths.reason, event.reason.length);
  widths.object = Math.max(widths.object, object.length);
  const typeColor = event.type === "Warning" ? chalk.yellow : chalk.green;
  const count = event.count > 1 ? ` (x${event.count})` : "";
  return [
    chalk.dim(formatClock(event.lastTimestamp)),
    typeColor(event.type.padEnd(TYPE_WIDTH)),
    event.reason.padEnd(widths.reason),
    object.padEnd(widths.object),
    `${event.message}${count}`,
  ].join("  ");
}

/** `pod/web`, or `pod/web[app]` for an event about container `app`; `job/migrate` for a Job's, `service/api` for a Service's. */
export function formatObjectLabel(event: Pick<KubeEvent, "involvedObject">): string {
  const container = containerNameOf(event.involvedObject);
  const kind = event.involvedObject.kind;
  const pod = `${kind === "Job" || kind === "Service" ? kind.toLowerCase() : "pod"}/${event.involvedObject.name}`;
  return container === undefined ? pod : `${pod}[${container}]`;
}

// Local wall-clock HH:MM:SS of the event's last occurrence.
function formatClock(timestamp: string): string {
  const date = new Date(timestamp);
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
}

// is-interactive, which ora uses: a TTY, not TERM=dumb, and no CI variable (even an empty one).
export function isInteractive(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && env.TERM !== "dumb" && !("CI" in env);
}

// One spinner for all concurrent progress (parallel pulls): its text lists what is under way.
// ora is loaded only on an interactive terminal, so CI runs never pay for loading it; a pull
// that starts before it has loaded simply gets its spinner a moment later.
function createProgress(stream: NodeJS.WritableStream, interactive: boolean): ConsoleSink["startProgress"] {
  if (!interactive) return () => ({ stop() {} });
  const active: { text: string }[] = [];
  let spinner: Ora | undefined;
  const render = () => {
    if (!spinner) return;
    if (active.length === 0) spinner.stop();
    else {
      spinner.text = active.map((a) => a.text).join(", ");
      if (!spinner.isSpinning) spinner.start();
    }
  };
  void import("ora").then(({ default: ora }) => {
    // discardStdin off: ora's raw mode would change how Ctrl-C reaches podrun.
    spinner = ora({ stream, isEnabled: true, discardStdin: false });
    render();
  });
  return (text) => {
    const item = { text };
    active.push(item);
    render();
    return {
      stop() {
        const index = active.indexOf(item);
        if (index < 0) return;
        active.splice(index, 1);
        render();
      },
    };
  };
}
