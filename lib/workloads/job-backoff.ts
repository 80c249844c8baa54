// The delay before a Job replaces a failed pod, as the Job controller computes it
// (https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/controller/job/backoff_utils.go):
// the failures since the last success, each doubling the delay from the last failure's finish
// time. This is not client-go's flowcontrol.Backoff (lib/state/backoff.ts): no expiry, and a
// success resets the count.

/** DefaultJobPodFailureBackOff in job_controller.go. */
export const JOB_POD_FAILURE_BACKOFF_MS = 10_000;
/** MaxJobPodFailureBackOff in job_controller.go: ten minutes in v1.34 (the six minutes some docs still give was an older cap). */
export const MAX_JOB_POD_FAILURE_BACKOFF_MS = 600_000;

export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  /** The finish time of the last failed pod, ms since the epoch. */
  lastFailureTime?: number;
}

/**
 * The record after a sync saw these pods finish (newBackoffRecord): failures add up; a success
 * resets the count to the failures that finished after it.
 */
export function nextBackoffRecord(record: BackoffRecord, newSucceeded: number[], newFailed: number[]): BackoffRecord {
  const failed = [...newFailed].sort((a, b) => a - b);
  if (newSucceeded.length === 0) {
    if (failed.length === 0) return record;
    return {
      failuresAfterLastSuccess: record.failuresAfterLastSuccess + failed.length,
      lastFailureTime: failed[failed.length - 1],
    };
  }
  const lastSuccess = Math.max(...newSucceeded);
  const after = failed.filter((t) => t > lastSuccess);
  return after.length === 0
    ? { failuresAfterLastSuccess: 0 }
    : { failuresAfterLastSuccess: after.length, lastFailureTime: after[after.length - 1] };
}

/** The back-off period after `failures` failures in a row: 10 s, 20 s, 40 s … up to the cap. */
export function backoffPeriod(failures: number): number {
  if (failures <= 0) return 0;
  let period = JOB_POD_FAILURE_BACKOFF_MS;
  for (let i = 1; i < failures; i++) {
    period *= 2;
    if (period >= MAX_JOB_POD_FAILURE_BACKOFF_MS) return MAX_JOB_POD_FAILURE_BACKOFF_MS;
  }
  return period;
}

/** How long, from `now`, pod creation must still wait (getRemainingTimeForFailuresCount); 0: none. */
export function remainingBackoff(record: BackoffRecord, now: number): number {
  if (record.failuresAfterLastSuccess === 0 || record.lastFailureTime === undefined) return 0;
  const elapsed = now - record.lastFailureTime;
  const period = backoffPeriod(record.failuresAfterLastSuccess);
  return period < elapsed ? 0 : period - elapsed;
}
