import type { Job, JobStatus } from "kubernetes-types/batch/v1.js";
import type { EventRecorder } from "../events/recorder.js";
import type { PodOutcome, RunPodDeps, RunPodOptions } from "../pod/run-pod.js";
import { systemClock, type Clock } from "../pod/readiness/wait-clock.js";
import type { InvolvedObject } from "../events/types.js";
import { stableUid, type Workload } from "./expand.js";
import { JobController, jobSpecWarnings, type JobEvent } from "./job-controller.js";
import { runJob } from "./job-loop.js";
import { EngineJobPods, JobPodStartError, removeJobPods, type FailedPodLogs } from "./job-pod-engine.js";
import { nextJobPodName } from "./job-pods.js";
import {
  expiryOf,
  listJobRecords,
  readJobRecord,
  removeJobRecord,
  writeJobRecord,
  type JobRecord,
} from "./job-state.js";

// `podrun up` for the Jobs of the manifests: each is handed to the Job controller
// (job-controller.ts) with its pods on the engine (job-pod-engine.ts).
// - With --wait, the controller runs until the Job is Complete (exit 0) or Failed (exit 1: the
//   reason, the controller's message and the failed pod's last log lines). Without --wait, `up`
//   does what one sync of the controller does (creates the first pods) and returns, as
//   `kubectl apply` returns once the Job exists: retries after a failure, the back-off and the
//   Job's end need a controller running, which is `up --wait`.
// - A Job that finished stays finished: re-running `up` on it does nothing while its pods are
//   there (as re-applying a finished Job to a cluster does not run it again). Its record is in
//   job-state.ts; the pods are read back from the engine.
// - ttlSecondsAfterFinished: the pods of a Job whose TTL has passed are removed by the next `up`,
//   whatever manifests it is given (the TTL-after-finished controller's job, run when podrun runs).
// Each step is told as a JobOutcome, worded by lib/output/job-outcome.ts.

export interface RunJobsOptions {
  /** The manifests' Jobs, in file order, each with its file. */
  jobs: readonly { workload: Workload; source: string }[];
  /** What every pod of the run gets (the ConfigMaps and Secrets, images, state directory…). */
  podOptions: Omit<RunPodOptions, "pod" | "source" | "wait" | "keepOnFailure" | "replace" | "onProgress">;
  keepOnFailure: boolean;
  /** `--wait`: follow each Job to its end; `timeoutMs` only when --timeout was given. */
  wait?: { timeoutMs?: number | undefined; rmOnInterrupt: boolean } | undefined;
  /** Ctrl-C. */
  signal?: AbortSignal | undefined;
  clock?: Clock;
  /** Each step, as it ends. */
  report: (outcome: JobOutcome) => void;
}

type Finished = NonNullable<JobRecord["finished"]>;

/** What `up` tells of its Jobs, in order (lib/output/job-outcome.ts words them). */
export type JobOutcome =
  /** ttlSecondsAfterFinished passed since the last `up`: the Job's pods removed. */
  | { kind: "expired"; label: string; removed: number }
  | { kind: "spec-warning"; label: string; source: string; warning: string }
  /** A finished Job is not run again; `failed`: it Failed and `--wait` counts it. */
  | { kind: "already-finished"; label: string; source: string; finished: Finished; failed: boolean }
  /** Without --wait: one sync done; `nextPodAt` when the next pod waits for the back-off. */
  | { kind: "synced"; label: string; source: string; status: JobStatus; nextPodAt?: number | undefined }
  | {
      kind: "finished";
      label: string;
      finished: Finished;
      status: JobStatus;
      seconds: number;
      completions?: number | undefined;
      /** Failed: the failed pod's last log lines. */
      logs?: FailedPodLogs | undefined;
    }
  /** ttlSecondsAfterFinished 0: the pods removed at once. */
  | { kind: "ttl-removed"; label: string; removed: number }
  /** Ctrl-C during `--wait`; `removed` (the pods) with --rm-on-interrupt. */
  | { kind: "interrupted"; label: string; source: string; removed?: number | undefined }
  | { kind: "timeout"; label: string; source: string }
  /** A pod of the Job could not be started, or Ctrl-C came while it started. */
  | { kind: "pod-failed"; label: string; outcome: Extract<PodOutcome, { status: "failed" | "interrupted" }> };

export interface RunJobsResult {
  /** `job/<name>` of each Job that failed (or could not be run). */
  failed: string[];
  /** Ctrl-C ended the run. */
  interrupted: boolean;
}

/** The involved object of a Job's events: `job/<name>` in the event lines and `podrun events`. */
export function jobInvolvedObject(job: { name: string; namespace: string }): InvolvedObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    name: job.name,
    namespace: job.namespace,
    uid: stableUid(job.namespace, `Job/${job.name}`),
  };
}

/** How one Job's run ended, for the run of all. */
type JobEnd = "done" | "failed" | "interrupted";

export async function runJobs(
  deps: RunPodDeps & { recorder: Pick<EventRecorder, "event"> },
  options: RunJobsOptions,
): Promise<RunJobsResult> {
  const clock = options.clock ?? systemClock;
  const result: RunJobsResult = { failed: [], interrupted: false };
  if (!options.podOptions.dryRun) await removeExpiredJobs(deps, options, clock);
  // Every Job at once, as their controllers run side by side; a dry run's one after the other, so
  // that the commands it prints come Job by Job.
  const runOne = (job: RunJobsOptions["jobs"][number]): Promise<JobEnd> =>
    options.signal?.aborted ? Promise.resolve("interrupted") : runOneJob(deps, options, job, clock);
  const ends: JobEnd[] = [];
  if (options.podOptions.dryRun) for (const job of options.jobs) ends.push(await runOne(job));
  else ends.push(...(await Promise.all(options.jobs.map(runOne))));
  ends.forEach((end, i) => {
    if (end === "failed") result.failed.push(`job/${options.jobs[i]!.workload.name}`);
  });
  return { ...result, interrupted: ends.includes("interrupted") };
}

/** One Job: a finished one is not run again; else its controller, once (no --wait) or to its end. */
async function runOneJob(
  deps: RunPodDeps & { recorder: Pick<EventRecorder, "event"> },
  options: RunJobsOptions,
  { workload, source }: { workload: Workload; source: string },
  clock: Clock,
): Promise<JobEnd> {
  const { stateDir, dryRun } = options.podOptions;
  const label = `job/${workload.name}`;
  const job = workload.object as Job;
  for (const warning of jobSpecWarnings(job.spec!)) options.report({ kind: "spec-warning", label, source, warning });
  const pods = new EngineJobPods(deps, {
    workload,
    podOptions: { ...options.podOptions, source },
    keepOnFailure: options.keepOnFailure,
    clock,
  });
  const existing = dryRun ? { records: [] } : await pods.findExisting();
  // The record stands for the Job object: it goes with `down` (or the TTL), not with the pods,
  // which the controller itself may have deleted (activeDeadlineSeconds).
  const record = dryRun ? undefined : await readJobRecord(stateDir, deps.runtime.name, workload);
  if (record?.finished) {
    const failed = record.finished.type === "Failed" && options.wait !== undefined;
    options.report({ kind: "already-finished", label, source, finished: record.finished, failed });
    return failed ? "failed" : "done";
  }
  const startTime = record?.startTime ?? existing.earliest ?? clock.now();
  const controller = new JobController({
    job,
    startTime,
    podName: ({ index }) => nextJobPodName(workload, pods.names, index),
  });
  await pods.adopt(controller, existing.records);
  const run: JobRun = { deps, options, workload, source, label, controller, pods, startTime, clock };
  try {
    // A dry run plans the first sync's pods: nothing runs, so there is nothing to wait for.
    return !options.wait || dryRun ? await syncOnce(run) : await followToEnd(run, options.wait);
  } catch (error) {
    if (!(error instanceof JobPodStartError)) throw error;
    await saveRecord(run);
    options.report({ kind: "pod-failed", label, outcome: error.outcome });
    return error.outcome.status === "interrupted" ? "interrupted" : "failed";
  } finally {
    // Nothing is watched once `up` is done with the Job: the pods run on, the engine keeps them.
    pods.close();
  }
}

/** One Job under way. */
interface JobRun {
  deps: RunPodDeps & { recorder: Pick<EventRecorder, "event"> };
  options: RunJobsOptions;
  workload: Workload;
  source: string;
  label: string;
  controller: JobController;
  pods: EngineJobPods;
  startTime: number;
  clock: Clock;
}

const onEventOf = (run: JobRun) => {
  const object = jobInvolvedObject(run.workload);
  return (event: JobEvent) => run.deps.recorder.event(object, event.type, event.reason, event.message);
};

/** The Job's record, as its controller left it (none on a dry run). */
async function saveRecord(run: JobRun): Promise<void> {
  const { controller, workload, options } = run;
  if (options.podOptions.dryRun) return;
  const finished = controller.finished;
  const next: JobRecord = { namespace: workload.namespace, name: workload.name, startTime: run.startTime };
  if (finished) next.finished = finished;
  if (controller.spec.ttlSecondsAfterFinished !== undefined)
    next.ttlSecondsAfterFinished = controller.spec.ttlSecondsAfterFinished;
  if (controller.spec.completions !== undefined) next.completions = controller.spec.completions;
  next.parallelism = controller.spec.parallelism;
  await writeJobRecord(options.podOptions.stateDir, run.deps.runtime.name, next);
}

/** Without --wait (or on a dry run): what one sync of the controller does, as `kubectl apply` returns once the Job exists. */
async function syncOnce(run: JobRun): Promise<JobEnd> {
  const { controller, pods, options } = run;
  const decision = controller.sync(run.clock.now());
  const onEvent = onEventOf(run);
  for (const event of decision.events) onEvent(event);
  for (const name of decision.delete) await pods.delete(name);
  for (const pod of decision.create) await pods.create(pod);
  await saveRecord(run);
  if (controller.finished) return finish(run);
  if (!options.podOptions.dryRun) {
    const nextPodAt = decision.wakeAt !== undefined && decision.create.length === 0 ? decision.wakeAt : undefined;
    options.report({ kind: "synced", label: run.label, source: run.source, status: controller.status(), nextPodAt });
  }
  return "done";
}

/** `--wait`: the controller runs until the Job is Complete or Failed, the time limit, or Ctrl-C. */
async function followToEnd(run: JobRun, wait: NonNullable<RunJobsOptions["wait"]>): Promise<JobEnd> {
  const { options, pods, label, source } = run;
  const stop = new AbortController();
  const abort = () => stop.abort();
  options.signal?.addEventListener("abort", abort, { once: true });
  const timer = wait.timeoutMs !== undefined ? setTimeout(abort, wait.timeoutMs) : undefined;
  let outcome;
  try {
    outcome = await runJob(run.controller, pods, { clock: run.clock, signal: stop.signal, onEvent: onEventOf(run) });
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener("abort", abort);
    pods.close();
  }
  await saveRecord(run);
  if (outcome.outcome !== "interrupted") return finish(run);
  if (options.signal?.aborted) {
    let removed: number | undefined;
    if (wait.rmOnInterrupt) {
      removed = await pods.removeAll();
      await removeJobRecord(options.podOptions.stateDir, run.deps.runtime.name, run.workload);
    }
    options.report({ kind: "interrupted", label, source, removed });
    return "interrupted";
  }
  options.report({ kind: "timeout", label, source });
  return "failed";
}

/** The Job's end, told; ttlSecondsAfterFinished 0 removes its pods at once. */
async function finish(run: JobRun): Promise<JobEnd> {
  const { controller, pods, options, label } = run;
  const finished = controller.finished!;
  const failedPod = finished.type === "Complete" ? undefined : pods.lastFailure;
  options.report({
    kind: "finished",
    label,
    finished,
    status: controller.status(),
    seconds: Math.max(0, Math.round((finished.at - run.startTime) / 1000)),
    completions: controller.spec.completions,
    logs: failedPod,
  });
  // The TTL-after-finished controller deletes at once when the TTL is 0; a later one is for the next `up`.
  if (controller.spec.ttlSecondsAfterFinished === 0 && !options.podOptions.dryRun) {
    const removed = await pods.removeAll();
    await removeJobRecord(options.podOptions.stateDir, pods.engineName, {
      namespace: controller.namespace,
      name: controller.name,
    });
    options.report({ kind: "ttl-removed", label, removed });
  }
  return finished.type === "Failed" && options.wait ? "failed" : "done";
}

/** ttlSecondsAfterFinished: the pods of every Job whose TTL has passed, removed with its record. */
async function removeExpiredJobs(deps: RunPodDeps, options: RunJobsOptions, clock: Clock): Promise<void> {
  const { stateDir } = options.podOptions;
  const engine = deps.runtime.name;
  for (const record of await listJobRecords(stateDir, engine)) {
    const expiry = expiryOf(record);
    if (expiry === undefined || expiry > clock.now()) continue;
    const removed = await removeJobPods(deps, record, stateDir);
    await removeJobRecord(stateDir, engine, record);
    const label = `job/${record.name}${record.namespace === "default" ? "" : ` (namespace ${record.namespace})`}`;
    if (removed > 0) options.report({ kind: "expired", label, removed });
  }
}
