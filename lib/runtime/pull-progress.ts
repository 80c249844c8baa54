// The pull progress deadline: a pull that prints nothing new for that long is canceled (its
// process killed) and fails as ErrImagePull, as the kubelet's --image-pull-progress-deadline did
// with docker (pkg/kubelet/dockershim/libdocker/kube_docker_client.go in kubernetes v1.23, "Cancel
// pulling image ... because of no progress") and containerd's image_pull_progress_timeout does
// today. Without it, an engine waits on a registry that accepts the connection and never answers
// for as long as the registry keeps it open: podman 4.3 forever, docker 20.10 too once the
// registry answered its first request (docs/up.md).
//
// Progress is a line of the pull's output not printed before: writing to a pipe, docker and podman
// print one line per step of each layer (waiting, downloading, verified, extracted), not the
// bytes. Not progress: a line printed again (nerdctl redraws its whole table), nerdctl's running
// `elapsed:` total, and docker's countdown to its next attempt at a layer (`Retrying in 5
// seconds`): waiting for the registry to come back is the stall the deadline is for.
import { UsageError } from "../errors.js";
import { formatGoDuration } from "../events/go-duration.js";
import { parseDuration } from "../events/parse-duration.js";
import { CommandError, formatCommand, streamCommand, type CommandResult } from "./exec.js";
import { PullError } from "./pull-errors.js";

/**
 * The default deadline. Longer than the kubelet's 1m: its progress was bytes, ours is a line per
 * layer step, so a single layer's download must fit in it whole.
 */
export const DEFAULT_IMAGE_PULL_PROGRESS_DEADLINE_MS = 5 * 60_000;

export interface PullCommandOptions {
  /** The image, for the error. */
  ref: string;
  /** No new output for this long cancels the pull; 0 or absent: never. */
  deadlineMs?: number;
  /** The pull's own environment additions (credentials); `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
}

const NOT_PROGRESS = /^elapsed:|: Retrying in \d+ seconds?$/;
/** Lines of each stream kept for the result. */
const KEPT_LINES = 500;

/**
 * Runs the pull command as runCommand with `reject: false` would, watching its output: resolves
 * with the result whatever the exit code; throws CommandError when it could not run or was
 * canceled through `signal`, and PullError (ErrImagePull) naming the deadline when it passed.
 */
export async function runPullCommand(
  binary: string,
  args: readonly string[],
  options: PullCommandOptions,
): Promise<CommandResult> {
  const { ref, deadlineMs = 0, env, signal } = options;
  const started = performance.now();
  // Stops the pull for either reason (AbortSignal.any is newer than Node 20.0).
  const stop = new AbortController();
  let stalled = false;
  const onAbort = () => stop.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) stop.abort();
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  const seen = new Set<string>();
  let latest = "";
  let timer: NodeJS.Timeout | undefined;
  const rearm = () => {
    if (deadlineMs <= 0) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      stop.abort();
    }, deadlineMs);
  };
  const result = (exitCode: number): CommandResult => ({
    command: formatCommand(binary, args),
    exitCode,
    stdout: lines.stdout.join("\n"),
    stderr: lines.stderr.join("\n"),
    durationMs: Math.round(performance.now() - started),
  });

  rearm();
  try {
    for await (const { stream, text } of streamCommand(binary, args, {
      ...(env ? { env } : {}),
      signal: stop.signal,
    })) {
      // Bounded whatever the engine redraws: the error is at the end.
      if (lines[stream].push(text) > KEPT_LINES) lines[stream].shift();
      const line = text.trim();
      if (line === "" || seen.has(line) || NOT_PROGRESS.test(line)) continue;
      seen.add(line);
      latest = line;
      rearm();
    }
  } catch (error) {
    // A pull that ran and failed is the registry's answer, classified by the caller.
    if (error instanceof CommandError && error.exitCode !== undefined) return result(error.exitCode);
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  if (signal?.aborted) {
    const { stdout, stderr } = result(0);
    throw new CommandError({
      shortMessage: `Command was canceled: ${formatCommand(binary, args)}`,
      binary,
      args,
      exitCode: undefined,
      stdout,
      stderr,
      canceled: true,
    });
  }
  if (stalled) {
    const after = latest ? `; latest progress: ${JSON.stringify(latest)}` : "";
    const message = `pull of ${ref} canceled because of no progress for ${formatGoDuration(deadlineMs)} (--image-pull-progress-deadline)${after}`;
    throw new PullError(ref, { reason: "ErrImagePull", kind: "other", message });
  }
  return result(0);
}

/**
 * `--image-pull-progress-deadline` (else $PODRUN_IMAGE_PULL_PROGRESS_DEADLINE) in ms: a Go
 * duration, 0 turning the deadline off; absent, the default; anything else a usage error.
 */
export function parseImagePullProgressDeadline(
  value: string | undefined,
  flag = "--image-pull-progress-deadline",
): number {
  if (value === undefined || value === "") return DEFAULT_IMAGE_PULL_PROGRESS_DEADLINE_MS;
  const ms = parseDuration(value);
  if (ms === undefined || ms < 0)
    throw new UsageError(
      `invalid value ${JSON.stringify(value)} for ${flag}: expected a duration such as 90s, 5m or 0 (no deadline)`,
    );
  return ms;
}
