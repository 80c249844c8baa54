import type { ChalkInstance } from "chalk";
import type { JobOutcome } from "../workloads/run-jobs.js";
import type { FailedPodLogs } from "../workloads/job-pod-engine.js";
import { formatErrorLine } from "./error-line.js";

// What `podrun up` prints of its Jobs (pure), as lib/workloads/run-jobs.ts tells how each went:
// `stdout` lines go to standard output (to standard error with --json, which carries events
// only), `stderr` lines to standard error.

export interface JobOutcomeLines {
  stdout: string[];
  stderr: string[];
}

const out = (...stdout: string[]): JobOutcomeLines => ({ stdout, stderr: [] });
const err = (...stderr: string[]): JobOutcomeLines => ({ stdout: [], stderr });

export function formatJobOutcome(outcome: JobOutcome, options: { color: ChalkInstance }): JobOutcomeLines {
  const { color } = options;
  const { label } = outcome;
  switch (outcome.kind) {
    case "expired":
      return out(`${label}: ttlSecondsAfterFinished passed; ${formatPods(outcome.removed)} removed`);
    case "spec-warning":
      return err(color.yellow(`${outcome.source}: Warning: ${label}: ${outcome.warning}`));
    case "already-finished": {
      const { type, reason, message } = outcome.finished;
      const note = `a finished Job is not run again (podrun down ${outcome.source} removes it and its pods, then up runs it anew)`;
      return outcome.failed
        ? err(color.red(formatErrorLine({ reason, message: `${message} (already Failed; ${note})` }, label)))
        : out(`${label}: already ${type} (${reason}); ${note}`);
    }
    case "synced": {
      const { status, nextPodAt } = outcome;
      const next =
        nextPodAt !== undefined ? `; the next pod after the back-off, at ${new Date(nextPodAt).toISOString()}` : "";
      return out(
        `${label}: ${status.active ?? 0} active, ${status.succeeded ?? 0} succeeded, ${status.failed ?? 0} failed${next} (podrun up --wait ${outcome.source} follows the Job to its end: retries need it)`,
      );
    }
    case "finished":
      return formatFinished(outcome, color);
    case "ttl-removed":
      return out(`${label}: ttlSecondsAfterFinished 0: ${formatPods(outcome.removed)} removed`);
    case "interrupted":
      return err(
        outcome.removed !== undefined
          ? `podrun: interrupted; ${label} and its ${outcome.removed === 1 ? "pod" : `${outcome.removed} pods`} removed`
          : `podrun: interrupted; ${label} left with its pods (podrun up --wait ${outcome.source} takes it up again; podrun down ${outcome.source} removes them)`,
      );
    case "timeout": {
      const message = `not finished within --timeout; its pods are left as they are (podrun up --wait ${outcome.source} takes it up again)`;
      return err(color.red(formatErrorLine({ reason: "Timeout", message }, label)));
    }
    case "pod-failed": {
      const pod = outcome.outcome;
      if (pod.status === "interrupted") return err(...pod.notes);
      return err(...pod.notes, color.red(formatErrorLine(pod.error, `${pod.label} of ${label}`)));
    }
  }
}

/** The Job's end: Complete on standard output; Failed as the failed pod's last log lines, then the error line. */
function formatFinished(outcome: Extract<JobOutcome, { kind: "finished" }>, color: ChalkInstance): JobOutcomeLines {
  const { label, finished, status, seconds, completions } = outcome;
  if (finished.type === "Complete") {
    const failures = status.failed ? `, ${status.failed} failed` : "";
    return out(
      color.green(
        `${label}: Complete: ${status.succeeded ?? 0}${completions === undefined ? "" : ` of ${completions}`} succeeded${failures}, in ${seconds}s`,
      ),
    );
  }
  const message = `${finished.message} (${status.succeeded ?? 0} succeeded, ${status.failed ?? 0} failed, in ${seconds}s)`;
  return err(
    ...formatFailedPodLogs(outcome.logs),
    color.red(formatErrorLine({ reason: finished.reason, message }, label)),
  );
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

function formatPods(removed: number): string {
  return removed === 1 ? "its pod" : `its ${removed} pods`;
}
