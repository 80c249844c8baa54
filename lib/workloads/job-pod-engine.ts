import type { Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../errors.js";
import { runPod, type PodOutcome, type RunPodDeps, type RunPodOptions } from "../pod/run-pod.js";
import { findPods, isSidecarState, kubeContainerName, type PodRecord } from "../pod/status/find-pods.js";
import { removePod } from "../pod/stop/remove-pod.js";
import { stopPod } from "../pod/stop/stop-pod.js";
import { systemClock, type Clock } from "../pod/readiness/wait-clock.js";
import type { Workload } from "./expand.js";
import type { JobController, JobObservation, PodToCreate } from "./job-controller.js";
import type { JobPodEngine } from "./job-loop.js";
import { isJobPod, jobPod, observationsOf, podIndexOf, readJobPod } from "./job-pods.js";

// The Job's pods on a real engine, for runJob (job-loop.ts): a pod is started through run-pod.ts
// as `up` starts any pod (its kubelet events included), then watched until it finishes: one
// `wait` per running app container, with a slow re-read as a safety net (a `wait` ends at the
// engine's request timeout, and an OnFailure container restarted by the engine is waited for
// anew). A pod's end is read from the engine (exit codes of the app and init containers), never
// guessed. Deleting a pod is `down`'s stop (preStop hooks, grace period), after keeping its last
// log lines: the Job's failure report shows them even for a pod the controller removed.

/** How long a watch waits on `wait` before reading the pod again anyway. */
const REREAD_MS = 10_000;
/**
 * restartPolicy OnFailure: the engine's restarts are what the controller counts, and podman's
 * `wait` goes on through them (docker's returns at each exit), so the pod is read this often.
 */
const REREAD_ON_FAILURE_MS = 2_000;
/** A container the engine is about to restart (OnFailure) is read again this soon. */
const RESTARTING_MS = 1_000;
/** The log lines of a failed pod shown with the Job's failure. */
export const FAILED_POD_LOG_LINES = 10;

export interface JobPodEngineOptions {
  workload: Workload;
  /** The pod options of the run (`up`'s), the same for each pod of the Job. */
  podOptions: Omit<RunPodOptions, "pod" | "wait" | "keepOnFailure" | "replace" | "onProgress">;
  /** `--keep-on-failure`: a pod that could not be started is left as it is. */
  keepOnFailure: boolean;
  clock?: Clock;
}

/** A pod the engine could not start (not a container's exit): the Job cannot go on. */
export class JobPodStartError extends Error {
  override readonly name = "JobPodStartError";
  constructor(readonly outcome: Extract<PodOutcome, { status: "failed" | "interrupted" }>) {
    super(outcome.status === "failed" ? outcome.error.message : "interrupted");
  }
}

/** The last log lines of a failed pod, per container that failed. */
export interface FailedPodLogs {
  pod: string;
  containers: { name: string; lines: string[] }[];
}

interface Watched {
  started: boolean;
  restartCount: number;
  stop: AbortController;
}

export class EngineJobPods implements JobPodEngine {
  private readonly deps: RunPodDeps;
  private readonly options: JobPodEngineOptions;
  private readonly clock: Clock;
  private readonly restartPolicy: string;
  private readonly watched = new Map<string, Watched>();
  private readonly seen: JobObservation[] = [];
  private wake: (() => void) | undefined;
  private failure: { at: number; logs: FailedPodLogs } | undefined;
  /** Names of the Job's pods, on the engine or made by this run: a new pod never takes one. */
  readonly names = new Set<string>();

  constructor(deps: RunPodDeps, options: JobPodEngineOptions) {
    this.deps = deps;
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.restartPolicy = options.workload.pods[0]?.spec?.restartPolicy ?? "Never";
  }

  get engineName(): string {
    return this.deps.runtime.name;
  }

  private get namespace(): string {
    return this.options.workload.namespace;
  }

  /**
   * The Job's pods an earlier command made, as the engine has them now, with the earliest
   * creation time among them (the Job's start when no record says it).
   */
  async findExisting(): Promise<{ records: PodRecord[]; earliest?: number }> {
    const records = await findJobPods(this.deps.runtime, this.options.workload);
    const times = records
      .flatMap((r) => [r.infra, ...r.initContainers, ...r.appContainers])
      .flatMap((c) => (c ? [Date.parse(c.createdAt)] : []))
      .filter((ms) => !Number.isNaN(ms));
    return times.length === 0 ? { records } : { records, earliest: Math.min(...times) };
  }

  /**
   * Hands those pods to `controller` with what the engine says of each now (so that a Job that
   * finished meanwhile is known before the first sync), and watches those still running.
   */
  async adopt(controller: JobController, records: readonly PodRecord[]): Promise<void> {
    const { workload } = this.options;
    const indexed = (workload.object.spec as { completionMode?: string } | undefined)?.completionMode === "Indexed";
    for (const record of records) {
      this.names.add(record.name);
      const index = indexed ? podIndexOf(record, workload) : undefined;
      controller.adopt(index === undefined ? { name: record.name } : { name: record.name, index });
      const reading = readJobPod(record, this.restartPolicy);
      const watched: Watched = { started: false, restartCount: 0, stop: new AbortController() };
      for (const observation of observationsOf(record.name, reading, watched, this.clock.now()))
        controller.observe(observation);
      watched.started = true;
      watched.restartCount = reading.restartCount;
      if (reading.state === "exited") await this.noteFailure(record, reading.finishedAt);
      else {
        this.watched.set(record.name, watched);
        void this.follow(record.name, watched);
      }
    }
  }

  async create(request: PodToCreate): Promise<void> {
    const { workload, podOptions } = this.options;
    this.names.add(request.name);
    const pod = jobPod(workload, request);
    // Kept on failure: an init container's failure is the pod's Failed phase, read back like any exit.
    const outcome = await runPod(this.deps, {
      ...podOptions,
      pod,
      keepOnFailure: true,
      replace: false,
      wait: undefined,
    });
    if (outcome.status === "interrupted") throw new JobPodStartError(outcome);
    if (
      outcome.status === "failed" &&
      !(outcome.error instanceof PodrunError && outcome.error.reason === "InitContainerFailed")
    ) {
      // Best effort: the start's failure is what the Job reports; `down` removes what stays.
      if (!this.options.keepOnFailure && !podOptions.dryRun) await this.remove(request.name).catch(() => undefined);
      throw new JobPodStartError(outcome);
    }
    if (podOptions.dryRun) return;
    const watched: Watched = { started: false, restartCount: 0, stop: new AbortController() };
    this.watched.set(request.name, watched);
    void this.follow(request.name, watched);
  }

  async delete(name: string): Promise<void> {
    this.watched.get(name)?.stop.abort();
    this.watched.delete(name);
    const record = await this.read(name);
    if (record) {
      await this.noteFailure(record, this.clock.now(), true);
      await this.remove(name, record);
    }
    this.push({ kind: "gone", pod: name, at: this.clock.now() });
  }

  watch(signal: AbortSignal): Promise<JobObservation[]> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve([]);
      if (this.seen.length > 0) return resolve(this.seen.splice(0));
      const done = (observations: JobObservation[]) => {
        this.wake = undefined;
        signal.removeEventListener("abort", onAbort);
        resolve(observations);
      };
      const onAbort = () => done([]);
      this.wake = () => done(this.seen.splice(0));
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Stops watching every pod (the pods themselves are left as they are). */
  close(): void {
    for (const watched of this.watched.values()) watched.stop.abort();
    this.watched.clear();
    this.wake?.();
  }

  /** The last log lines of the pod that failed last, for the Job's failure report. */
  get lastFailure(): FailedPodLogs | undefined {
    return this.failure?.logs;
  }

  /** Removes every pod of the Job (ttlSecondsAfterFinished, --rm-on-interrupt); how many there were. */
  async removeAll(): Promise<number> {
    this.close();
    return removeJobPods(
      this.deps,
      this.options.workload,
      this.options.podOptions.stateDir,
      this.options.workload.pods[0],
    );
  }

  private push(observation: JobObservation): void {
    this.seen.push(observation);
    this.wake?.();
  }

  private async read(name: string): Promise<PodRecord | undefined> {
    return (await findPods(this.deps.runtime, { namespace: this.namespace, name }))[0];
  }

  /** Follows one pod until it finishes, is gone, or is no longer watched. */
  private async follow(name: string, watched: Watched): Promise<void> {
    const { runtime } = this.deps;
    const { signal } = watched.stop;
    while (!signal.aborted) {
      let record: PodRecord | undefined;
      try {
        record = await this.read(name);
      } catch {
        // An engine that did not answer this once: read again after a pause.
        await this.clock.sleep(RESTARTING_MS, signal);
        continue;
      }
      if (signal.aborted) return;
      if (!record || record.appContainers.length + record.initContainers.length === 0) {
        this.watched.delete(name);
        this.push({ kind: "gone", pod: name, at: this.clock.now() });
        return;
      }
      const reading = readJobPod(record, this.restartPolicy);
      const observations = observationsOf(name, reading, watched, this.clock.now());
      watched.started = true;
      watched.restartCount = Math.max(watched.restartCount, reading.restartCount);
      if (reading.state === "exited") {
        this.watched.delete(name);
        await this.noteFailure(record, reading.finishedAt);
        await this.settle(record);
        for (const observation of observations) this.push(observation);
        return;
      }
      for (const observation of observations) this.push(observation);
      const running = record.appContainers.filter((c) => c.running && c.status !== "restarting");
      // OnFailure: a container that exited non-zero is about to be restarted by the engine.
      const restarting = record.appContainers.some(
        (c) => c.status === "restarting" || (!c.running && this.restartPolicy === "OnFailure" && c.exitCode !== 0),
      );
      const step = new AbortController();
      const abort = () => step.abort();
      signal.addEventListener("abort", abort, { once: true });
      // A wait that fails (the container gone) only ends the wait early: the pod is read again below.
      const waits = running.map((c) => runtime.waitContainer(c.id, { signal: step.signal }).catch(() => undefined));
      const reread =
        restarting || waits.length === 0
          ? RESTARTING_MS
          : this.restartPolicy === "OnFailure"
            ? REREAD_ON_FAILURE_MS
            : REREAD_MS;
      await Promise.race([...waits, this.clock.sleep(reread, step.signal)]);
      step.abort();
      signal.removeEventListener("abort", abort);
    }
  }

  /**
   * A finished pod as the kubelet leaves it: its sidecars stopped once the app containers are
   * done, and its sandbox stopped; the containers stay, for `ps` and `logs`, until the pod is removed.
   */
  private async settle(record: PodRecord): Promise<void> {
    const { runtime, recorder } = this.deps;
    if (record.initContainers.some((c) => c.running && isSidecarState(c))) {
      await stopPod(
        { runtime, recorder },
        { pod: record, volumes: [], keepStopped: true, manifest: jobPod(this.options.workload, { name: record.name }) },
        // Best effort: the ended Job pod's sidecars and sandbox are stopped; `down` removes what stays.
      ).catch(() => undefined);
    }
    if (record.infra?.running) await runtime.stopContainer(record.infra.id, 0).catch(() => undefined);
  }

  /** Keeps the last log lines of a pod that failed (or is being deleted), if it is the latest. */
  private async noteFailure(record: PodRecord, at = this.clock.now(), deleting = false): Promise<void> {
    const failed = [...record.appContainers, ...record.initContainers].filter((c) =>
      deleting ? c.running || c.exitCode !== 0 : !c.running && c.exitCode !== 0,
    );
    if (failed.length === 0 || (this.failure && this.failure.at > at)) return;
    const containers = await Promise.all(
      failed.map(async (c) => {
        // No log to read (the container gone): the failure is reported without its last lines.
        const text = await this.deps.runtime.logs(c.id, { tail: FAILED_POD_LOG_LINES }).catch(() => "");
        return { name: kubeContainerName(c), lines: text.split("\n").filter((line) => line !== "") };
      }),
    );
    this.failure = { at, logs: { pod: record.name, containers } };
  }

  private async remove(name: string, known?: PodRecord): Promise<void> {
    const record = known ?? (await this.read(name));
    if (record)
      await removePod(this.deps, record, {
        stateDir: this.options.podOptions.stateDir,
        manifest: jobPod(this.options.workload, { name }),
      });
  }
}

/** The pods on the engine that belong to the Job (one listing of the namespace). */
export async function findJobPods(
  runtime: RunPodDeps["runtime"],
  job: { name: string; namespace: string },
): Promise<PodRecord[]> {
  return (await findPods(runtime, { namespace: job.namespace })).filter((r) => isJobPod(r, job));
}

/** Removes every pod of a Job, as `down` would; resolves with how many there were. */
export async function removeJobPods(
  deps: Pick<RunPodDeps, "runtime" | "recorder">,
  job: { name: string; namespace: string },
  stateDir: string,
  template?: Pod,
): Promise<number> {
  const records = await findJobPods(deps.runtime, job);
  await Promise.all(
    records.map((record) =>
      removePod(deps, record, {
        stateDir,
        manifest: template && { ...template, metadata: { ...template.metadata, name: record.name } },
      }),
    ),
  );
  return records.length;
}
