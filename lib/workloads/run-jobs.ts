import type { Job } from "kubernetes-types/batch/v1.js";
import type { EventRecorder } from "../events/recorder.js";
import { formatErrorLine } from "../output/error-line.js";
import type { RunPodDeps, RunPodOptions } from "../pod/run-pod.js";
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
  /** A line on standard output; on standard error. */
  say: (line: string) => void;
  warn: (line: string) => void;
  /** Colours of the failure lines. */
  paint?: { red: (s: string) => string; yellow: (s: string) => string; green: (s: string) => string };
}

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

export async function runJobs(
  deps: RunPodDeps & { recorder: Pick<EventRecorder, "event"> },
  options: RunJobsOptions,
): Promise<RunJobsResult> {
  const clock = options.clock ?? systemClock;
  const { stateDir, dryRun } = options.podOptions;
  const engine = deps.runtime.name;
  const plain = (s: string) => s;
  const paint = options.paint ?? { red: plain, yellow: plain, green: plain };
  const result: RunJobsResult = { failed: [], interrupted: false };
  if (!dryRun) await removeExpiredJobs(deps, options, clock);

  for (const { workload, source } of options.jobs) {
    if (options.signal?.aborted) return { ...result, interrupted: true };
    const label = `job/${workload.name}`;
    const job = workload.object as Job;
    for (const warning of jobSpecWarnings(job.spec!))
      options.warn(paint.yellow(`${source}: Warning: ${label}: ${warning}`));

    const pods = new EngineJobPods(deps, {
      workload,
      podOptions: { ...options.podOptions, source },
      keepOnFailure: options.keepOnFailure,
      clock,
    });
    const existing = dryRun ? { records: [] } : await pods.findExisting();
    // The record stands for the Job object: it goes with `down` (or the TTL), not with the pods,
    // which the controller itself may have deleted (activeDeadlineSeconds).
    const record = dryRun ? undefined : await readJobRecord(stateDir, engine, workload);
    if (record?.finished) {
      const { type, reason, message } = record.finished;
      const note = `a finished Job is not run again (podrun down ${source} removes it and its pods, then up runs it anew)`;
      if (type === "Failed" && options.wait) {
        options.warn(paint.red(formatErrorLine({ reason, message: `${message} (already Failed; ${note})` }, label)));
        result.failed.push(label);
      } else options.say(`${label}: already ${type} (${reason}); ${note}`);
      continue;
    }
    const startTime = record?.startTime ?? existing.earliest ?? clock.now();
    const controller = new JobController({
      job,
      startTime,
      podName: ({ index }) => nextJobPodName(workload, pods.names, index),
    });
    await pods.adopt(controller, existing.records);
    const object = jobInvolvedObject(workload);
    const onEvent = (event: JobEvent) => deps.recorder.event(object, event.type, event.reason, event.message);
    const save = async () => {
      if (dryRun) return;
      const finished = controller.finished;
      const next: JobRecord = { namespace: workload.namespace, name: workload.name, startTime };
      if (finished) next.finished = finished;
      if (controller.spec.ttlSecondsAfterFinished !== undefined)
        next.ttlSecondsAfterFinished = controller.spec.ttlSecondsAfterFinished;
      await writeJobRecord(stateDir, engine, next);
    };

    try {
      // A dry run plans the first sync's pods: nothing runs, so there is nothing to wait for.
      if (!options.wait || dryRun) {
        const decision = controller.sync(clock.now());
        for (const event of decision.events) onEvent(event);
        for (const name of decision.delete) await pods.delete(name);
        for (const pod of decision.create) await pods.create(pod);
        await save();
        if (controller.finished) await report(controller, pods, label, options, result, paint, startTime);
        else if (!dryRun) {
          const status = controller.status();
          const next =
            decision.wakeAt !== undefined && decision.create.length === 0
              ? `; the next pod after the back-off, at ${new Date(decision.wakeAt).toISOString()}`
              : "";
          options.say(
            `${label}: ${status.active ?? 0} active, ${status.succeeded ?? 0} succeeded, ${status.failed ?? 0} failed${next} (podrun up --wait ${source} follows the Job to its end: retries need it)`,
          );
        }
        continue;
      }
      const stop = new AbortController();
      const abort = () => stop.abort();
      options.signal?.addEventListener("abort", abort, { once: true });
      const timer = options.wait.timeoutMs !== undefined ? setTimeout(abort, options.wait.timeoutMs) : undefined;
      let outcome;
      try {
        outcome = await runJob(controller, pods, { clock, signal: stop.signal, onEvent });
      } finally {
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener("abort", abort);
        pods.close();
      }
      await save();
      if (outcome.outcome !== "interrupted") {
        await report(controller, pods, label, options, result, paint, startTime);
        continue;
      }
      if (options.signal?.aborted) {
        if (options.wait.rmOnInterrupt) {
          const removed = await pods.removeAll();
          await removeJobRecord(stateDir, engine, workload);
          options.warn(`podrun: interrupted; ${label} and its ${removed === 1 ? "pod" : `${removed} pods`} removed`);
        } else
          options.warn(
            `podrun: interrupted; ${label} left with its pods (podrun up --wait ${source} takes it up again; podrun down ${source} removes them)`,
          );
        return { ...result, interrupted: true };
      }
      options.warn(
        paint.red(
          formatErrorLine(
            {
              reason: "Timeout",
              message: `not finished within --timeout; its pods are left as they are (podrun up --wait ${source} takes it up again)`,
            },
            label,
          ),
        ),
      );
      result.failed.push(label);
    } catch (error) {
      if (!(error instanceof JobPodStartError)) throw error;
      await save();
      const { outcome } = error;
      if (outcome.status === "interrupted") {
        for (const note of outcome.notes) options.warn(note);
        return { ...result, interrupted: true };
      }
      for (const note of outcome.notes) options.warn(note);
      options.warn(paint.red(formatErrorLine(outcome.error, `${outcome.label} of ${label}`)));
      result.failed.push(label);
    } finally {
      // Nothing is watched once `up` is done with the Job: the pods run on, the engine keeps them.
      pods.close();
    }
  }
  return result;
}

/** The Job's end: Complete on standard output; Failed as the failed pod's last log lines, then the error line. */
async function report(
  controller: JobController,
  pods: EngineJobPods,
  label: string,
  options: RunJobsOptions,
  result: RunJobsResult,
  paint: NonNullable<RunJobsOptions["paint"]>,
  startTime: number,
): Promise<void> {
  const finished = controller.finished!;
  const status = controller.status();
  const seconds = Math.max(0, Math.round((finished.at - startTime) / 1000));
  if (finished.type === "Complete") {
    const wanted = controller.spec.completions;
    const failures = status.failed ? `, ${status.failed} failed` : "";
    options.say(
      paint.green(
        `${label}: Complete: ${status.succeeded ?? 0}${wanted === undefined ? "" : ` of ${wanted}`} succeeded${failures}, in ${seconds}s`,
      ),
    );
  } else {
    for (const line of formatFailedPodLogs(pods.lastFailure)) options.warn(line);
    options.warn(
      paint.red(
        formatErrorLine(
          {
            reason: finished.reason,
            message: `${finished.message} (${status.succeeded ?? 0} succeeded, ${status.failed ?? 0} failed, in ${seconds}s)`,
          },
          label,
        ),
      ),
    );
    if (options.wait) result.failed.push(label);
  }
  // The TTL-after-finished controller deletes at once when the TTL is 0; a later one is for the next `up`.
  if (controller.spec.ttlSecondsAfterFinished === 0 && !options.podOptions.dryRun) {
    const removed = await pods.removeAll();
    await removeJobRecord(options.podOptions.stateDir, pods.engineName, {
      namespace: controller.namespace,
      name: controller.name,
    });
    options.say(`${label}: ttlSecondsAfterFinished 0: ${removed === 1 ? "its pod" : `its ${removed} pods`} removed`);
  }
}

/** `last log lines of pod/x[main]:` and the lines, indented. */
export function formatFailedPodLogs(logs: FailedPodLogs | undefined): string[] {
  if (!logs) return [];
  return logs.containers.flatMap((c) =>
    c.lines.length === 0
      ? [`pod/${logs.pod}[${c.name}]: no log lines`]
      : [`last log lines of pod/${logs.pod}[${c.name}]:`, ...c.lines.map((line) => `  ${line}`)],
  );
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
    if (removed > 0)
      options.say(
        `job/${record.name}${record.namespace === "default" ? "" : ` (namespace ${record.namespace})`}: ttlSecondsAfterFinished passed; ${removed === 1 ? "its pod" : `its ${removed} pods`} removed`,
      );
  }
}
