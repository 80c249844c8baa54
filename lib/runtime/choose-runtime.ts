import { detectRuntime, runtimeNamedInEnv, type DetectedRuntime, type RuntimeName } from "./detect.js";
import { CommandError } from "./exec.js";
import { reduceErrorLine } from "./pull-errors.js";

// Which engine a command that reads pods talks to, and what to say when it does not answer.
// With --runtime or $PODRUN_RUNTIME the engine is not probed first (one process less per call):
// the first real command tells whether it answers, and explainEngineFailure says why not.

export async function chooseRuntime(preferred: RuntimeName | undefined, env: NodeJS.ProcessEnv): Promise<DetectedRuntime> {
  const chosen = preferred ?? runtimeNamedInEnv(env);
  if (chosen) return { name: chosen, binary: chosen, clientVersion: "", serverVersion: "" };
  return detectRuntime({ env });
}

/**
 * For a failed engine command: the probe's one-line account when the engine is down or missing
 * (PodrunError RuntimeUnavailable), else one line naming the engine's own error. Anything that
 * is not an engine command's failure is rethrown as it is.
 */
export async function explainEngineFailure(runtime: RuntimeName, error: unknown): Promise<never> {
  if (!(error instanceof CommandError)) throw error;
  await detectRuntime({ preferred: runtime });
  throw new EngineCommandError(describeEngineError(error), { cause: error });
}

/** An engine command failed while the engine itself answers: exit 1, message ready to print. */
export class EngineCommandError extends Error {
  override readonly name = "EngineCommandError";
}

/** One line for an event or an error: the engine's own message when there is one. */
export function describeError(error: unknown): string {
  if (error instanceof CommandError) return describeEngineError(error);
  return error instanceof Error ? error.message : String(error);
}

/** The engine's own first error line, else the command's one-line summary. */
export function describeEngineError(error: CommandError): string {
  const line = error.stderr.split("\n").map((l) => l.trim()).find((l) => l !== "");
  return (line && reduceErrorLine(line)) || error.shortMessage;
}
