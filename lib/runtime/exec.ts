// The only module in podrun that spawns processes. Everything goes through execa with an
// argument array, never a shell, so nothing in a manifest can be interpreted as shell syntax.
import { execa } from "execa";
import { quoteArgument } from "./quote.js";

export interface RunOptions {
  /** Written to the child's stdin. This is how secrets reach a runtime: never through argv. */
  input?: string;
  /** Added to the inherited environment (it does not replace it). */
  env?: Record<string, string>;
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

  const result = await execa(binary, args, {
    reject: false,
    // Without input the child gets no stdin, so a command that would prompt fails instead of hanging.
    ...(options.input === undefined ? { stdin: "ignore" as const } : { input: options.input }),
    ...(options.env ? { env: options.env } : {}),
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    ...(options.signal ? { cancelSignal: options.signal } : {}),
    stdout: "pipe",
    stderr: "pipe",
  });

  const stdout = typeof result.stdout === "string" ? result.stdout : "";
  const stderr = typeof result.stderr === "string" ? result.stderr : "";
  // A failed result is execa's own ExecaError (returned, not thrown): keep it as the cause.
  const base = { binary, args, stdout, stderr, exitCode: result.exitCode, cause: result.failed ? result : undefined };

  if (result.failed) {
    // Checks in execa's order: the most specific reason for the failure wins.
    const code = errorCode(result.cause);
    if (code === "ENOENT" && result.exitCode === undefined) {
      throw new CommandError({ ...base, shortMessage: `${binary}: not installed (not found on PATH)`, notInstalled: true });
    }
    if (result.timedOut) {
      throw new CommandError({ ...base, shortMessage: `Command timed out after ${options.timeoutMs} milliseconds: ${command}`, timedOut: true });
    }
    if (result.isCanceled) {
      throw new CommandError({ ...base, shortMessage: `Command was canceled: ${command}`, canceled: true });
    }
    if (result.exitCode === undefined) {
      const why = result.signal ? `was killed with ${result.signal}` : `failed with ${code ?? "an error"}`;
      throw new CommandError({ ...base, shortMessage: `Command ${why}: ${command}` });
    }
    if (options.reject !== false) {
      throw new CommandError({ ...base, shortMessage: `Command failed with exit code ${result.exitCode}: ${command}` });
    }
  }
  return { command, exitCode: result.exitCode ?? 0, stdout, stderr, durationMs: Math.round(result.durationMs) };
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
