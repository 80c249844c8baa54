import type { ProbeResult, ProbeSpec } from "../../probes/probe-spec.js";
import { runProbe, type ProbeTarget } from "../../probes/run-probe.js";
import type { ContainerTracker } from "./readiness-tracker.js";
import type { Waker } from "./waker.js";
import type { Clock } from "./wait-clock.js";

// One probe of one container, as the kubelet's prober worker runs it (pkg/kubelet/prober/worker.go):
// the startup probe while the container runs and has not passed it; readiness and liveness once
// it has. An attempt is due initialDelaySeconds after the run started, then every periodSeconds;
// a new run (a restart) starts the schedule over. Each result goes to the prober (prober.ts),
// which says what it means; a result about a run that has since ended counts for nothing.

export interface ProbeWorker {
  tracker: ContainerTracker;
  probe: ProbeSpec;
  waker: Waker;
  /** The run this worker's schedule belongs to. */
  run?: string;
  /** Earliest time of the next attempt (0: as soon as the initial delay allows). */
  nextAt: number;
}

export interface WorkerContext {
  clock: Clock;
  /** Aborts when the wait ends. */
  signal: AbortSignal;
  /** How often a liveness worker whose container does not run (or has not started) looks again. */
  pollMs: number;
  target: (t: ContainerTracker) => ProbeTarget;
  /** Whether podrun is killing or replacing the container: nothing probes it meanwhile. */
  replacing: (t: ContainerTracker) => boolean;
  /** Takes one result in; the worker goes on once it resolves. */
  onResult: (worker: ProbeWorker, result: ProbeResult) => void | Promise<void>;
}

/** What the worker does next: an attempt now, or a pause of `ms` (Infinity: until woken). */
export type WorkerStep = { kind: "probe" } | { kind: "pause"; ms: number };

/** Whether the probe may run on the container as it is now (the startup probe gates the others). */
export function mayProbe(t: ContainerTracker, probe: ProbeSpec, replacing: boolean): boolean {
  if (!t.running || replacing) return false;
  return probe.type === "Startup" ? !t.startupPassed : t.startupPassed;
}

/**
 * The worker's next step at `now`. A startup or readiness worker that may not probe waits to be
 * woken (a status read, the startup probe passing); a liveness worker looks again every
 * min(periodSeconds, pollMs) as well.
 */
export function planStep(
  w: Pick<ProbeWorker, "tracker" | "probe" | "nextAt">,
  now: number,
  options: { replacing: boolean; pollMs: number },
): WorkerStep {
  const { tracker: t, probe } = w;
  if (!mayProbe(t, probe, options.replacing))
    return { kind: "pause", ms: probe.type === "Liveness" ? Math.min(probe.periodMs, options.pollMs) : Infinity };
  const due = Math.max(t.startedAtMs + probe.initialDelayMs, w.nextAt);
  return now < due ? { kind: "pause", ms: due - now } : { kind: "probe" };
}

/** Runs the worker until the wait ends. */
export async function runProbeWorker(context: WorkerContext, w: ProbeWorker): Promise<void> {
  const { clock, signal } = context;
  while (!signal.aborted) {
    const t = w.tracker;
    if (t.run !== w.run) {
      w.run = t.run;
      w.nextAt = 0;
    }
    const step = planStep(w, clock.now(), { replacing: context.replacing(t), pollMs: context.pollMs });
    if (step.kind === "pause") {
      await w.waker.sleep(step.ms);
      continue;
    }
    w.nextAt = clock.now() + w.probe.periodMs;
    const run = t.run;
    const result = await runProbe(w.probe, context.target(t));
    if (signal.aborted || t.run !== run || context.replacing(t)) continue;
    await context.onResult(w, result);
  }
}
