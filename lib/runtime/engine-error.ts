import { EngineError, type EngineFailure, errorMessage, PodrunError } from "../errors.js";
import { detectRuntime, type DetectedRuntime, type RuntimeName } from "./detect.js";
import { isOnlyNotFound, type Dialect } from "./dialects.js";
import { CommandError } from "./exec.js";
import { reduceErrorLine } from "./pull-errors.js";

// What to say when an engine command fails: the one place that reads the engine's own output
// (CommandError's stderr) and turns it into an EngineError of one kind (lib/errors.ts). Apart from
// lib/errors.ts because it reads that output and probes the engine: errors.ts imports nothing, so
// that every layer may throw its classes.

/**
 * docker answers these with 409 Conflict (a name in use, a container not running or already going);
 * podman and nerdctl use the same words. docker's "network x is ambiguous" (two networks of one
 * name, for a moment: network.ts) is one too: the object is there, in a state that refuses the call.
 */
const CONFLICT =
  /is (?:already )?in use|is being used|already exists|is not running|is already in progress|is ambiguous|\bconflict\b/i;

/** How the engine is asked whether it answers at all: detect.ts, for the one engine in use. */
export type EngineProbe = (name: RuntimeName) => Promise<DetectedRuntime>;

const probeEngine: EngineProbe = (name) => detectRuntime({ preferred: name });

/**
 * `error` as the runtime throws it: a CommandError becomes an EngineError (the engine's first
 * line as its message, the CommandError its cause); anything else is returned as it is. A failure
 * that is neither "not found" nor a conflict, nor a timeout or a cancel, probes the engine: when
 * none answers (or it is too old), that is the error (unavailable, with the probe's one line).
 */
export async function explainCommandError(
  dialect: Dialect,
  error: unknown,
  probe: EngineProbe = probeEngine,
): Promise<unknown> {
  if (!(error instanceof CommandError)) return error;
  const kind = classifyCommandError(dialect, error);
  if (kind === "failed" || kind === "unavailable") {
    const answer = await probe(dialect.name).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    // The probe's own line says why no engine answered; a version too old is an EngineError already.
    if (answer instanceof PodrunError)
      return new EngineError("unavailable", answer.message, { cause: error, reason: "RuntimeUnavailable" });
    if (answer !== undefined) return answer;
  }
  return toEngineError(dialect, error, kind);
}

/** A failed command as an EngineError of `kind`, without asking the engine anything (pure). */
export function toEngineError(
  dialect: Dialect,
  error: CommandError,
  kind: EngineFailure = classifyCommandError(dialect, error),
): EngineError {
  const ending = error.exitCode === undefined ? "did not finish" : `exited with code ${error.exitCode}`;
  return new EngineError(kind, describeEngineError(error), {
    cause: error,
    detail: firstLine(error.stderr) || error.shortMessage,
    outcome: `${dialect.name} ${error.args[0] ?? ""} ${ending}`,
  });
}

/** Which kind of failure a failed command is, from how it ended and what the engine printed (pure). */
export function classifyCommandError(dialect: Dialect, error: CommandError): EngineFailure {
  if (error.canceled) return "canceled";
  if (error.timedOut) return "timed-out";
  if (error.notInstalled) return "unavailable";
  // docker's CLI adds a summary line of its own after the daemon's (`Error: failed to start containers: x`).
  if (isOnlyNotFound(dialect, error.stderr) || dialect.notFound.test(firstLine(error.stderr))) return "not-found";
  if (CONFLICT.test(error.stderr)) return "conflict";
  return "failed";
}

function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "" && !NOISE.some((noise) => noise.test(l))) ?? ""
  );
}

/** One line for an event or an error: the engine's own message when there is one. */
export function describeError(error: unknown): string {
  if (error instanceof CommandError) return describeEngineError(error);
  return errorMessage(error);
}

/**
 * Lines an engine prints on stderr that say nothing of the call: podman's (and conmon's) "failed
 * to connect to syslog: Initialization" on a machine without /dev/log, and podman's logrus warnings
 * (`time="…" level=warning msg="…"`), which come before the error itself.
 */
const NOISE = [/^failed to connect to syslog\b/i, /^time="[^"]*" level=(?:warning|info|debug)\b/];

/** The engine's own first error line (past its noise), else the command's one-line summary. */
export function describeEngineError(error: CommandError): string {
  const line = firstLine(error.stderr);
  return (line && reduceErrorLine(line)) || error.shortMessage;
}
