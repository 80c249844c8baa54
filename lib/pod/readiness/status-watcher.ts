import { errorFirstLine, PodrunError } from "../../errors.js";
import type { ContainerRuntime, ContainerState } from "../../runtime/types.js";
import { explainTermination, observeState, type ContainerTracker, type RestartPolicy } from "./readiness-tracker.js";
import type { Outcome } from "./prober-types.js";
import type { Clock } from "./wait-clock.js";

// The prober's status watcher: the containers' states read from the engine every second, so that
// an exit (or a restart by the engine) is seen between probes. Each state goes into its tracker;
// an exit that is final (or any exit, while waiting only for the start) ends the wait.

export interface StatusContext {
  runtime: Pick<ContainerRuntime, "inspectContainers">;
  trackers: readonly ContainerTracker[];
  clock: Clock;
  /** Aborts when the wait ends. */
  signal: AbortSignal;
  intervalMs: number;
  untilStarted: boolean;
  policyOf: (t: ContainerTracker) => RestartPolicy;
  /** Whether the liveness restarter is handling the container (its state is left alone). */
  owns: (t: ContainerTracker, state: ContainerState | undefined) => boolean;
  /** The tracker took a state in: its startup and readiness workers look again. */
  wake: (t: ContainerTracker) => void;
  finish: (outcome: Outcome) => void;
  report: () => void;
}

// An engine that fails this many status reads in a row is not coming back during this wait.
const MAX_STATUS_FAILURES = 3;

export async function watchStatus(context: StatusContext): Promise<void> {
  const { signal } = context;
  let failures = 0;
  while (!signal.aborted) {
    let states: ContainerState[] | undefined;
    try {
      states = await context.runtime.inspectContainers(context.trackers.map((t) => t.id));
      failures = 0;
    } catch (error) {
      if (++failures >= MAX_STATUS_FAILURES) {
        const message = `cannot read the containers' states: ${errorFirstLine(error)}`;
        context.finish({ kind: "failed", error: new PodrunError("RuntimeUnavailable", message, { cause: error }) });
        return;
      }
    }
    if (states && !signal.aborted) observeAll(context, states);
    await context.clock.sleep(context.intervalMs, signal);
  }
}

function observeAll(context: StatusContext, states: readonly ContainerState[]): void {
  for (const t of context.trackers) {
    const state = states.find((s) => s.id === t.id || s.id.startsWith(t.id) || t.id.startsWith(s.id));
    if (context.owns(t, state)) continue;
    const ended = judgeState(context, t, state);
    if (ended) {
      context.finish(ended);
      return;
    }
    context.wake(t); // its workers look again: it may have started, or restarted
  }
  context.report();
}

/** Takes the engine's state in; the wait's failure when it is one. */
export function judgeState(
  context: Pick<StatusContext, "clock" | "untilStarted" | "policyOf">,
  t: ContainerTracker,
  state: ContainerState | undefined,
): Outcome | undefined {
  if (!state) {
    const message = `container ${t.name} was removed while podrun waited for it to be ready`;
    return { kind: "failed", error: new PodrunError("ContainerTerminated", message) };
  }
  observeState(t, state, context.clock.now());
  const terminated = context.untilStarted ? explainEarlyExit(t) : explainTermination(t, context.policyOf(t));
  if (!terminated) return undefined;
  return { kind: "failed", error: new PodrunError("ContainerTerminated", terminated), logsOf: t };
}

const EXITED = new Set(["exited", "stopped", "restarting", "dead"]);

// A container that exits before it has started (a sidecar awaited by the next init container):
// the engine restarts it, but the pod would sit in Init:CrashLoopBackOff; podrun fails instead.
function explainEarlyExit(t: ContainerTracker): string | undefined {
  const state = t.state;
  if (!state || t.running || !EXITED.has(state.status)) return undefined;
  return `container ${t.name} exited with code ${state.exitCode} before its startup probe passed`;
}
