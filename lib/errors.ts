// Errors sorted by intent: each class says which exit code it ends in, and lib/cli.ts maps
// them in one place. Anything else that reaches the top is a bug and is reported as one.

/**
 * A bug in podrun rather than a failure of the pod, the engine or the disk: the classes the
 * JavaScript engine throws for wrong code (not SyntaxError: JSON.parse throws it for bad input).
 */
export function isProgrammingError(error: unknown): boolean {
  return error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError;
}

/** What was thrown, as text: an Error's message, else the value itself (`throw "x"` gives `x`). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The first line of errorMessage(error): what a one-line message quotes of a longer error. */
export function errorFirstLine(error: unknown): string {
  return errorMessage(error).split("\n", 1)[0]!;
}

/** Documented exit codes. */
export const ExitCode = {
  Ok: 0,
  /** The pod, or an operation on it, failed (pull, create, start, engine unavailable…). */
  Failed: 1,
  /** Bad usage or a bad manifest: nothing was attempted. */
  Usage: 2,
  /** Interrupted by SIGINT (128 + 2), as shells and docker compose report it. */
  Interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The kubelet's reason strings, used as error reasons so users see the words a cluster shows. */
export type Reason =
  | "ErrImagePull"
  | "ImagePullBackOff"
  | "ErrImageNeverPull"
  | "InvalidImageName"
  | "ImageInspectError"
  | "RegistryUnavailable"
  | "CreateContainerConfigError"
  | "CreateContainerError"
  | "RunContainerError"
  | "PostStartHookError"
  | "FailedCreatePodSandBox"
  | "InitContainerFailed"
  | "RuntimeUnavailable"
  /** `up`: a name the pod needs is held by a container (or podman pod) podrun did not create for it. */
  | "NameConflict"
  /** `up --wait` timed out: the PodReady condition's reason on a cluster. */
  | "ContainersNotReady"
  /** `up --wait`: an app container exited and its restartPolicy does not restart it. */
  | "ContainerTerminated"
  /** `up --wait`: a startup probe failed failureThreshold times (the kubelet would kill the container). */
  | "StartupProbeFailed"
  /** spec.activeDeadlineSeconds passed (the pod's status.reason on a cluster). */
  | "DeadlineExceeded"
  | "FailedMount"
  /** `down`: a container, the sandbox or a volume of the pod could not be stopped or removed. */
  | "FailedKillPod"
  /** `up`: a Service's proxy could not be made or started (a node port taken on this machine…). */
  | "FailedServiceProxy";

/** An operation on a pod failed: exit 1. The message is one line, ready to print. */
export class PodrunError extends Error {
  override readonly name = "PodrunError";
  /** Lines that explain the failure (an init container's last log lines), printed before it. */
  readonly details?: string;
  constructor(
    readonly reason: Reason,
    message: string,
    options?: { cause?: unknown; details?: string },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.details) this.details = options.details;
  }
}

/** The manifest is invalid: exit 2. `lines` are the complete, formatted error lines. */
export class ManifestError extends Error {
  override readonly name = "ManifestError";
  constructor(readonly lines: readonly string[]) {
    super(lines.join("\n"));
  }
}

/** Bad flags or arguments: exit 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Already reported to the user: exit quietly with this code (or `exec`'s command's own, passed through). */
export class ExitError extends Error {
  override readonly name = "ExitError";
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/**
 * What kind of failure an engine call met, in terms that hold for any engine (lib/runtime says which):
 * - `not-found`: the container, image, pod or volume named is not there;
 * - `conflict`: the object is in a state that refuses the call (a name in use, a container not running);
 * - `timed-out`: the engine did not answer within the call's deadline;
 * - `unavailable`: the engine does not answer at all, is not installed, or is older than podrun supports;
 * - `canceled`: the caller's signal ended the call (Ctrl-C);
 * - `failed`: any other refusal, in the engine's own words.
 */
export type EngineFailure = "not-found" | "conflict" | "timed-out" | "unavailable" | "canceled" | "failed";

/**
 * An engine call failed: exit 1. `message` is the one line the user sees (the engine's own words, or
 * why no engine answered); `cause` is what the engine said in full. Thrown already explained by the
 * runtime (lib/runtime/engine-error.ts), so that no caller reads an engine's output.
 */
export class EngineError extends Error {
  override readonly name = "EngineError";
  /** "RuntimeUnavailable" when no engine answered (the word a kubelet uses), else none. */
  readonly reason?: "RuntimeUnavailable";
  /** The engine's own first line, as it printed it; else the call's one-line summary. */
  readonly detail: string;
  /** The call and how it ended, for a step that names it: `docker exec exited with code 125`. */
  readonly outcome: string;
  constructor(
    readonly kind: EngineFailure,
    message: string,
    options: { cause?: unknown; reason?: "RuntimeUnavailable"; detail?: string; outcome?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.reason) this.reason = options.reason;
    this.detail = options.detail ?? message;
    this.outcome = options.outcome ?? message;
  }
}

/**
 * A state file or directory (back-off file, event log, lock) could not be used: exit 1.
 * `message` is one line naming the path.
 */
export class StateAccessError extends Error {
  override readonly name = "StateAccessError";
  constructor(
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
