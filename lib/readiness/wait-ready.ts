import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../errors.js";
import type { EventRecorder } from "../events/recorder.js";
import { toInvolvedObject } from "../events/types.js";
import { escapeControlCharacters } from "../output/terminal-text.js";
import type { ProbeResult, ProbeSpec } from "../probes/probe-spec.js";
import { GRPC_UNSUPPORTED, runProbe, type ProbeTarget } from "../probes/run-probe.js";
import type { ContainerRuntime, ContainerState } from "../runtime/types.js";
import type { PodIdentity } from "../pod/identity.js";
import {
  createTracker,
  currentProbe,
  describeProgress,
  explainNotReady,
  explainTermination,
  formatWaitDuration,
  observeState,
  recordAttempt,
  type ContainerTracker,
  type RestartPolicy,
} from "./readiness-tracker.js";
import type { StartedPod } from "../pod/start/start-pod.js";
import { systemClock, type Clock } from "./wait-clock.js";
import { describeTerminationMessage } from "../pod/status/termination-message.js";
import { watchLiveness, type LivenessOptions } from "./liveness.js";

// `up --wait`: the kubelet's probe workers for one pod, until every app container and sidecar is
// Ready (a sidecar counts towards the pod's readiness as an app container does).
// Each container has a worker that runs its startup probe, then its readiness probe, every
// periodSeconds once initialDelaySeconds have passed since it started; one watcher reads the
// containers' states from the engine every second, so that an exit (or a restart by the engine)
// is seen between probes. The wait ends when all are ready at once, when a container can never
// be ready (it exited for good, or failed its startup probe), at the time limit, or on Ctrl-C.

export interface ContainerProgress {
  name: string;
  /** A short phrase for a status line: "Waiting for readiness (1/3)", "Ready", "Restarting (…)". */
  state: string;
  ready: boolean;
  failed: boolean;
}

export interface WaitForPodReadyOptions {
  runtime: Pick<ContainerRuntime, "inspectContainers" | "execInContainer" | "logs">;
  recorder: Pick<EventRecorder, "event">;
  /** The validated, defaulted pod. */
  pod: Pod;
  identity: PodIdentity;
  /** As startPod returned them; init containers have completed and are skipped. */
  containers: StartedPod["containers"];
  /** The pod's IP address; "" when the engine gives none; 127.0.0.1 with hostNetwork. */
  podIP: string;
  /** The time limit; Infinity for none (the probes' own thresholds end the wait). */
  timeoutMs: number;
  /**
   * Only until each container has started: running and past its startup probe, readiness not
   * asked (a sidecar before the next init container). An exit ends the wait as a failure.
   */
  untilStarted?: boolean;
  /** Aborting it ends the wait with WaitInterruptedError (the containers are left as they are). */
  signal?: AbortSignal;
  /** Liveness probes and the restarts they cause (lib/readiness/liveness.ts); absent: not probed. */
  liveness?: LivenessOptions;
  /** Called with every container's state whenever one changes. */
  onProgress?: (containers: readonly ContainerProgress[]) => void;
  clock?: Clock;
  /** How often the engine is asked for the containers' states (default 1 s). */
  statusIntervalMs?: number;
  /** Log lines shown for each container that is not ready when the wait fails (default 10). */
  logTail?: number;
  /** spec.activeDeadlineSeconds (active-deadline.ts findActiveDeadline): at `atMs` the wait fails with `error`. */
  activeDeadline?: { atMs: number; error: PodrunError } | undefined;
  /** The pod directory, where a container that exits finds its termination message (termination-log.ts). */
  podDir?: string;
}

export interface PodReady {
  /** Number of app containers and sidecars, all ready. */
  containers: number;
  elapsedMs: number;
}

/** The wait was interrupted (Ctrl-C): nothing was changed. */
export class WaitInterruptedError extends Error {
  override readonly name = "WaitInterruptedError";
}

/** Events carry at most this much of a probe's output (the kubelet keeps up to 10 KiB). */
export const MAX_EVENT_OUTPUT_CHARS = 1024;
const DEFAULT_STATUS_INTERVAL_MS = 1000;
// An engine that fails this many status reads in a row is not coming back during this wait.
const MAX_STATUS_FAILURES = 3;

type Outcome =
  | { kind: "ready" }
  | { kind: "timeout" }
  | { kind: "interrupted" }
  | { kind: "failed"; error: PodrunError; logsOf?: ContainerTracker };

/** Resolves when every app container and sidecar is ready; rejects with a PodrunError naming the containers. */
export async function waitForPodReady(options: WaitForPodReadyOptions): Promise<PodReady> {
  const { runtime, recorder, identity } = options;
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const spec = options.pod.spec!;
  const specs = new Map([...(spec.initContainers ?? []), ...spec.containers].map((c) => [c.name, c]));
  const podPolicy = (spec.restartPolicy ?? "Always") as RestartPolicy;
  const sidecars = new Set(options.containers.filter((c) => c.kind === "sidecar").map((c) => c.name));
  // Sidecars restart whatever the pod's policy (the kubelet's rule).
  const policyOf = (t: ContainerTracker): RestartPolicy => (sidecars.has(t.name) ? "Always" : podPolicy);
  const objectOf = (name: string) => toInvolvedObject(identity, { name, init: sidecars.has(name) });
  const stop = new AbortController();
  const asWaited = (container: Container) =>
    options.untilStarted ? { ...container, readinessProbe: undefined } : container;
  const trackers = options.containers
    .filter((c) => c.kind !== "init")
    .map((c) =>
      createTracker(
        c.name,
        c.id,
        withoutGrpcProbes(asWaited(specs.get(c.name) ?? { name: c.name }), (type) => warnGrpc(c.name, type)),
      ),
    );
  const wakers = new Map<ContainerTracker, () => void>();

  let outcome: Outcome | undefined;
  let settle!: (value: Outcome) => void;
  const settled = new Promise<Outcome>((resolve) => (settle = resolve));
  const finish = (value: Outcome) => {
    if (outcome) return;
    outcome = value;
    stop.abort();
    for (const wake of wakers.values()) wake();
    settle(value);
  };

  function warnGrpc(name: string, type: string) {
    recorder.event(objectOf(name), "Warning", "ProbeWarning", `${type} probe warning: ${GRPC_UNSUPPORTED}`);
  }

  let lastProgress = "";
  const report = () => {
    if (outcome && outcome.kind !== "ready") return;
    const progress = trackers.map((t) => ({ name: t.name, state: describeProgress(t), ready: t.ready, failed: false }));
    const key = JSON.stringify(progress);
    if (key !== lastProgress) {
      lastProgress = key;
      options.onProgress?.(progress);
    }
    if (trackers.every((t) => t.ready)) finish({ kind: "ready" });
  };

  // The last word on the containers that end the wait unready, for a live status view.
  const reportFinal = (failed: readonly ContainerTracker[], stateOf: (t: ContainerTracker) => string) => {
    options.onProgress?.(
      trackers.map((t) =>
        failed.includes(t)
          ? { name: t.name, state: stateOf(t), ready: false, failed: true }
          : { name: t.name, state: describeProgress(t), ready: t.ready, failed: false },
      ),
    );
  };

  // Resolves after `ms` or when the tracker's state changes, whichever comes first.
  const pause = async (t: ContainerTracker, ms: number) => {
    if (stop.signal.aborted) return;
    const woken = new Promise<void>((resolve) => wakers.set(t, resolve));
    const timer = new AbortController();
    const abortTimer = () => timer.abort();
    stop.signal.addEventListener("abort", abortTimer, { once: true });
    await Promise.race([woken, ...(Number.isFinite(ms) ? [clock.sleep(ms, timer.signal)] : [])]);
    timer.abort();
    stop.signal.removeEventListener("abort", abortTimer);
  };

  const target = (t: ContainerTracker): ProbeTarget => ({
    runtime,
    containerId: t.id,
    resolveAddress: (port) => resolveProbeAddress(options.podIP, options.pod, port),
    signal: stop.signal,
  });

  const probeWorker = async (t: ContainerTracker) => {
    while (!outcome) {
      const probe = currentProbe(t);
      if (!t.running || !probe) {
        await pause(t, Infinity);
        continue;
      }
      const now = clock.now();
      const due = Math.max(t.startedAtMs + probe.initialDelayMs, t.nextProbeAt);
      if (now < due) {
        await pause(t, due - now);
        continue;
      }
      t.nextProbeAt = now + probe.periodMs;
      const run = t.run;
      const result = await runProbe(probe, target(t));
      // A result about a run that has since ended (or a wait that has) counts for nothing.
      if (outcome || t.run !== run) continue;
      recordProbeEvent(t, probe, result);
      const { startupFailed } = recordAttempt(t, probe, result);
      if (startupFailed) {
        const message = `container ${t.name} failed its startup probe ${probe.failureThreshold} times in a row (the kubelet would kill it): Startup probe failed: ${oneLine(t.lastFailure ?? "")}`;
        finish({ kind: "failed", error: new PodrunError("StartupProbeFailed", message), logsOf: t });
        return;
      }
      report();
    }
  };

  const recordProbeEvent = (t: ContainerTracker, probe: ProbeSpec, result: ProbeResult) => {
    const object = objectOf(t.name);
    const output = clipOutput(result.output);
    if (result.result === "failure")
      recorder.event(object, "Warning", "Unhealthy", `${probe.type} probe failed: ${output}`);
    else if (result.result === "unknown")
      recorder.event(object, "Warning", "Unhealthy", `${probe.type} probe errored: ${output}`);
    else if (result.result === "warning")
      recorder.event(object, "Warning", "ProbeWarning", `${probe.type} probe warning: ${output}`);
  };

  const statusWatcher = async () => {
    let failures = 0;
    while (!outcome) {
      let states: ContainerState[] | undefined;
      try {
        states = await runtime.inspectContainers(trackers.map((t) => t.id));
        failures = 0;
      } catch (error) {
        if (++failures >= MAX_STATUS_FAILURES) {
          const message = `cannot read the containers' states: ${(error as Error).message.split("\n")[0]}`;
          finish({ kind: "failed", error: new PodrunError("RuntimeUnavailable", message, { cause: error }) });
          return;
        }
      }
      if (states && !outcome) observe(states);
      await clock.sleep(options.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS, stop.signal);
    }
  };

  const observe = (states: readonly ContainerState[]) => {
    for (const t of trackers) {
      const state = states.find((s) => s.id === t.id || s.id.startsWith(t.id) || t.id.startsWith(s.id));
      if (liveness?.owns(t, state)) continue;
      if (!state) {
        finish({
          kind: "failed",
          error: new PodrunError(
            "ContainerTerminated",
            `container ${t.name} was removed while podrun waited for it to be ready`,
          ),
        });
        return;
      }
      observeState(t, state, clock.now());
      const terminated = options.untilStarted ? explainEarlyExit(t) : explainTermination(t, policyOf(t));
      if (terminated) {
        finish({ kind: "failed", error: new PodrunError("ContainerTerminated", terminated), logsOf: t });
        return;
      }
      wakers.get(t)?.(); // its worker looks again: it may have started, or restarted
    }
    report();
  };

  const liveness =
    options.liveness && !options.untilStarted && !options.signal?.aborted
      ? watchLiveness({
          ...options.liveness,
          recorder,
          pod: options.pod,
          identity,
          trackers,
          specOf: (name) => specs.get(name),
          objectOf,
          policyOf,
          target,
          podIP: options.podIP,
          clock,
          signal: stop.signal,
          pollMs: options.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS,
          recordEvent: recordProbeEvent,
          fail: (error) => finish({ kind: "failed", error }),
          wake: (t) => wakers.get(t)?.(),
        })
      : undefined;

  if (options.signal?.aborted) throw new WaitInterruptedError("interrupted while waiting for the pod to be ready");
  const onAbort = () => finish({ kind: "interrupted" });
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (Number.isFinite(options.timeoutMs))
    void clock.sleep(options.timeoutMs, stop.signal).then(() => finish({ kind: "timeout" }));
  const deadline = options.activeDeadline;
  if (deadline)
    void clock
      .sleep(deadline.atMs - clock.now(), stop.signal)
      .then(() => finish({ kind: "failed", error: deadline.error }));
  void statusWatcher();
  for (const t of trackers) void probeWorker(t);
  if (trackers.length === 0) finish({ kind: "ready" });

  const result = await settled;
  await liveness?.idle();
  options.signal?.removeEventListener("abort", onAbort);
  const elapsedMs = clock.now() - started;
  switch (result.kind) {
    case "ready":
      return { containers: trackers.length, elapsedMs };
    case "interrupted":
      throw new WaitInterruptedError("interrupted while waiting for the pod to be ready");
    case "timeout": {
      const notReady = trackers.filter((t) => !t.ready);
      reportFinal(notReady, (t) => `Not ready: ${describeProgress(t)}`);
      const reasons = notReady.map((t) => `container ${t.name}: ${explainNotReady(t)}`).join("; ");
      const details = await collectLogs(runtime, notReady, options.logTail ?? 10);
      throw new PodrunError(
        "ContainersNotReady",
        `not ready after ${formatWaitDuration(options.timeoutMs)}: ${reasons}`,
        details ? { details } : undefined,
      );
    }
    case "failed": {
      if (result.logsOf)
        reportFinal([result.logsOf], (t) =>
          result.error.reason === "StartupProbeFailed"
            ? "Failed: startup probe"
            : `Failed: exited with code ${t.state?.exitCode ?? "?"}`,
        );
      const details = result.logsOf ? await collectLogs(runtime, [result.logsOf], options.logTail ?? 10) : undefined;
      const message = await describeExit(options, result, details);
      throw new PodrunError(result.error.reason, `${result.error.message}${message.line}`, {
        cause: result.error.cause,
        details: message.details,
      });
    }
  }
}

// A container that exited for good: its termination message, as a failed init container's.
function describeExit(
  options: WaitForPodReadyOptions,
  result: Extract<Outcome, { kind: "failed" }>,
  details: string | undefined,
): Promise<{ line: string; details?: string }> {
  const t = result.logsOf;
  const spec = podContainers(options.pod).find((c) => c.name === t?.name);
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

function podContainers(pod: Pod): Container[] {
  return [...(pod.spec!.initContainers ?? []), ...pod.spec!.containers];
}

/** The pod's IP address as the engine reports it: the sandbox's, else an app container's ("" if none). */
export async function findPodIP(
  runtime: Pick<ContainerRuntime, "inspectContainers">,
  started: Pick<StartedPod, "sandboxId" | "containers">,
  hostNetwork: boolean,
): Promise<string> {
  if (hostNetwork) return "127.0.0.1";
  const ids = [
    ...(started.sandboxId ? [started.sandboxId] : []),
    ...started.containers.filter((c) => c.kind !== "init").map((c) => c.id),
  ];
  const states = await runtime.inspectContainers(ids).catch(() => []);
  return states.find((s) => s.ip)?.ip ?? "";
}

/**
 * Where the host reaches a container port of the pod: the pod IP, or else the port's hostPort on
 * the loopback (an engine without routable pod addresses, such as rootless podman).
 */
export function resolveProbeAddress(podIP: string, pod: Pod, port: number): { host: string; port: number } | undefined {
  if (podIP) return { host: podIP, port };
  const published = [...(pod.spec!.initContainers ?? []), ...pod.spec!.containers]
    .flatMap((c) => c.ports ?? [])
    .find((p) => p.containerPort === port && p.hostPort && (p.protocol ?? "TCP") === "TCP");
  if (!published?.hostPort) return undefined;
  const host = published.hostIP && published.hostIP !== "0.0.0.0" ? published.hostIP : "127.0.0.1";
  return { host, port: published.hostPort };
}

// A container that exits before it has started (a sidecar awaited by the next init container):
// the engine restarts it, but the pod would sit in Init:CrashLoopBackOff; podrun fails instead.
function explainEarlyExit(t: ContainerTracker): string | undefined {
  const state = t.state;
  if (
    !state ||
    t.running ||
    !(
      state.status === "exited" ||
      state.status === "stopped" ||
      state.status === "restarting" ||
      state.status === "dead"
    )
  )
    return undefined;
  return `container ${t.name} exited with code ${state.exitCode} before its startup probe passed`;
}

// gRPC probes are not run: one ProbeWarning, and the container is judged without them.
function withoutGrpcProbes(container: Container, warn: (type: "Readiness" | "Startup") => void): Container {
  const copy = { ...container };
  if (copy.readinessProbe?.grpc) {
    warn("Readiness");
    delete copy.readinessProbe;
  }
  if (copy.startupProbe?.grpc) {
    warn("Startup");
    delete copy.startupProbe;
  }
  return copy;
}

async function collectLogs(
  runtime: Pick<ContainerRuntime, "logs">,
  trackers: readonly ContainerTracker[],
  tail: number,
): Promise<string | undefined> {
  const blocks = await Promise.all(
    trackers.map(async (t) => {
      const text = (await runtime.logs(t.id, { tail }).catch(() => "")).trimEnd();
      return text
        ? `last log lines of container ${t.name}:\n${text
            .split("\n")
            .map((line) => `    ${escapeControlCharacters(line)}`)
            .join("\n")}`
        : `container ${t.name} has written no log lines`;
    }),
  );
  return blocks.length > 0 ? blocks.join("\n") : undefined;
}

/** A probe's output for an event: no terminal control characters, and not too long. */
export function clipOutput(text: string): string {
  const clean = text
    .trim()
    .split("\n")
    .map((line) => escapeControlCharacters(line.replace(/\r$/, "")))
    .join("\n");
  return clean.length > MAX_EVENT_OUTPUT_CHARS ? `${clean.slice(0, MAX_EVENT_OUTPUT_CHARS)}... (truncated)` : clean;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
