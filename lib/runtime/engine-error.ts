import { EngineCommandError } from "../errors.js";
import { detectRuntime, type RuntimeName } from "./detect.js";
import { CommandError } from "./exec.js";
import { reduceErrorLine } from "./pull-errors.js";

// What to say when an engine command fails. Apart from lib/errors.ts because it reads the
// engine's own output (CommandError's stderr, the pull-error table): errors.ts imports nothing,
// so that every layer may throw its classes.

/**
 * For a failed engine command: the probe's one-line account when the engine is down or missing
 * (PodrunError RuntimeUnavailable), else EngineCommandError naming the engine's own error.
 * Anything that is not an engine command's failure is rethrown as it is.
 */
export async function explainEngineFailure(runtime: RuntimeName, error: unknown): Promise<never> {
  if (!(error instanceof CommandError)) throw error;
  await detectRuntime({ preferred: runtime });
  throw new EngineCommandError(describeEngineError(error), { cause: error });
}

/** One line for an event or an error: the engine's own message when there is one. */
export function describeError(error: unknown): string {
  if (error instanceof CommandError) return describeEngineError(error);
  return error instanceof Error ? error.message : String(error);
}

/** The engine's own first error line, else the command's one-line summary. */
export function describeEngineError(error: CommandError): string {
  const line = error.stderr
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
  return (line && reduceErrorLine(line)) || error.shortMessage;
}
