import type { Job, JobCondition, JobSpec, JobStatus, PodFailurePolicy } from "kubernetes-types/batch/v1.js";
import { toApiTime } from "../events/recorder.js";
import { nextBackoffRecord, remainingBackoff, type BackoffRecord } from "./job-backoff.js";
import { matchPodFailurePolicy, type ContainerExit } from "./pod-failure-policy.js";

// The Job controller (syncJob and manageJob in
// https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/controller/job/job_controller.go) for one
// Job on one machine, as a pure state machine: the caller feeds in what the engine saw (a pod
// started, exited, went away) and asks `sync(now)` what to do; the answer is which pods to create
// and delete, the events to record and when to sync again without news (a back-off or the active
// deadline ends). No engine, no timers, no I/O: `up --wait` carries the decisions out.
//
// What one machine changes, and why:
// - No API server between the controller and the pods: a pod's finish is counted in the sync
//   that sees it, so the finalizers and status.uncountedTerminatedPods of the real controller,
//   which exist to survive a controller restart between two API writes, have no counterpart.
// - v1.34's feature gates as they are by default: JobPodReplacementPolicy (GA) and JobManagedBy
//   (beta) on, so a finished Job first gets the interim SuccessCriteriaMet or FailureTarget
//   condition and the terminal Complete or Failed one once no pod is terminating.
// - suspend, successPolicy, backoffLimitPerIndex, maxFailedIndexes, managedBy and onPodConditions
//   rules are not modelled; jobSpecWarnings names them.

/** Job event reasons and messages, the controller's own strings (Normal unless said). */
export const JobEventReason = {
  /** controller.RealPodControl (pkg/controller/controller_utils.go): "Created pod: <name>". */
  SuccessfulCreate: "SuccessfulCreate",
  /** "Deleted pod: <name>". */
  SuccessfulDelete: "SuccessfulDelete",
  /** "Job completed". */
  Completed: "Completed",
  /** Warning: "Too many succeeded pods running after completion count reached". */
  TooManySucceededPods: "TooManySucceededPods",
  /** Warning, with the Failed condition's message. */
  BackoffLimitExceeded: "BackoffLimitExceeded",
  DeadlineExceeded: "DeadlineExceeded",
  PodFailurePolicy: "PodFailurePolicy",
} as const;

export const BACKOFF_LIMIT_MESSAGE = "Job has reached the specified backoff limit";
export const DEADLINE_MESSAGE = "Job was active longer than specified deadline";
/** The reason and message of SuccessCriteriaMet and Complete when the completions are reached. */
export const COMPLETIONS_REACHED = {
  reason: "CompletionsReached",
  message: "Reached expected number of succeeded pods",
};

export interface JobEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
  /** ms since the epoch. */
  at: number;
}

/** What the engine saw happen to one of the Job's pods. */
export type JobObservation =
  /** Its containers run (the pod is no longer Pending). */
  | { kind: "started"; pod: string; at: number }
  /** restartPolicy OnFailure: the engine restarted a failed container; the total restarts of the pod. */
  | { kind: "restarted"; pod: string; restartCount: number; at: number }
  /** Every container finished: Succeeded when all exited 0, else Failed. `at` is the last finish. */
  | { kind: "exited"; pod: string; containers: ContainerExit[]; at: number }
  /** Removed before it finished (deleted, or vanished from the engine): a Failed pod without exit codes. */
  | { kind: "gone"; pod: string; at: number };

export interface PodToCreate {
  name: string;
  /** completionMode Indexed: the completion index (annotation, label, hostname and JOB_COMPLETION_INDEX). */
  index?: number;
}

export interface JobDecision {
  create: PodToCreate[];
  /** Pods to stop and remove, with their grace period. */
  delete: string[];
  /** Sync again at this time (ms since the epoch) even if nothing is observed before. */
  wakeAt?: number;
  /** The events of this sync, in order. */
  events: JobEvent[];
}

export interface JobControllerOptions {
  /** The Job as validated; defaults are applied here. */
  job: Job;
  /** Names a new pod (`<job>-<5 chars>`, or `<job>-<index>-<5 chars>` for an Indexed Job). */
  podName: (request: { index?: number }) => string;
  /** status.startTime of a Job picked up again (ms), e.g. from its pods' labels: the deadline runs from it. */
  startTime?: number;
}

type Phase = "Pending" | "Running" | "Succeeded" | "Failed";

interface PodRecord {
  name: string;
  index?: number;
  phase: Phase;
  /** The controller asked for its deletion (deletionTimestamp), ms. */
  deletedAt?: number;
  finishedAt?: number;
  containers: ContainerExit[];
  restartCount: number;
  /** Already in status.succeeded or status.failed (or left out of them on purpose). */
  counted: boolean;
}

/** A Job spec with the API server's defaults (pkg/apis/batch/v1/defaults.go). */
export interface DefaultedJobSpec {
  /** Undefined: a work queue, complete when any pod succeeds and none is left running. */
  completions?: number;
  parallelism: number;
  backoffLimit: number;
  completionMode: "NonIndexed" | "Indexed";
  activeDeadlineSeconds?: number;
  ttlSecondsAfterFinished?: number;
  podFailurePolicy?: PodFailurePolicy;
  podReplacementPolicy: "TerminatingOrFailed" | "Failed";
  restartPolicy: string;
}

export function defaultJobSpec(spec: JobSpec): DefaultedJobSpec {
  const bothUnset = spec.completions === undefined && spec.parallelism === undefined;
  return {
    completions: bothUnset ? 1 : spec.completions,
    parallelism: spec.parallelism ?? 1,
    backoffLimit: spec.backoffLimit ?? 6,
    completionMode: spec.completionMode === "Indexed" ? "Indexed" : "NonIndexed",
    activeDeadlineSeconds: spec.activeDeadlineSeconds,
    ttlSecondsAfterFinished: spec.ttlSecondsAfterFinished,
    podFailurePolicy: spec.podFailurePolicy,
    podReplacementPolicy:
      (spec.podReplacementPolicy as "TerminatingOrFailed" | "Failed" | undefined) ??
      (spec.podFailurePolicy ? "Failed" : "TerminatingOrFailed"),
    restartPolicy: spec.template.spec?.restartPolicy ?? "Never",
  };
}

/** The Job fields this controller does not act on, each as a Warning naming the field. */
export function jobSpecWarnings(spec: JobSpec): string[] {
  const warnings: string[] = [];
  const field = (name: string, why: string) => warnings.push(`spec.${name}: ${why}`);
  if (spec.suspend)
    field("suspend", "ignored: podrun runs the Job when it is given (a suspended Job would never start)");
  if (spec.successPolicy) field("successPolicy", "ignored: the Job completes when its completions succeed");
  if (spec.backoffLimitPerIndex !== undefined)
    field("backoffLimitPerIndex", "ignored: failures count towards backoffLimit for the whole Job");
  if (spec.maxFailedIndexes !== undefined) field("maxFailedIndexes", "ignored with backoffLimitPerIndex");
  if (spec.managedBy !== undefined) field("managedBy", "ignored: podrun is the Job's controller");
  for (const [i, rule] of (spec.podFailurePolicy?.rules ?? []).entries()) {
    if (rule.onPodConditions)
      field(
        `podFailurePolicy.rules[${i}].onPodConditions`,
        "never matches on one machine: no eviction, preemption or disruption sets those pod conditions",
      );
    if (rule.action === "FailIndex")
      field(`podFailurePolicy.rules[${i}].action`, "FailIndex needs backoffLimitPerIndex; the rule is skipped");
  }
  return warnings;
}

interface Condition {
  type: "SuccessCriteriaMet" | "Complete" | "FailureTarget" | "Failed";
  reason: string;
  message: string;
  at: number;
}

export class JobController {
  readonly name: string;
  readonly namespace: string;
  readonly spec: DefaultedJobSpec;
  private readonly podName: JobControllerOptions["podName"];
  private readonly pods = new Map<string, PodRecord>();
  private succeeded = 0;
  private failed = 0;
  private readonly succeededIndexes = new Set<number>();
  private backoff: BackoffRecord = { failuresAfterLastSuccess: 0 };
  private startTime?: number;
  private completionTime?: number;
  private readonly conditions: Condition[] = [];

  constructor(options: JobControllerOptions) {
    this.name = options.job.metadata?.name ?? "";
    this.namespace = options.job.metadata?.namespace ?? "default";
    if (!options.job.spec) throw new TypeError("a Job without a spec");
    this.spec = defaultJobSpec(options.job.spec);
    this.podName = options.podName;
    this.startTime = options.startTime;
  }

  /**
   * Takes over a pod an earlier podrun command created for this Job (found on the engine by its
   * labels), before the first sync; its start and exit are then observed as usual. This is how a
   * later command rebuilds the Job's state: counters and back-off follow from the pods' exits.
   */
  adopt(pod: PodToCreate): void {
    if (this.pods.has(pod.name)) return;
    const record: PodRecord = { name: pod.name, phase: "Pending", containers: [], restartCount: 0, counted: false };
    if (pod.index !== undefined) record.index = pod.index;
    this.pods.set(pod.name, record);
  }

  observe(observation: JobObservation): void {
    const pod = this.pods.get(observation.pod);
    if (!pod || pod.phase === "Succeeded" || pod.phase === "Failed") return;
    switch (observation.kind) {
      case "started":
        pod.phase = "Running";
        break;
      case "restarted":
        pod.restartCount = Math.max(pod.restartCount, observation.restartCount);
        break;
      case "exited":
        pod.containers = observation.containers;
        pod.phase = observation.containers.every((c) => c.exitCode === 0) ? "Succeeded" : "Failed";
        pod.finishedAt = observation.at;
        break;
      case "gone":
        pod.phase = "Failed";
        pod.finishedAt = observation.at;
        break;
    }
  }

  /** The controller's terminal condition, once the Job has one. */
  get finished(): { type: "Complete" | "Failed"; reason: string; message: string; at: number } | undefined {
    const c = this.conditions.find((x) => x.type === "Complete" || x.type === "Failed");
    return c && { type: c.type as "Complete" | "Failed", reason: c.reason, message: c.message, at: c.at };
  }

  /** When the TTL-after-finished controller would delete the Job and its pods, if it would. */
  get expiresAt(): number | undefined {
    const finished = this.finished;
    if (!finished || this.spec.ttlSecondsAfterFinished === undefined) return undefined;
    return finished.at + this.spec.ttlSecondsAfterFinished * 1000;
  }

  /** One syncJob: count what finished, decide the Job's fate, create or delete pods. */
  sync(now: number): JobDecision {
    const decision: JobDecision = { create: [], delete: [], events: [] };
    if (this.finished) return decision;
    this.startTime ??= now;

    // Pods that finished since the last sync: the counters and the back-off record.
    const newSucceeded: PodRecord[] = [];
    const newFailed: PodRecord[] = [];
    for (const pod of this.pods.values()) {
      if (pod.counted) continue;
      if (pod.phase === "Succeeded") newSucceeded.push(pod);
      else if (this.isPodFailed(pod)) newFailed.push(pod);
    }
    this.backoff = nextBackoffRecord(
      this.backoff,
      newSucceeded.map((p) => p.finishedAt ?? now),
      newFailed.map((p) => p.finishedAt ?? p.deletedAt ?? now),
    );
    for (const pod of newSucceeded) this.countSucceeded(pod);
    for (const pod of newFailed) this.countFailed(pod);

    // The Job's fate, in the controller's order: an interim condition already set, a FailJob
    // rule, the backoff limit, the active deadline.
    const successMet = this.conditions.some((c) => c.type === "SuccessCriteriaMet");
    let failure = this.conditions.find((c) => c.type === "FailureTarget");
    if (!failure && !successMet) {
      const verdict = this.failureVerdict(now);
      if (verdict && "wakeAt" in verdict) decision.wakeAt = verdict.wakeAt;
      else if (verdict) {
        failure = { type: "FailureTarget", ...verdict, at: now };
        this.conditions.push(failure);
      }
    }

    if (failure) {
      // Every pod still running goes, and counts as failed: the Job will not wait for it.
      for (const pod of this.activePods()) {
        this.deletePod(pod, now, decision);
        if (!pod.counted) this.countFailed(pod);
      }
    } else if (!successMet) {
      this.manageJob(now, decision);
      const active = this.activePods().length;
      const complete =
        this.spec.completions === undefined
          ? this.succeeded > 0 && active === 0
          : this.succeeded >= this.spec.completions && active === 0;
      if (complete) this.conditions.push({ type: "SuccessCriteriaMet", ...COMPLETIONS_REACHED, at: now });
    }

    // The terminal condition waits for the pods being deleted to be gone.
    if (this.terminatingPods().length > 0) return decision;
    if (failure) {
      this.conditions.push({ type: "Failed", reason: failure.reason, message: failure.message, at: now });
      decision.events.push({ type: "Warning", reason: failure.reason, message: failure.message, at: now });
    } else if (this.conditions.some((c) => c.type === "SuccessCriteriaMet")) {
      this.conditions.push({ type: "Complete", ...COMPLETIONS_REACHED, at: now });
      this.completionTime = now;
      if (this.spec.completions !== undefined && this.succeeded > this.spec.completions) {
        decision.events.push({
          type: "Warning",
          reason: JobEventReason.TooManySucceededPods,
          message: "Too many succeeded pods running after completion count reached",
          at: now,
        });
      }
      decision.events.push({ type: "Normal", reason: JobEventReason.Completed, message: "Job completed", at: now });
    }
    if (this.finished) delete decision.wakeAt;
    return decision;
  }

  /** Why the Job fails now, if it does; else when the active deadline will pass, if there is one. */
  private failureVerdict(now: number): { reason: string; message: string } | { wakeAt: number } | undefined {
    const failJob = this.failJobMessage();
    if (failJob !== undefined) return { reason: JobEventReason.PodFailurePolicy, message: failJob };
    if (this.failed > this.spec.backoffLimit || this.pastBackoffLimitOnFailure())
      return { reason: JobEventReason.BackoffLimitExceeded, message: BACKOFF_LIMIT_MESSAGE };
    if (this.spec.activeDeadlineSeconds === undefined || this.startTime === undefined) return undefined;
    const deadline = this.startTime + this.spec.activeDeadlineSeconds * 1000;
    return now >= deadline
      ? { reason: JobEventReason.DeadlineExceeded, message: DEADLINE_MESSAGE }
      : { wakeAt: deadline };
  }

  /** The Job's status as the API would show it. */
  status(): JobStatus {
    const status: JobStatus = {
      active: this.activePods().length,
      succeeded: this.succeeded,
      failed: this.failed,
      terminating: this.terminatingPods().length,
    };
    if (this.startTime !== undefined) status.startTime = toApiTime(this.startTime);
    if (this.completionTime !== undefined) status.completionTime = toApiTime(this.completionTime);
    if (this.spec.completionMode === "Indexed") status.completedIndexes = formatIndexes([...this.succeededIndexes]);
    if (this.conditions.length > 0) {
      status.conditions = this.conditions.map((c): JobCondition => ({
        type: c.type,
        status: "True",
        reason: c.reason,
        message: c.message,
        lastProbeTime: toApiTime(c.at),
        lastTransitionTime: toApiTime(c.at),
      }));
    }
    return status;
  }

  /** manageJob: as many active pods as parallelism and the remaining completions allow. */
  private manageJob(now: number, decision: JobDecision): void {
    const active = this.activePods();
    const { completions, parallelism } = this.spec;
    let wantActive: number;
    if (completions === undefined) wantActive = this.succeeded > 0 ? active.length : parallelism;
    else wantActive = Math.max(0, Math.min(completions - this.succeeded, parallelism));

    // The controller also deletes pods when more are active than wanted; that takes a spec
    // changed under a running Job (parallelism scaled down), which a manifest given to one `up`
    // never is, so there is no such branch here.
    // podReplacementPolicy Failed: a pod being deleted still holds its place until it is gone.
    const terminating = this.spec.podReplacementPolicy === "Failed" ? this.terminatingPods().length : 0;
    let diff = wantActive - terminating - active.length;
    if (diff <= 0) return;
    const wait = remainingBackoff(this.backoff, now);
    if (wait > 0) {
      decision.wakeAt = Math.min(decision.wakeAt ?? Infinity, now + wait);
      return;
    }
    const indexes =
      this.spec.completionMode === "Indexed" && completions !== undefined
        ? this.pendingIndexes(diff, completions)
        : undefined;
    if (indexes) diff = indexes.length;
    for (let i = 0; i < diff; i++) {
      const index = indexes?.[i];
      const name = this.podName(index === undefined ? {} : { index });
      const pod: PodRecord = { name, phase: "Pending", containers: [], restartCount: 0, counted: false };
      if (index !== undefined) pod.index = index;
      this.pods.set(name, pod);
      decision.create.push(index === undefined ? { name } : { name, index });
      decision.events.push({
        type: "Normal",
        reason: JobEventReason.SuccessfulCreate,
        message: `Created pod: ${name}`,
        at: now,
      });
    }
  }

  /** firstPendingIndexes: the lowest indexes neither succeeded nor held by an active pod. */
  private pendingIndexes(count: number, completions: number): number[] {
    const taken = new Set(this.activePods().map((p) => p.index));
    const out: number[] = [];
    for (let i = 0; i < completions && out.length < count; i++)
      if (!this.succeededIndexes.has(i) && !taken.has(i)) out.push(i);
    return out;
  }

  private deletePod(pod: PodRecord, now: number, decision: JobDecision): void {
    pod.deletedAt = now;
    decision.delete.push(pod.name);
    decision.events.push({
      type: "Normal",
      reason: JobEventReason.SuccessfulDelete,
      message: `Deleted pod: ${pod.name}`,
      at: now,
    });
  }

  private countSucceeded(pod: PodRecord): void {
    pod.counted = true;
    if (this.spec.completionMode !== "Indexed") {
      this.succeeded++;
      return;
    }
    // An index counts once, however many of its pods succeed.
    if (pod.index !== undefined && this.spec.completions !== undefined && pod.index < this.spec.completions)
      this.succeededIndexes.add(pod.index);
    this.succeeded = this.succeededIndexes.size;
  }

  private countFailed(pod: PodRecord): void {
    pod.counted = true;
    if (matchPodFailurePolicy(this.spec.podFailurePolicy, this.podView(pod)).countFailed) this.failed++;
  }

  /** getFailJobMessage: the first failed pod that matches a FailJob rule. */
  private failJobMessage(): string | undefined {
    if (!this.spec.podFailurePolicy) return undefined;
    for (const pod of this.pods.values()) {
      if (!this.isPodFailed(pod)) continue;
      const message = matchPodFailurePolicy(this.spec.podFailurePolicy, this.podView(pod)).failJobMessage;
      if (message !== undefined) return message;
    }
    return undefined;
  }

  /** restartPolicy OnFailure: the restarts of the pods still running count as failures. */
  private pastBackoffLimitOnFailure(): boolean {
    if (this.spec.restartPolicy !== "OnFailure") return false;
    let restarts = 0;
    for (const pod of this.pods.values())
      if (pod.phase === "Pending" || pod.phase === "Running") restarts += pod.restartCount;
    return this.spec.backoffLimit === 0 ? restarts > 0 : restarts >= this.spec.backoffLimit;
  }

  /**
   * isPodFailed: Failed, or, unless only failed pods are replaced (podReplacementPolicy Failed,
   * which a podFailurePolicy implies), deleted before it succeeded.
   */
  private isPodFailed(pod: PodRecord): boolean {
    if (pod.phase === "Failed") return true;
    if (this.spec.podReplacementPolicy === "Failed") return false;
    return pod.deletedAt !== undefined && pod.phase !== "Succeeded";
  }

  private activePods(): PodRecord[] {
    return [...this.pods.values()].filter(
      (p) => (p.phase === "Pending" || p.phase === "Running") && p.deletedAt === undefined,
    );
  }

  private terminatingPods(): PodRecord[] {
    return [...this.pods.values()].filter(
      (p) => (p.phase === "Pending" || p.phase === "Running") && p.deletedAt !== undefined,
    );
  }

  private podView(pod: PodRecord) {
    return { name: pod.name, namespace: this.namespace, containers: pod.containers };
  }
}

/** Indexes as status.completedIndexes writes them: "0-2,5". */
export function formatIndexes(indexes: number[]): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}
