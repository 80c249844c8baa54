import { Chalk } from "chalk";
import t from "tap";
import { PodrunError } from "../../lib/errors.js";
import { formatFailedPodLogs, formatJobOutcome } from "../../lib/output/job-outcome.js";
import type { JobOutcome } from "../../lib/workloads/run-jobs.js";

// What `podrun up` prints of its Jobs (lib/workloads/run-jobs.ts's outcomes), byte for byte as
// run-jobs.test.ts and job.e2e.test.ts expect the lines (no colour here).

const color = new Chalk({ level: 0 });
const label = "job/migrate";
const source = "job.yaml";
const complete = { type: "Complete" as const, reason: "Completed", message: "Job completed", at: 5000 };
const failed = {
  type: "Failed" as const,
  reason: "BackoffLimitExceeded",
  message: "Job has reached the specified backoff limit",
  at: 5000,
};

const cases: { name: string; outcome: JobOutcome; stdout?: string[]; stderr?: string[] }[] = [
  {
    name: "TTL passed since the last up",
    outcome: { kind: "expired", label: "job/old (namespace batch)", removed: 2 },
    stdout: ["job/old (namespace batch): ttlSecondsAfterFinished passed; its 2 pods removed"],
  },
  {
    name: "a spec warning",
    outcome: { kind: "spec-warning", label, source, warning: "x is ignored" },
    stderr: ["job.yaml: Warning: job/migrate: x is ignored"],
  },
  {
    name: "already Complete",
    outcome: { kind: "already-finished", label, source, finished: complete, failed: false },
    stdout: [
      "job/migrate: already Complete (Completed); a finished Job is not run again (podrun down job.yaml removes it and its pods, then up runs it anew)",
    ],
  },
  {
    name: "already Failed, with --wait",
    outcome: { kind: "already-finished", label, source, finished: failed, failed: true },
    stderr: [
      "Error: BackoffLimitExceeded: job/migrate: Job has reached the specified backoff limit (already Failed; a finished Job is not run again (podrun down job.yaml removes it and its pods, then up runs it anew))",
    ],
  },
  {
    name: "one sync, a pod waiting for the back-off",
    outcome: { kind: "synced", label, source, status: { failed: 1 }, nextPodAt: Date.UTC(2026, 0, 1) },
    stdout: [
      "job/migrate: 0 active, 0 succeeded, 1 failed; the next pod after the back-off, at 2026-01-01T00:00:00.000Z (podrun up --wait job.yaml follows the Job to its end: retries need it)",
    ],
  },
  {
    name: "Complete",
    outcome: {
      kind: "finished",
      label,
      finished: complete,
      status: { succeeded: 2, failed: 1 },
      seconds: 3,
      completions: 2,
    },
    stdout: ["job/migrate: Complete: 2 of 2 succeeded, 1 failed, in 3s"],
  },
  {
    name: "Failed, with the failed pod's logs",
    outcome: {
      kind: "finished",
      label,
      finished: failed,
      status: { failed: 1 },
      seconds: 4,
      logs: { pod: "migrate-abcde", containers: [{ name: "main", lines: ["boom"] }] },
    },
    stderr: [
      "last log lines of pod/migrate-abcde[main]:",
      "  boom",
      "Error: BackoffLimitExceeded: job/migrate: Job has reached the specified backoff limit (0 succeeded, 1 failed, in 4s)",
    ],
  },
  {
    name: "TTL 0",
    outcome: { kind: "ttl-removed", label, removed: 1 },
    stdout: ["job/migrate: ttlSecondsAfterFinished 0: its pod removed"],
  },
  {
    name: "interrupted, --rm-on-interrupt",
    outcome: { kind: "interrupted", label, source, removed: 3 },
    stderr: ["podrun: interrupted; job/migrate and its 3 pods removed"],
  },
  {
    name: "interrupted, left",
    outcome: { kind: "interrupted", label, source },
    stderr: [
      "podrun: interrupted; job/migrate left with its pods (podrun up --wait job.yaml takes it up again; podrun down job.yaml removes them)",
    ],
  },
  {
    name: "timeout",
    outcome: { kind: "timeout", label, source },
    stderr: [
      "Error: Timeout: job/migrate: not finished within --timeout; its pods are left as they are (podrun up --wait job.yaml takes it up again)",
    ],
  },
  {
    name: "a pod that could not start",
    outcome: {
      kind: "pod-failed",
      label,
      outcome: {
        status: "failed",
        label: "pod/migrate-abcde",
        notes: ["removed"],
        error: new PodrunError("ErrImagePull", "no such image"),
      },
    },
    stderr: ["removed", "Error: ErrImagePull: pod/migrate-abcde of job/migrate: no such image"],
  },
  {
    name: "Ctrl-C while a pod started",
    outcome: {
      kind: "pod-failed",
      label,
      outcome: { status: "interrupted", label: "pod/migrate-abcde", notes: ["undone"] },
    },
    stderr: ["undone"],
  },
];

for (const c of cases)
  t.test(c.name, async (t) => {
    t.same(formatJobOutcome(c.outcome, { color }), { stdout: c.stdout ?? [], stderr: c.stderr ?? [] });
  });

t.test("a container without log lines", async (t) => {
  t.same(formatFailedPodLogs({ pod: "p", containers: [{ name: "main", lines: [] }] }), ["pod/p[main]: no log lines"]);
  t.same(formatFailedPodLogs(undefined), []);
});
