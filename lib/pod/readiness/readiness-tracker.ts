import type { Container } from "kubernetes-types/core/v1.js";
import { formatHumanDuration } from "../../text/human-duration.js";
import { containerProbes, normalizeProbe, type ProbeResult, type ProbeSpec } from "../../probes/probe-spec.js";
import { countProbeResult, initialThresholdState, type ThresholdState } from "../../probes/thresholds.js";
import type { ContainerState } from "../../runtime/types.js";
import { plural } from "../../text/plural.js";
import { oneLine } from "./probe-output.js";

// What podrun knows about one app container while it waits for the pod to be Ready, and how each
// observation changes it: the engine's state (running, exited, restarted) and each probe
// attempt. The kubelet's rules: the startup probe first, then readiness and liveness; no probe
// means ready once running; a restart starts every probe over. Pure: prober.ts does the I/O and
// probe-worker.ts the timing.

export type RestartPolicy = "Always" | "OnFailure" | "Never";

export interface ContainerTracker {
  name: string;
  id: string;
  startupProbe?: ProbeSpec;
  readinessProbe?: ProbeSpec;
  livenessProbe?: ProbeSpec;
  /** The engine's last answer about it. */
  state?: ContainerState;
  running: boolean;
  /** When the current run started (ms), from the engine's StartedAt. */
  startedAtMs: number;
  /** Restart count and start time of the current run: a change means it restarted. */
  run?: string;
  startupPassed: boolean;
  startup: ThresholdState;
  readiness: ThresholdState;
  liveness: ThresholdState;
  /** The last failed attempt's output, until an attempt succeeds. */
  lastFailure?: string;
  ready: boolean;
}

/** A tracker for the container; its livenessProbe is probed only when given (the caller leaves it out otherwise). */
export function createTracker(name: string, id: string, container: Container): ContainerTracker {
  const probes = containerProbes(container);
  return {
    name,
    id,
    startupProbe: probes.startup,
    readinessProbe: probes.readiness,
    ...(container.livenessProbe
      ? { livenessProbe: normalizeProbe("Liveness", container.livenessProbe, container) }
      : {}),
    running: false,
    startedAtMs: 0,
    startupPassed: probes.startup === undefined,
    startup: initialThresholdState("Startup"),
    readiness: initialThresholdState("Readiness"),
    liveness: initialThresholdState("Liveness"),
    ready: false,
  };
}

/** The probe that decides readiness now: startup until it passed, then readiness (undefined: none). */
export function currentProbe(t: ContainerTracker): ProbeSpec | undefined {
  return t.startupPassed ? t.readinessProbe : t.startupProbe;
}

/** Takes in the engine's state; says whether it is a new run of the container (a restart). */
export function observeState(t: ContainerTracker, state: ContainerState, nowMs: number): { restarted: boolean } {
  const run = `${state.restartCount}|${state.startedAt}`;
  const restarted = t.run !== undefined && t.run !== run;
  if (restarted) {
    // A new run proves nothing yet: the kubelet starts both probes over for a new container.
    t.startupPassed = t.startupProbe === undefined;
    t.startup = initialThresholdState("Startup");
    t.readiness = initialThresholdState("Readiness");
    t.liveness = initialThresholdState("Liveness");
    t.ready = false;
    delete t.lastFailure;
  }
  t.run = run;
  t.state = state;
  t.running = state.status ? state.status === "running" : state.running;
  if (t.running && (restarted || t.startedAtMs === 0)) t.startedAtMs = parseTime(state.startedAt) ?? nowMs;
  if (!t.running) t.ready = false;
  else if (currentProbe(t) === undefined) t.ready = true; // no probe: ready once running
  return { restarted };
}

/**
 * What one attempt means for the container: startup or readiness counted (an attempt that could
 * not run counts as a failure), liveness counted unless it could not run (the kubelet's worker
 * throws that away). The effect is the prober's to act on.
 */
export type AttemptEffect = "none" | "startupPassed" | "startupFailed" | "kill";

export function recordAttempt(t: ContainerTracker, probe: ProbeSpec, result: ProbeResult): AttemptEffect {
  if (probe.type === "Liveness") return recordLiveness(t, probe, result);
  const outcome = result.result === "success" || result.result === "warning" ? "success" : "failure";
  if (outcome === "failure") t.lastFailure = result.output;
  else delete t.lastFailure;
  if (probe.type === "Startup") {
    t.startup = countProbeResult(t.startup, outcome, probe);
    if (t.startup.verdict === "failure") return "startupFailed";
    if (t.startup.verdict !== "success") return "none";
    t.startupPassed = true;
    t.ready = t.readinessProbe === undefined;
    return "startupPassed";
  }
  t.readiness = countProbeResult(t.readiness, outcome, probe);
  t.ready = t.readiness.verdict === "success";
  return "none";
}

function recordLiveness(t: ContainerTracker, probe: ProbeSpec, result: ProbeResult): AttemptEffect {
  if (result.result === "unknown") return "none";
  t.liveness = countProbeResult(t.liveness, result.result === "failure" ? "failure" : "success", probe);
  if (t.liveness.verdict !== "failure") return "none";
  t.liveness = initialThresholdState("Liveness");
  return "kill";
}

/** The tracker now follows a new container (`id`): a new run, with every probe starting over. */
export function followNewContainer(t: ContainerTracker, id: string): void {
  t.id = id;
  delete t.run;
  delete t.state;
  delete t.lastFailure;
  t.running = false;
  t.startedAtMs = 0;
  t.startupPassed = t.startupProbe === undefined;
  t.startup = initialThresholdState("Startup");
  t.readiness = initialThresholdState("Readiness");
  t.liveness = initialThresholdState("Liveness");
  t.ready = false;
}

/**
 * Why an exited container can never become ready, or undefined while it may (it runs, or the
 * engine restarts it under the pod's restartPolicy).
 */
export function explainTermination(t: ContainerTracker, policy: RestartPolicy): string | undefined {
  const state = t.state;
  if (!state || !isTerminated(state)) return undefined;
  const restarts = policy === "Always" || (policy === "OnFailure" && state.exitCode !== 0);
  return restarts
    ? undefined
    : `container ${t.name} exited with code ${state.exitCode} and restartPolicy ${policy} does not restart it`;
}

/** One short phrase for a live status line. */
export function describeProgress(t: ContainerTracker): string {
  if (t.ready) return "Ready";
  const state = t.state;
  if (!state) return "Starting";
  if (!t.running) {
    if (isTerminated(state) || state.status === "restarting")
      return `Restarting (exit code ${state.exitCode}, ${plural(state.restartCount, "restart")})`;
    return capitalize(state.status || "not running");
  }
  if (!t.startupPassed) {
    const failures =
      t.startup.last === "failure" ? ` (${t.startup.run}/${t.startupProbe!.failureThreshold} failures)` : "";
    return `Waiting for startup probe${failures}`;
  }
  const successes = t.readiness.last === "success" ? t.readiness.run : 0;
  return `Waiting for readiness (${successes}/${t.readinessProbe?.successThreshold ?? 1})`;
}

/** Why the container is not ready, for the timeout's message (one line). */
export function explainNotReady(t: ContainerTracker): string {
  const state = t.state;
  if (!state) return "the engine gave no state for it";
  if (!t.running) {
    const restarts = state.restartCount > 0 ? `, ${plural(state.restartCount, "restart")}` : "";
    return `not running (${state.status || "unknown"}, exit code ${state.exitCode}${restarts})`;
  }
  const probe = currentProbe(t);
  if (!probe) return "running"; // about to be marked ready
  const threshold = t.startupPassed ? t.readiness : t.startup;
  if (threshold.last === undefined) {
    const delay = probe.initialDelayMs > 0 ? ` (initialDelaySeconds: ${probe.initialDelayMs / 1000})` : "";
    return `${probe.type} probe not run yet${delay}`;
  }
  const count =
    probe.type === "Startup"
      ? `${threshold.last === "failure" ? threshold.run : 0}/${probe.failureThreshold} failures`
      : `${threshold.last === "success" ? threshold.run : 0}/${probe.successThreshold} successes`;
  if (threshold.last === "failure") return `${probe.type} probe failed: ${oneLine(t.lastFailure ?? "")} (${count})`;
  return `${probe.type} probe passing (${count})`;
}

/** `90s`, `5m`: how long, for messages. */
export function formatWaitDuration(ms: number): string {
  return formatHumanDuration(ms);
}

function isTerminated(state: ContainerState): boolean {
  return state.status === "exited" || state.status === "dead" || state.status === "stopped";
}

// The engine's StartedAt, at millisecond precision (they print nanoseconds).
function parseTime(text: string): number | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text.replace(/(\.\d{3})\d+/, "$1"));
  return Number.isNaN(ms) ? undefined : ms;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
