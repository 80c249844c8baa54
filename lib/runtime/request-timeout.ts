// Every engine command podrun runs has a deadline, as every CRI call the kubelet makes is bounded
// by its --runtime-request-timeout (default 2m): an engine that accepts a request and never
// answers must fail the step, not hang podrun. The exceptions are the kubelet's: an image pull
// (the kubelet's PullImage has no deadline), a wait for a container's exit, and an exec, whose
// own timeout is the probe's or hook's; `logs -f` is streamed (exec.ts streamCommand) and never
// comes here. A stop gets its grace period on top, as the kubelet's StopContainer does:
// https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/cri-client/pkg/remote_runtime.go
import { formatGoDuration } from "../events/go-duration.js";
import { parseDurationOption } from "../events/parse-duration.js";
import { CommandError, type CommandResult, type RunOptions } from "./exec.js";

/** The kubelet's default --runtime-request-timeout. */
export const DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS = 2 * 60_000;

export const RUNTIME_REQUEST_TIMEOUT_FLAG = "--runtime-request-timeout";
export const RUNTIME_REQUEST_TIMEOUT_ENV = "PODRUN_RUNTIME_REQUEST_TIMEOUT";

/** `--runtime-request-timeout`, else `$PODRUN_RUNTIME_REQUEST_TIMEOUT`, else 2m; a bad value is a usage error naming where it came from. */
export function resolveRequestTimeout(flag: string | undefined, env: NodeJS.ProcessEnv): number {
  if (flag !== undefined) return parseDurationOption(flag, RUNTIME_REQUEST_TIMEOUT_FLAG);
  const fromEnv = env[RUNTIME_REQUEST_TIMEOUT_ENV]?.trim();
  return fromEnv ? parseDurationOption(fromEnv, RUNTIME_REQUEST_TIMEOUT_ENV) : DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS;
}

// Engine subcommands that are a group: the step is named by two words (`podman pod create`).
const GROUPS = new Set(["container", "image", "pod", "volume", "network", "system"]);

/** The command's name without its arguments, for messages: `docker create`, `podman pod rm`. */
export function describeStep(binary: string, args: readonly string[]): string {
  const [first, second] = args;
  if (first === undefined) return binary;
  return GROUPS.has(first) && second !== undefined && !second.startsWith("-")
    ? `${binary} ${first} ${second}`
    : `${binary} ${first}`;
}

/** How long `args` may run given the request timeout; undefined: no deadline. */
export function requestDeadlineMs(args: readonly string[], timeoutMs: number): number | undefined {
  const [command] = args;
  if (command === "pull" || command === "wait" || command === "exec") return undefined;
  if (command === "logs" && args.some((arg) => arg === "-f" || arg === "--follow")) return undefined;
  if (command === "stop") {
    const at = args.indexOf("-t");
    const grace = at >= 0 ? Number(args[at + 1]) : Number.NaN;
    return Number.isFinite(grace) ? timeoutMs + grace * 1000 : timeoutMs;
  }
  return timeoutMs;
}

export type RunEngineCommand = (
  binary: string,
  args: readonly string[],
  options?: RunOptions,
) => Promise<CommandResult>;

/**
 * Runs an engine command through `run` (exec.ts runCommand) within its deadline. A command that
 * does not answer in time is killed (SIGTERM, then SIGKILL) and fails with a CommandError whose
 * one line names the step and the deadline, never the arguments: "docker create did not answer
 * within 2m0s". A caller's own `timeoutMs` (an exec probe's) is kept as it is.
 */
export async function runWithinDeadline(
  run: RunEngineCommand,
  binary: string,
  args: readonly string[],
  options: RunOptions,
  requestTimeoutMs: number | undefined,
): Promise<CommandResult> {
  const deadline =
    options.timeoutMs !== undefined || requestTimeoutMs === undefined
      ? undefined
      : requestDeadlineMs(args, requestTimeoutMs);
  if (deadline === undefined) return run(binary, args, options);
  try {
    return await run(binary, args, { ...options, timeoutMs: deadline });
  } catch (error) {
    if (!(error instanceof CommandError) || !error.timedOut) throw error;
    throw new RequestTimeoutError(describeStep(binary, args), deadline, error);
  }
}

/** An engine command that did not answer within its deadline. Its output is left out: it is the killed CLI's. */
export class RequestTimeoutError extends CommandError {
  constructor(step: string, deadlineMs: number, cause: CommandError) {
    super({
      shortMessage: `${step} did not answer within ${formatGoDuration(deadlineMs)}`,
      binary: cause.binary,
      args: cause.args,
      exitCode: undefined,
      stdout: "",
      stderr: "",
      timedOut: true,
      cause,
    });
  }
}

/**
 * Whether `error`, or an error it was caused by, is an engine command that did not answer: the
 * engine may still carry it out, so what that command was making is undone by name.
 */
export function isRequestTimeout(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof RequestTimeoutError) return true;
  }
  return false;
}
