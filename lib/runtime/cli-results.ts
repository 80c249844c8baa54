// Reading a finished CLI call: its output lines, and a CommandError for a result that was
// collected with `reject: false` and then judged a failure.
import { CommandError, type CommandResult } from "./exec.js";

/**
 * For `exec`, whose exit code is the command's own: did the CLI fail instead (a missing or
 * stopped container)? docker says so with a daemon error, nerdctl with a logrus fatal line,
 * podman with `Error: …` and exit 125 (255 for a stopped container): a command's own 125 or 255
 * alone does not count.
 */
export function isCliFailure(result: CommandResult): boolean {
  if (/^Error response from daemon:|level=fatal msg=/m.test(result.stderr)) return true;
  return (result.exitCode === 125 || result.exitCode === 255) && /^Error: /m.test(result.stderr);
}

export function toCommandError(
  binary: string,
  args: readonly string[],
  result: CommandResult,
  shortMessage?: string,
): CommandError {
  return new CommandError({
    shortMessage: shortMessage ?? `Command failed with exit code ${result.exitCode}: ${result.command}`,
    binary,
    args,
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
  });
}

/** Non-empty lines, trimmed. */
export function splitLines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
}

/** The last non-empty line: where create, start and wait print their answer. */
export function lastLine(text: string): string {
  return splitLines(text).at(-1) ?? "";
}
