import type { Container } from "kubernetes-types/core/v1.js";
import { formatHumanDuration } from "../output/human-duration.js";
import { containerProbes, type ProbeResult, type ProbeSpec } from "../probes/probe-spec.js";
import { countProbeResult, initialThresholdState, type ThresholdState } from "../probes/thresholds.js";
import type { ContainerState } from "../runtime/types.js";
import { plural } from "../output/plural.js";

// What podrun knows about one app container while it waits for the pod to be Ready, and how each
// observation changes it: the engine's state (running, exited, restarted) and each probe
// attempt. The kubelet's rules: the startup probe first, then readiness; no probe means ready
// once running; a restart starts both over. Pure: wait-ready.ts does the I/O and the timing.

export type RestartPolicy = "Always" | "OnFailure" | "Never";

export interface ContainerTracker {
  name: string;
  id: string;
  startupProbe?: ProbeSpec;
  readinessProbe?: ProbeSpec;
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
  /** Earliest time of the next probe attempt. */
  nextProbeAt: number;
  /** The last failed attempt's output, until an attempt succeeds. */
  lastFailure?: string;
  ready: boolean;
}

export function createTracker(name: string, id: string, container: Container): ContainerTracker {
  const probes = containerProbes(container);
  return {
    name,
    id,
    startupProbe: probes.startup,
    readinessProbe: probes.readiness,
    running: false,
    startedAtMs: 0,
    startupPassed: probes.startup === undefined,
    startup: initialThresholdState("Startup"),
    readiness: initialThresholdState("Readiness"),
    nextProbeAt: 0,
    ready: false,
  };
}

/** The probe to run next: startup until it passed, then readiness (undefined: none to run). */
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
    t.nextProbeAt = 0;
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

/** Counts one attempt of `probe`; says whether the startup probe just failed for good. */
export function recordAttempt(t: ContainerTracker, probe: ProbeSpec, result: ProbeResult): { startupFailed: boolean } {
  const outcome = result.result === "success" || result.result === "warning" ? "success" : "failure";
  if (outcome === "failure") t.lastFailure = result.output;
  else delete t.lastFailure;
  if (probe.type === "Startup") {
    t.startup = countProbeResult(t.startup, outcome, probe);
    if (t.startup.verdict === "success") {
      t.startupPassed = true;
      t.nextProbeAt = 0; // readiness is probed at once, as the kubelet's manual trigger does
      t.ready = t.readinessProbe === undefined;
    }
    return { startupFailed: t.startup.verdict === "failure" };
  }
  t.readiness = countProbeResult(t.readiness, outcome, probe);
  t.ready = t.readiness.verdict === "success";
  return { startupFailed: false };
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
  if (threshold.last === "failure") return `${probe.type} probe failed: ${toOneLine(t.lastFailure ?? "")} (${count})`;
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

const MAX_REASON_CHARS = 200;

function toOneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_REASON_CHARS ? `${line.slice(0, MAX_REASON_CHARS - 3)}...` : line;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
