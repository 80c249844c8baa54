// The only module in podrun that spawns processes. Everything goes through node:child_process
// with an argument array, never a shell, so nothing in a manifest can be interpreted as shell
// syntax. Node's own spawn rather than a wrapper library: `up` runs a dozen engine commands, and
// each wrapped spawn cost more in the main thread than podrun's own work between them.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from "node:child_process";
import { constants } from "node:os";
import { StringDecoder } from "node:string_decoder";
import type { Readable } from "node:stream";
import { quoteArgument } from "./quote.js";

export interface RunOptions {
  /** Written to the child's stdin. This is how secrets reach a runtime: never through argv. */
  input?: string | Buffer;
  /** Added to the inherited environment (it does not replace it); an undefined value removes that variable. */
  env?: Record<string, string | undefined>;
  /** Kill the child (SIGTERM, then SIGKILL 5 s later) when it runs longer than this. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * `false`: resolve with the result whatever the exit code. A missing binary, a timeout, a
   * cancellation or a kill by signal still throw: there is no exit code to report for those.
   */
  reject?: boolean;
}

export interface CommandResult {
  /** The command as shown to humans (quoted, long arguments shortened). */
  command: string;
  exitCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** A command that could not run or did not succeed. `shortMessage` is one line, ready to print. */
export class CommandError extends Error {
  override readonly name = "CommandError";
  readonly shortMessage: string;
  readonly binary: string;
  readonly args: readonly string[];
  /** Undefined when the process never ran or was killed by a signal. */
  readonly exitCode: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly canceled: boolean;
  /** The binary is not on PATH (ENOENT): for a runtime, "not installed". */
  readonly notInstalled: boolean;

  constructor(fields: {
    shortMessage: string;
    binary: string;
    args: readonly string[];
    exitCode: number | undefined;
    stdout: string;
    stderr: string;
    timedOut?: boolean;
    canceled?: boolean;
    notInstalled?: boolean;
    cause?: unknown;
  }) {
    // Like execa, the full message carries the stderr that explains the failure.
    const detail = fields.stderr.trim();
    super(detail ? `${fields.shortMessage}\n${truncate(detail, 2000)}` : fields.shortMessage, {
      cause: fields.cause,
    });
    this.shortMessage = fields.shortMessage;
    this.binary = fields.binary;
    this.args = fields.args;
    this.exitCode = fields.exitCode;
    this.stdout = fields.stdout;
    this.stderr = fields.stderr;
    this.timedOut = fields.timedOut ?? false;
    this.canceled = fields.canceled ?? false;
    this.notInstalled = fields.notInstalled ?? false;
  }
}

/** Runs `binary args…` to completion and collects its output (final newline stripped). */
export async function runCommand(
  binary: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<CommandResult> {
  const command = formatCommand(binary, args);
  // Never log stdin: it may hold a password.
  if (process.env["PODRUN_DEBUG"] === "1") process.stderr.write(`podrun: exec ${command}\n`);

  const started = performance.now();
  // Without input the child gets no stdin, so a command that would prompt fails instead of hanging.
  const child = startChild(binary, args, { stdin: options.input === undefined ? "ignore" : "pipe", env: options.env });
  if (options.input !== undefined && child.process.stdin) {
    // A child that exits without reading its input must not fail the run with EPIPE.
    child.process.stdin.on("error", () => undefined);
    child.process.stdin.end(options.input);
  }
  const stdoutChunks: Buffer[] = [];
  const stderrChunks: Buffer[] = [];
  child.process.stdout?.on("data", (chunk: Buffer) => stdoutChunks.push(chunk));
  child.process.stderr?.on("data", (chunk: Buffer) => stderrChunks.push(chunk));
  const result = await child.finish({ timeoutMs: options.timeoutMs, signal: options.signal });

  const stdout = stripFinalNewline(Buffer.concat(stdoutChunks).toString("utf8"));
  const stderr = stripFinalNewline(Buffer.concat(stderrChunks).toString("utf8"));
  const failure = describeFailure(result, {
    binary,
    args,
    command,
    stdout,
    stderr,
    timeoutMs: options.timeoutMs,
    reject: options.reject !== false,
  });
  if (failure) throw failure;
  return {
    command,
    exitCode: result.exitCode ?? 0,
    stdout,
    stderr,
    durationMs: Math.round(performance.now() - started),
  };
}

/**
 * Runs a tool that may not be installed (a manifest renderer, not an engine): its result, or
 * undefined when the binary is not on PATH, so that the caller may try another. Every other
 * failure is thrown as runCommand throws it.
 */
export async function runOptionalTool(
  binary: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<CommandResult | undefined> {
  try {
    return await runCommand(binary, args, options);
  } catch (error) {
    if (error instanceof CommandError && error.notInstalled) return undefined;
    throw error;
  }
}

/**
 * A child with its three streams piped, for a caller that streams both ways (a connection relayed
 * through the engine: relay.ts). An argument array, never a shell.
 */
export function spawnPiped(binary: string, args: readonly string[]): ChildProcessWithoutNullStreams {
  if (process.env["PODRUN_DEBUG"] === "1") process.stderr.write(`podrun: exec ${formatCommand(binary, args)}\n`);
  return spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"] });
}

export interface AttachedOptions {
  /** Streamed to the command's stdin (`exec -i`); absent: the command gets none. */
  stdin?: NodeJS.ReadableStream | undefined;
  /**
   * The command shares podrun's own terminal (`exec -t`): its stdin, stdout and stderr are
   * podrun's, so that the engine's CLI sees a TTY and sets it raw. Then `stdout` and `stderr` are
   * not used.
   */
  tty?: boolean;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Ends the command (SIGTERM, then SIGKILL): Ctrl-C of a command without a terminal. */
  signal?: AbortSignal;
}

/**
 * Runs `binary args…` attached: its output copied to `stdout` and `stderr` as it comes (never
 * held), its stdin fed from `stdin`. Resolves with its exit code, 128 + N when signal N ended it
 * (as a shell reports it); throws CommandError only when it could not be started.
 */
export async function runAttached(binary: string, args: readonly string[], options: AttachedOptions): Promise<number> {
  if (process.env["PODRUN_DEBUG"] === "1") process.stderr.write(`podrun: exec ${formatCommand(binary, args)}\n`);
  const { stdin, stdout, stderr } = options;
  const child = options.tty
    ? spawn(binary, args, { stdio: "inherit" })
    : spawn(binary, args, { stdio: [stdin ? "pipe" : "ignore", "pipe", "pipe"] });
  if (!options.tty) {
    if (stdin && child.stdin) {
      // A command that exits without reading all of its input must not fail the run with EPIPE.
      child.stdin.on("error", () => undefined);
      stdin.pipe(child.stdin);
    }
    child.stdout?.pipe(stdout, { end: false });
    child.stderr?.pipe(stderr, { end: false });
  }
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  };
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        child.once("close", (code, signal) => resolve({ code, signal }));
        child.once("error", (error) => {
          if (child.pid === undefined)
            reject(
              new CommandError({
                shortMessage: `${binary}: could not be started: ${error.message}`,
                binary,
                args,
                exitCode: undefined,
                stdout: "",
                stderr: "",
                notInstalled: (error as NodeJS.ErrnoException).code === "ENOENT",
                cause: error,
              }),
            );
        });
      },
    );
    return code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
  } finally {
    options.signal?.removeEventListener("abort", stop);
    if (stdin && child.stdin) stdin.unpipe(child.stdin);
  }
}

/** A stopped child gets SIGTERM, then SIGKILL this long after if it is still there. */
const FORCE_KILL_AFTER_MS = 5000;

interface StartedChild {
  process: ChildProcess;
  /** Resolves once the child has exited and its output streams are closed; never rejects. */
  finish(limits: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined }): Promise<FinishedChild>;
}

function startChild(
  binary: string,
  args: readonly string[],
  options: { stdin: "ignore" | "pipe"; env?: Record<string, string | undefined> | undefined },
): StartedChild {
  // Node leaves out a variable whose value is undefined: that is how `env` removes one.
  const env = options.env ? { ...process.env, ...options.env } : process.env;
  const child = spawn(binary, args, { stdio: [options.stdin, "pipe", "pipe"], env });
  let spawnError: unknown;
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal }));
    // A binary that cannot be started gets `error` and, with no process, maybe no `close`.
    child.on("error", (error) => {
      if (child.pid !== undefined) return; // a failed kill of a process that has gone: `close` follows
      spawnError = error;
      resolve({ code: null, signal: null });
    });
  });
  return {
    process: child,
    async finish({ timeoutMs, signal }) {
      let timedOut = false;
      let isCanceled = false;
      let forceKill: NodeJS.Timeout | undefined;
      const stop = () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        forceKill ??= setTimeout(() => child.kill("SIGKILL"), FORCE_KILL_AFTER_MS);
      };
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => ((timedOut = true), stop()), timeoutMs);
      const onAbort = () => ((isCanceled = true), stop());
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      try {
        const { code, signal: killedBy } = await closed;
        const exitCode = code ?? undefined;
        const failed = spawnError !== undefined || timedOut || isCanceled || exitCode !== 0;
        return { failed, cause: spawnError, exitCode, timedOut, isCanceled, signal: killedBy ?? undefined };
      } finally {
        clearTimeout(timer);
        clearTimeout(forceKill);
        signal?.removeEventListener("abort", onAbort);
      }
    },
  };
}

function stripFinalNewline(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

/** What a finished child reports, as far as telling its failure goes. */
interface FinishedChild {
  failed: boolean;
  cause?: unknown;
  exitCode?: number | undefined;
  timedOut: boolean;
  isCanceled: boolean;
  signal?: string | undefined;
}

/**
 * The CommandError for a finished child, checked in this order so that the most specific
 * reason wins, or undefined when it succeeded (or, with `reject` false, only exited non-zero).
 */
function describeFailure(
  result: FinishedChild,
  context: {
    binary: string;
    args: readonly string[];
    command: string;
    stdout: string;
    stderr: string;
    timeoutMs?: number | undefined;
    reject: boolean;
  },
): CommandError | undefined {
  if (!result.failed) return undefined;
  const { binary, args, command, stdout, stderr } = context;
  // The spawn error (ENOENT…), when there is one, stays the cause.
  const base = { binary, args, stdout, stderr, exitCode: result.exitCode, cause: result.cause };
  const code = errorCode(result.cause);
  if (code === "ENOENT" && result.exitCode === undefined) {
    return new CommandError({
      ...base,
      shortMessage: `${binary}: not installed (not found on PATH)`,
      notInstalled: true,
    });
  }
  if (result.timedOut) {
    return new CommandError({
      ...base,
      shortMessage: `Command timed out after ${context.timeoutMs} milliseconds: ${command}`,
      timedOut: true,
    });
  }
  if (result.isCanceled)
    return new CommandError({ ...base, shortMessage: `Command was canceled: ${command}`, canceled: true });
  if (result.exitCode === undefined) {
    const why = result.signal ? `was killed with ${result.signal}` : `failed with ${code ?? "an error"}`;
    return new CommandError({ ...base, shortMessage: `Command ${why}: ${command}` });
  }
  if (!context.reject) return undefined;
  return new CommandError({ ...base, shortMessage: `Command failed with exit code ${result.exitCode}: ${command}` });
}

/** One line of a streamed command's output, without its line break. */
export interface OutputLine {
  stream: "stdout" | "stderr";
  text: string;
}

export interface StreamOptions {
  /** Added to the inherited environment (it does not replace it); an undefined value removes that variable. */
  env?: Record<string, string | undefined>;
  /** Stops the command (SIGTERM, then SIGKILL 5 s later); the stream then ends without an error. */
  signal?: AbortSignal;
}

/** Lines read ahead of the consumer before reading pauses: memory stays bounded whatever the output. */
const MAX_QUEUED_LINES = 1000;
/** stderr lines kept for the CommandError of a failed stream (they were yielded already). */
const KEPT_STDERR_LINES = 20;

/**
 * Runs `binary args…` and yields its output line by line as it is written, stdout and stderr
 * in the order they are read: for output that must not wait for the command to end (`logs
 * --follow`). Reading pauses while the consumer is behind. Ends when the command exits 0, or
 * quietly when `signal` aborts; otherwise throws CommandError as runCommand does, its `stderr`
 * holding the last stderr lines. Leaving the loop early kills the command.
 */
export async function* streamCommand(
  binary: string,
  args: readonly string[],
  options: StreamOptions = {},
): AsyncGenerator<OutputLine, void, undefined> {
  const command = formatCommand(binary, args);
  if (process.env["PODRUN_DEBUG"] === "1") process.stderr.write(`podrun: exec ${command}\n`);
  const started = startChild(binary, args, { stdin: "ignore", env: options.env });
  const child = started.process;
  // Started at once, so that an abort stops the command even while the consumer is not reading.
  const finished = started.finish({ signal: options.signal });

  const lines = queueLines(child.stdout, child.stderr);

  try {
    for (;;) {
      const line = lines.next();
      if (line !== undefined) yield line;
      else if (lines.ended()) break;
      else await lines.arrival();
    }
    const result = await finished;
    if (options.signal?.aborted) return;
    const failure = describeFailure(result, {
      binary,
      args,
      command,
      stdout: "",
      stderr: lines.stderrTail.join("\n"),
      reject: true,
    });
    if (failure) throw failure;
  } finally {
    // The consumer left early (or threw): the command must not outlive the loop.
    if (child.exitCode === null && child.signalCode === null) child.kill();
  }
}

/** A command's output lines, queued as read; reading pauses while the consumer is behind. */
interface LineQueue {
  /** The next line read, if one waits; reading resumes once the queue has drained to half. */
  next(): OutputLine | undefined;
  /** True once both streams have ended. */
  ended(): boolean;
  /** Resolves when a line arrives or a stream ends. */
  arrival(): Promise<void>;
  /** The last KEPT_STDERR_LINES lines of stderr, for the CommandError. */
  readonly stderrTail: string[];
}

// Splits each stream into lines as its chunks come, and pauses both at MAX_QUEUED_LINES.
function queueLines(stdout: Readable | null, stderr: Readable | null): LineQueue {
  const queue: OutputLine[] = [];
  const stderrTail: string[] = [];
  const readables = [stdout, stderr];
  let open = 0;
  let paused = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const push = (line: OutputLine) => {
    queue.push(line);
    if (line.stream === "stderr" && stderrTail.push(line.text) > KEPT_STDERR_LINES) stderrTail.shift();
  };
  const listen = (readable: NodeJS.ReadableStream, stream: OutputLine["stream"]) => {
    open++;
    const decoder = new StringDecoder("utf8");
    let pending = "";
    let ended = false;
    readable.on("data", (chunk: Buffer) => {
      const lines = (pending + decoder.write(chunk)).split("\n");
      pending = lines.pop() ?? "";
      for (const text of lines) push({ stream, text });
      if (queue.length >= MAX_QUEUED_LINES && !paused) {
        paused = true;
        for (const r of readables) r?.pause();
      }
      notify();
    });
    const end = () => {
      if (ended) return;
      ended = true;
      // A last line without a line break is still a line.
      pending += decoder.end();
      if (pending !== "") push({ stream, text: pending });
      open--;
      notify();
    };
    readable.on("end", end);
    readable.on("close", end);
  };
  if (stdout) listen(stdout, "stdout");
  if (stderr) listen(stderr, "stderr");

  const next = () => {
    const line = queue.shift();
    if (line !== undefined && paused && queue.length <= MAX_QUEUED_LINES / 2) {
      paused = false;
      for (const r of readables) r?.resume();
    }
    return line;
  };
  return { next, ended: () => open === 0, arrival: () => new Promise<void>((resolve) => (wake = resolve)), stderrTail };
}

const MAX_ARG = 80;
const MAX_COMMAND = 240;

/** `binary args…` for messages: arguments quoted when needed, long ones and long lists shortened. */
export function formatCommand(binary: string, args: readonly string[]): string {
  const parts = [binary, ...args].map((arg) => quoteArgument(truncate(arg, MAX_ARG)));
  let out = "";
  for (const part of parts) {
    const next = out ? `${out} ${part}` : part;
    if (next.length > MAX_COMMAND) return `${out} …`;
    out = next;
  }
  return out;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function errorCode(cause: unknown): string | undefined {
  if (typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string") {
    return cause.code;
  }
  return undefined;
}
