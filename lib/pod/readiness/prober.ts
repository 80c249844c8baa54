import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { podDial } from "../pod-dial.js";
import { PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject, type InvolvedObject } from "../../events/types.js";
import type { PodIdentity } from "../identity.js";
import type { ProbeResult, ProbeType } from "../../probes/probe-spec.js";
import { GRPC_UNSUPPORTED, type ProbeTarget } from "../../probes/run-probe.js";
import type { ContainerRuntime } from "../../runtime/types.js";
import { createLivenessRestarter, type LivenessOptions, type LivenessRestarter } from "./liveness.js";
import { resolveProbeAddress } from "./pod-address.js";
import { clipOutput, oneLine } from "./probe-output.js";
import { runProbeWorker, type ProbeWorker, type WorkerContext } from "./probe-worker.js";
import {
  createTracker,
  describeProgress,
  recordAttempt,
  type ContainerTracker,
  type RestartPolicy,
} from "./readiness-tracker.js";
import type { ContainerProgress, Outcome, StartedContainer } from "./prober-types.js";
import { watchStatus } from "./status-watcher.js";
import type { Clock } from "./wait-clock.js";
import { Waker } from "./waker.js";

// The kubelet's prober manager for one pod (pkg/kubelet/prober/prober_manager.go): one worker per
// probe of each app container and sidecar (probe-worker.ts: startup, readiness, liveness), and one
// status watcher reading the containers' states from the engine (status-watcher.ts). The prober
// folds what they report into each container's readiness (readiness-tracker.ts), the pod's, and
// the liveness kills (liveness.ts), and settles once with an Outcome, which wait-ready.ts words.

export interface ProberOptions {
  runtime: Pick<ContainerRuntime, "inspectContainers" | "execInContainer" | "logs" | "relay" | "dial">;
  recorder: Pick<EventRecorder, "event">;
  /** The validated, defaulted pod. */
  pod: Pod;
  identity: PodIdentity;
  /** As the start made them; init containers have completed and are skipped. */
  containers: readonly StartedContainer[];
  /** The pod's IP address; "" when the engine gives none; 127.0.0.1 with hostNetwork. */
  podIP: string;
  /** Only until each container has started: readiness and liveness are not probed, and an exit fails. */
  untilStarted: boolean;
  /** Liveness probes and the restarts they cause; absent: not probed. */
  liveness?: LivenessOptions | undefined;
  onProgress?: ((containers: readonly ContainerProgress[]) => void) | undefined;
  clock: Clock;
  /** How often the engine is asked for the containers' states. */
  statusIntervalMs: number;
}

/** One pod's probing: created (its gRPC warnings recorded), then started, then settled once. */
export class Prober {
  readonly trackers: readonly ContainerTracker[];
  /** Settles with the first outcome; every loop stops then. */
  readonly settled: Promise<Outcome>;
  private outcome: Outcome | undefined;
  private settle!: (outcome: Outcome) => void;
  private readonly stop = new AbortController();
  private readonly workers: ProbeWorker[] = [];
  private readonly specs: ReadonlyMap<string, Container>;
  private readonly sidecars: ReadonlySet<string>;
  private restarter: LivenessRestarter | undefined;
  private lastProgress = "";

  constructor(private readonly options: ProberOptions) {
    const spec = options.pod.spec!;
    this.specs = new Map([...(spec.initContainers ?? []), ...spec.containers].map((c) => [c.name, c]));
    this.sidecars = new Set(options.containers.filter((c) => c.kind === "sidecar").map((c) => c.name));
    this.settled = new Promise<Outcome>((resolve) => (this.settle = resolve));
    this.trackers = options.containers
      .filter((c) => c.kind !== "init")
      .map((c) => createTracker(c.name, c.id, this.probedAs(this.specs.get(c.name) ?? { name: c.name })));
  }

  /** Aborts when the probing ends. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  finish(outcome: Outcome): void {
    if (this.outcome) return;
    this.outcome = outcome;
    this.stop.abort();
    this.settle(outcome);
  }

  /** Starts the liveness restarter, the status watcher and one worker per probe. */
  start(): void {
    this.warnGrpcLiveness();
    if (this.trackers.some((t) => t.livenessProbe)) this.restarter = this.createRestarter();
    void watchStatus({
      runtime: this.options.runtime,
      trackers: this.trackers,
      clock: this.options.clock,
      signal: this.signal,
      intervalMs: this.options.statusIntervalMs,
      untilStarted: this.options.untilStarted,
      policyOf: (t) => this.policyOf(t),
      owns: (t, state) => this.restarter?.owns(t, state) ?? false,
      wake: (t) => this.wake(t, ["Startup", "Readiness"]),
      finish: (outcome) => this.finish(outcome),
      report: () => this.report(),
    });
    for (const t of this.trackers)
      for (const probe of [t.startupProbe, t.readinessProbe, t.livenessProbe])
        if (probe)
          this.workers.push({ tracker: t, probe, waker: new Waker(this.options.clock, this.signal), nextAt: 0 });
    const context = this.workerContext();
    for (const w of this.workers) void runProbeWorker(context, w);
    if (this.trackers.length === 0) this.finish({ kind: "ready" });
  }

  /** Resolves once no liveness kill or restart is under way. */
  async idle(): Promise<void> {
    await this.restarter?.idle();
  }

  /** Every container's progress; those in `failed` are marked failed, with `stateOf` as their phrase. */
  progress(failed: readonly ContainerTracker[] = [], stateOf = describeProgress): ContainerProgress[] {
    return this.trackers.map((t) =>
      failed.includes(t)
        ? { name: t.name, state: stateOf(t), ready: false, failed: true }
        : { name: t.name, state: describeProgress(t), ready: t.ready, failed: false },
    );
  }

  /** The event object of a container: a sidecar is named as the init container it is. */
  objectOf(name: string): InvolvedObject {
    return toInvolvedObject(this.options.identity, { name, init: this.sidecars.has(name) });
  }

  // Sidecars restart whatever the pod's policy (the kubelet's rule).
  private policyOf(t: ContainerTracker): RestartPolicy {
    return this.sidecars.has(t.name) ? "Always" : ((this.options.pod.spec!.restartPolicy ?? "Always") as RestartPolicy);
  }

  // The probes podrun runs: no readiness (nor liveness) while waiting only for the start, and no
  // gRPC probe: one ProbeWarning, and the container is judged without it.
  private probedAs(container: Container): Container {
    const { untilStarted, liveness } = this.options;
    const copy = { ...container };
    if (untilStarted) delete copy.readinessProbe;
    if (untilStarted || !liveness || copy.livenessProbe?.grpc) delete copy.livenessProbe;
    if (copy.readinessProbe?.grpc) {
      this.warnGrpc(container.name, "Readiness");
      delete copy.readinessProbe;
    }
    if (copy.startupProbe?.grpc) {
      this.warnGrpc(container.name, "Startup");
      delete copy.startupProbe;
    }
    return copy;
  }

  private warnGrpcLiveness(): void {
    if (!this.options.liveness || this.options.untilStarted) return;
    for (const t of this.trackers) if (this.specs.get(t.name)?.livenessProbe?.grpc) this.warnGrpc(t.name, "Liveness");
  }

  private warnGrpc(name: string, type: ProbeType): void {
    this.options.recorder.event(
      this.objectOf(name),
      "Warning",
      "ProbeWarning",
      `${type} probe warning: ${GRPC_UNSUPPORTED}`,
    );
  }

  private createRestarter(): LivenessRestarter {
    const { options } = this;
    return createLivenessRestarter({
      ...options.liveness!,
      recorder: options.recorder,
      pod: options.pod,
      identity: options.identity,
      specOf: (name) => this.specs.get(name),
      objectOf: (name) => this.objectOf(name),
      policyOf: (t) => this.policyOf(t),
      podIP: options.podIP,
      clock: options.clock,
      signal: this.signal,
      fail: (error) => this.finish({ kind: "failed", error }),
      wake: (t) => this.wake(t, ["Startup", "Readiness"]),
      wakeLiveness: (t) => this.wake(t, ["Liveness"]),
    });
  }

  private wake(t: ContainerTracker, types: readonly ProbeType[]): void {
    for (const w of this.workers) if (w.tracker === t && types.includes(w.probe.type)) w.waker.wake();
  }

  private workerContext(): WorkerContext {
    return {
      clock: this.options.clock,
      signal: this.signal,
      pollMs: this.options.statusIntervalMs,
      target: (t) => this.target(t),
      replacing: (t) => this.restarter?.replacing(t) ?? false,
      onResult: (w, result) => this.foldResult(w, result),
    };
  }

  private target(t: ContainerTracker): ProbeTarget {
    return {
      runtime: this.options.runtime,
      containerId: t.id,
      resolveAddress: (port) => resolveProbeAddress(this.options.podIP, this.options.pod, port),
      dial: podDial(this.options.runtime),
      signal: this.signal,
    };
  }

  // What one attempt means: an event for a failure, then the container's readiness, the end of
  // the wait (a startup probe failed for good), or a liveness kill.
  private foldResult(w: ProbeWorker, result: ProbeResult): Promise<void> | undefined {
    const { tracker: t, probe } = w;
    this.recordProbeEvent(t, probe.type, result);
    switch (recordAttempt(t, probe, result)) {
      case "kill":
        return this.restarter?.restart(t);
      case "startupFailed": {
        const message = `container ${t.name} failed its startup probe ${probe.failureThreshold} times in a row (the kubelet would kill it): Startup probe failed: ${oneLine(t.lastFailure ?? "")}`;
        this.finish({ kind: "failed", error: new PodrunError("StartupProbeFailed", message), logsOf: t });
        return undefined;
      }
      case "startupPassed":
        this.wake(t, ["Readiness"]); // readiness is probed at once, as the kubelet's manual trigger does
        break;
      case "none":
        if (probe.type === "Liveness") return undefined;
    }
    this.report();
    return undefined;
  }

  private recordProbeEvent(t: ContainerTracker, type: ProbeType, result: ProbeResult): void {
    const object = this.objectOf(t.name);
    const output = clipOutput(result.output);
    const { recorder } = this.options;
    if (result.result === "failure") recorder.event(object, "Warning", "Unhealthy", `${type} probe failed: ${output}`);
    else if (result.result === "unknown")
      recorder.event(object, "Warning", "Unhealthy", `${type} probe errored: ${output}`);
    else if (result.result === "warning")
      recorder.event(object, "Warning", "ProbeWarning", `${type} probe warning: ${output}`);
  }

  // The containers' progress whenever it changes; the pod is ready once all are at once.
  private report(): void {
    if (this.outcome && this.outcome.kind !== "ready") return;
    const progress = this.progress();
    const key = JSON.stringify(progress);
    if (key !== this.lastProgress) {
      this.lastProgress = key;
      this.options.onProgress?.(progress);
    }
    if (this.trackers.every((t) => t.ready)) this.finish({ kind: "ready" });
  }
}
