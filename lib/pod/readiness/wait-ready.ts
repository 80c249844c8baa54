import { PodrunError } from "../../errors.js";
import { escapeControlCharacters } from "../../text/terminal-text.js";
import { describeTerminationMessage } from "../termination-message.js";
import { abortError } from "../../process/abort.js";
import type { ContainerRuntime } from "../../runtime/types.js";
import type { LivenessOptions } from "./liveness.js";
import { Prober, type ProberOptions } from "./prober.js";
import type { ContainerProgress, Outcome } from "./prober-types.js";
import { describeProgress, explainNotReady, formatWaitDuration, type ContainerTracker } from "./readiness-tracker.js";
import { systemClock, type Clock } from "./wait-clock.js";

// `up --wait`: the pod's prober (prober.ts) until every app container and sidecar is Ready (a
// sidecar counts towards the pod's readiness as an app container does). The wait ends when all
// are ready at once, when a container can never be ready (it exited for good, or failed its
// startup probe), at the time limit, at the pod's active deadline, or on Ctrl-C (an AbortError,
// lib/process/abort.ts). Its failures are worded here: each container that is not ready, why,
// and its last log lines.

export interface WaitForPodReadyOptions extends Pick<
  ProberOptions,
  "runtime" | "recorder" | "pod" | "identity" | "containers" | "podIP"
> {
  /** The time limit; Infinity for none (the probes' own thresholds end the wait). */
  timeoutMs: number;
  /**
   * When the limit falls (the clock's ms), if it was set for a whole run (`up --wait`'s one
   * deadline) rather than from this wait's start; the error still names `timeoutMs`.
   */
  endsAtMs?: number | undefined;
  /**
   * Only until each container has started: running and past its startup probe, readiness not
   * asked (a sidecar before the next init container). An exit ends the wait as a failure.
   */
  untilStarted?: boolean;
  /** Aborting it ends the wait with an AbortError (the containers are left as they are). */
  signal?: AbortSignal | undefined;
  /** Liveness probes and the restarts they cause (lib/pod/readiness/liveness.ts); absent: not probed. */
  liveness?: LivenessOptions;
  /** Called with every container's state whenever one changes. */
  onProgress?: (containers: readonly ContainerProgress[]) => void;
  clock?: Clock;
  /** How often the engine is asked for the containers' states (default 1 s). */
  statusIntervalMs?: number;
  /** Log lines shown for each container that is not ready when the wait fails (default 10). */
  logTail?: number | undefined;
  /** spec.activeDeadlineSeconds (lib/pod/active-deadline.ts findActiveDeadline): at `atMs` the wait fails with `error`. */
  activeDeadline?: { atMs: number; error: PodrunError } | undefined;
  /** The pod directory, where a container that exits finds its termination message (termination-log.ts). */
  podDir?: string;
}

export interface PodReady {
  /** Number of app containers and sidecars, all ready. */
  containers: number;
  elapsedMs: number;
}

const DEFAULT_STATUS_INTERVAL_MS = 1000;

/** Resolves when every app container and sidecar is ready; rejects with a PodrunError naming the containers. */
export async function waitForPodReady(options: WaitForPodReadyOptions): Promise<PodReady> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const prober = new Prober({
    ...options,
    untilStarted: options.untilStarted === true,
    clock,
    statusIntervalMs: options.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS,
  });
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);
  const onAbort = () => prober.finish({ kind: "interrupted" });
  signal?.addEventListener("abort", onAbort, { once: true });
  endAtLimits(prober, options, clock);
  prober.start();
  const result = await prober.settled;
  await prober.idle();
  signal?.removeEventListener("abort", onAbort);
  if (result.kind === "ready") return { containers: prober.trackers.length, elapsedMs: clock.now() - started };
  if (result.kind === "interrupted") throw abortError(signal!);
  throw await (result.kind === "timeout" ? notReadyError(prober, options) : failedError(prober, options, result));
}

// The time limit and the pod's active deadline, each ending the wait when it comes first.
function endAtLimits(prober: Prober, options: WaitForPodReadyOptions, clock: Clock): void {
  if (Number.isFinite(options.timeoutMs)) {
    const limitMs = options.endsAtMs === undefined ? options.timeoutMs : options.endsAtMs - clock.now();
    void clock.sleep(limitMs, prober.signal).then(() => prober.finish({ kind: "timeout" }));
  }
  const deadline = options.activeDeadline;
  if (deadline)
    void clock
      .sleep(deadline.atMs - clock.now(), prober.signal)
      .then(() => prober.finish({ kind: "failed", error: deadline.error }));
}

// The time limit: each container not ready and why, then their last log lines.
async function notReadyError(prober: Prober, options: WaitForPodReadyOptions): Promise<PodrunError> {
  const notReady = prober.trackers.filter((t) => !t.ready);
  options.onProgress?.(prober.progress(notReady, (t) => `Not ready: ${describeProgress(t)}`));
  const reasons = notReady.map((t) => `container ${t.name}: ${explainNotReady(t)}`).join("; ");
  const details = await collectLogs(options.runtime, notReady, options.logTail ?? 10);
  return new PodrunError(
    "ContainersNotReady",
    `not ready after ${formatWaitDuration(options.timeoutMs)}: ${reasons}`,
    details ? { details } : undefined,
  );
}

// A failure: the container it is about (its last log lines, its termination message), if any.
async function failedError(
  prober: Prober,
  options: WaitForPodReadyOptions,
  result: Extract<Outcome, { kind: "failed" }>,
): Promise<PodrunError> {
  const { error, logsOf } = result;
  if (logsOf)
    options.onProgress?.(
      prober.progress([logsOf], (t) =>
        error.reason === "StartupProbeFailed"
          ? "Failed: startup probe"
          : `Failed: exited with code ${t.state?.exitCode ?? "?"}`,
      ),
    );
  const details = logsOf ? await collectLogs(options.runtime, [logsOf], options.logTail ?? 10) : undefined;
  const message = await describeExit(options, result, details);
  return new PodrunError(error.reason, `${error.message}${message.line}`, {
    cause: error.cause,
    details: message.details,
  });
}

// A container that exited for good: its termination message, as a failed init container's.
function describeExit(
  options: WaitForPodReadyOptions,
  result: Extract<Outcome, { kind: "failed" }>,
  details: string | undefined,
): Promise<{ line: string; details?: string }> {
  const t = result.logsOf;
  const spec = [...(options.pod.spec!.initContainers ?? []), ...options.pod.spec!.containers].find(
    (c) => c.name === t?.name,
  );
  if (result.error.reason !== "ContainerTerminated" || !t?.state || !spec)
    return Promise.resolve({ line: "", details });
  return describeTerminationMessage(options.runtime, {
    podDir: options.podDir,
    container: spec,
    id: t.id,
    exitCode: t.state.exitCode,
    details,
  });
}

async function collectLogs(
  runtime: Pick<ContainerRuntime, "logs">,
  trackers: readonly ContainerTracker[],
  tail: number,
): Promise<string | undefined> {
  const blocks = await Promise.all(
    trackers.map(async (t) => {
      // Logs that cannot be read are shown as none: the wait's own failure is the message.
      const text = (await runtime.logs(t.id, { tail }).catch(() => "")).trimEnd();
      if (!text) return `container ${t.name} has written no log lines`;
      const lines = text.split("\n").map((line) => `    ${escapeControlCharacters(line)}`);
      return `last log lines of container ${t.name}:\n${lines.join("\n")}`;
    }),
  );
  return blocks.length > 0 ? blocks.join("\n") : undefined;
}
