import t from "tap";
import type { Job, JobSpec } from "kubernetes-types/batch/v1.js";
import { T0 } from "../harness/fake-clock.js";
import {
  JobController,
  defaultJobSpec,
  formatIndexes,
  jobSpecWarnings,
  type JobDecision,
  type JobObservation,
} from "../../lib/workloads/job-controller.js";

// The Job controller as a pure state machine (lib/workloads/job-controller.ts): each test drives it
// as `up --wait` will, with the engine simulated: every pod the controller asks for runs for a
// scripted time and exits with a scripted code; a deleted pod is gone after a 1 s grace period.
// Time is fake (T0 + seconds); the log lists the controller's events with their second.

type Script = { runs: number; exitCode: number } | "hangs";

function job(spec: Partial<JobSpec>, name = "migrate"): Job {
  const template = { spec: { restartPolicy: "Never", containers: [{ name: "main", image: "busybox" }] } };
  return { apiVersion: "batch/v1", kind: "Job", metadata: { name, namespace: "ci" }, spec: { template, ...spec } };
}

/** Runs the Job to its end (or `until` seconds) and returns the controller, its log and the pods. */
function simulate(
  j: Job,
  script: (n: number, index?: number) => Script,
  options: { until?: number; grace?: number } = {},
) {
  let podNo = 0;
  const names = new Map<string, number>();
  const controller = new JobController({
    job: j,
    podName: ({ index }) => `${j.metadata!.name}-${index === undefined ? "" : `${index}-`}p${podNo++}`,
  });
  const queue: JobObservation[] = [];
  const log: string[] = [];
  const created: { name: string; at: number; index?: number }[] = [];
  let maxActive = 0;
  let now = T0;
  const until = T0 + (options.until ?? 3600) * 1000;
  for (let step = 0; step < 1000; step++) {
    const decision: JobDecision = controller.sync(now);
    for (const e of decision.events) log.push(`${(e.at - T0) / 1000}s ${e.type} ${e.reason}: ${e.message}`);
    for (const pod of decision.create) {
      const n = names.size;
      names.set(pod.name, n);
      created.push({ ...pod, at: (now - T0) / 1000 });
      queue.push({ kind: "started", pod: pod.name, at: now });
      const behaviour = script(n, pod.index);
      if (behaviour !== "hangs")
        queue.push({
          kind: "exited",
          pod: pod.name,
          containers: [{ name: "main", exitCode: behaviour.exitCode }],
          at: now + behaviour.runs * 1000,
        });
    }
    for (const name of decision.delete) {
      // The engine stops it: whatever it was going to do, it is gone after the grace period.
      for (let i = queue.length - 1; i >= 0; i--)
        if (queue[i]!.pod === name && queue[i]!.kind === "exited") queue.splice(i, 1);
      queue.push({ kind: "gone", pod: name, at: now + (options.grace ?? 1) * 1000 });
    }
    maxActive = Math.max(maxActive, controller.status().active ?? 0);
    if (controller.finished) break;
    const next = Math.min(decision.wakeAt ?? Infinity, ...queue.map((o) => o.at));
    if (next === Infinity || next > until) break;
    now = Math.max(now, next);
    for (const o of queue.filter((x) => x.at <= now)) controller.observe(o);
    queue.splice(0, queue.length, ...queue.filter((x) => x.at > now));
  }
  return { controller, log, created, maxActive, now: (now - T0) / 1000 };
}

const fails = (exitCode = 1, runs = 1): Script => ({ runs, exitCode });
const succeeds = (runs = 1): Script => ({ runs, exitCode: 0 });

t.test("fails twice, then succeeds within backoffLimit 3: replaced after 10 s, then 20 s", async (t) => {
  const { controller, log, created } = simulate(job({ backoffLimit: 3 }), (n) => (n < 2 ? fails() : succeeds()));
  t.same(
    created.map((p) => p.at),
    [0, 11, 32],
    "each replacement waits the back-off from the failed pod's finish",
  );
  t.strictSame(log, [
    "0s Normal SuccessfulCreate: Created pod: migrate-p0",
    "11s Normal SuccessfulCreate: Created pod: migrate-p1",
    "32s Normal SuccessfulCreate: Created pod: migrate-p2",
    "33s Normal Completed: Job completed",
  ]);
  const status = controller.status();
  t.match(status, {
    active: 0,
    succeeded: 1,
    failed: 2,
    terminating: 0,
    startTime: "2025-03-01T12:00:00Z",
    completionTime: "2025-03-01T12:00:33Z",
  });
  t.same(
    status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ["SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods"],
      ["Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods"],
    ],
  );
  t.match(controller.finished, { type: "Complete", reason: "CompletionsReached" });
  t.same(controller.sync(T0 + 60_000), { create: [], delete: [], events: [] }, "a finished Job does nothing more");
});

t.test("exceeds its backoffLimit: backoffLimit + 1 failed pods, then BackoffLimitExceeded", async (t) => {
  const { controller, log, created } = simulate(job({ backoffLimit: 2 }), () => fails());
  t.same(
    created.map((p) => p.at),
    [0, 11, 32],
  );
  t.equal(log.at(-1), "33s Warning BackoffLimitExceeded: Job has reached the specified backoff limit");
  t.match(controller.status(), { active: 0, succeeded: 0, failed: 3 });
  t.same(
    controller.status().conditions?.map((c) => [c.type, c.reason, c.message]),
    [
      ["FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit"],
      ["Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit"],
    ],
  );
  t.equal(controller.status().completionTime, undefined, "only a Complete Job has a completionTime");

  const once = simulate(job({ backoffLimit: 0 }), () => fails());
  t.equal(once.created.length, 1, "backoffLimit 0: the first failure fails the Job");
  t.match(once.controller.finished, { type: "Failed", reason: "BackoffLimitExceeded" });

  const byDefault = simulate(job({}), () => fails());
  t.equal(byDefault.created.length, 7, "backoffLimit defaults to 6");
  t.same(
    byDefault.created.map((p) => p.at),
    [0, 11, 32, 73, 154, 315, 636],
    "10, 20, 40, 80, 160, 320 s",
  );
});

t.test("parallelism 2, completions 3: two at a time, never more pods than completions left", async (t) => {
  const runs = [5, 7, 3];
  const { controller, log, created, maxActive } = simulate(job({ parallelism: 2, completions: 3 }), (n) =>
    succeeds(runs[n]),
  );
  t.same(
    created.map((p) => p.at),
    [0, 0, 5],
    "the third starts when the first succeeds",
  );
  t.equal(maxActive, 2);
  t.equal(log.at(-1), "8s Normal Completed: Job completed", "complete when the last one succeeds");
  t.match(controller.status(), { succeeded: 3, failed: 0, active: 0 });

  const oneLeft = simulate(job({ parallelism: 3, completions: 2 }), () => succeeds());
  t.equal(oneLeft.created.length, 2, "parallelism above completions: only as many pods as completions");
});

t.test("a failure among parallel pods: the back-off holds the replacement, the others keep running", async (t) => {
  const { created, controller } = simulate(job({ parallelism: 2, completions: 2, backoffLimit: 1 }), (n) =>
    n === 0 ? fails(1, 2) : succeeds(30),
  );
  t.same(
    created.map((p) => p.at),
    [0, 0, 12],
  );
  t.match(controller.status(), { succeeded: 2, failed: 1 });
});

t.test("activeDeadlineSeconds: the running pod is deleted, Failed once it is gone", async (t) => {
  const { controller, log, now } = simulate(job({ activeDeadlineSeconds: 30 }), () => "hangs", { grace: 2 });
  t.strictSame(log, [
    "0s Normal SuccessfulCreate: Created pod: migrate-p0",
    "30s Normal SuccessfulDelete: Deleted pod: migrate-p0",
    "32s Warning DeadlineExceeded: Job was active longer than specified deadline",
  ]);
  t.equal(now, 32);
  t.match(controller.status(), { active: 0, failed: 1, terminating: 0 }, "the deleted pod counts as failed");
  t.same(
    controller.status().conditions?.map((c) => [c.type, c.reason, c.lastTransitionTime]),
    [
      ["FailureTarget", "DeadlineExceeded", "2025-03-01T12:00:30Z"],
      ["Failed", "DeadlineExceeded", "2025-03-01T12:00:32Z"],
    ],
  );

  // Between FailureTarget and Failed: the pod is terminating, the Job not finished yet.
  const c = new JobController({ job: job({ activeDeadlineSeconds: 30 }), podName: () => "p" });
  t.same(c.sync(T0).wakeAt, T0 + 30_000, "a sync before the deadline asks to be woken at it");
  c.observe({ kind: "started", pod: "p", at: T0 + 1000 });
  t.same(c.sync(T0 + 29_000).wakeAt, T0 + 30_000);
  const atDeadline = c.sync(T0 + 30_000);
  t.same(atDeadline.delete, ["p"]);
  t.match(c.status(), { active: 0, terminating: 1, failed: 1 });
  t.equal(c.finished, undefined);
  t.same(c.sync(T0 + 31_000), { create: [], delete: [], events: [] }, "nothing new while it terminates");
  c.observe({ kind: "exited", pod: "p", containers: [{ name: "main", exitCode: 137 }], at: T0 + 31_500 });
  t.match(c.sync(T0 + 31_500).events, [{ reason: "DeadlineExceeded", type: "Warning" }]);
  t.match(c.status(), { failed: 1, terminating: 0 }, "counted once");
});

t.test("activeDeadlineSeconds passes during a back-off: no new pod, DeadlineExceeded", async (t) => {
  const { controller, log, created } = simulate(job({ activeDeadlineSeconds: 15, backoffLimit: 5 }), () => fails());
  t.same(
    created.map((p) => p.at),
    [0, 11],
  );
  t.equal(
    log.at(-1),
    "15s Warning DeadlineExceeded: Job was active longer than specified deadline",
    "woken at the deadline, not at the end of the 20 s back-off",
  );
  t.match(controller.status(), { failed: 2, active: 0 }, "no pod was running: nothing to delete");
});

t.test("podFailurePolicy FailJob: the Job fails at the first matching exit code, whatever backoffLimit", async (t) => {
  const policy = { rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [42] } }] };
  const { controller, log, created } = simulate(job({ backoffLimit: 6, podFailurePolicy: policy }), (n) =>
    n === 0 ? fails(1) : fails(42),
  );
  t.equal(created.length, 2, "exit 1 matches no rule: counted, retried");
  const message = "Container main for pod ci/migrate-p1 failed with exit code 42 matching FailJob rule at index 0";
  t.equal(log.at(-1), `12s Warning PodFailurePolicy: ${message}`);
  t.same(
    controller.status().conditions?.map((c) => [c.type, c.reason, c.message]),
    [
      ["FailureTarget", "PodFailurePolicy", message],
      ["Failed", "PodFailurePolicy", message],
    ],
  );
  t.match(controller.status(), { failed: 2 });

  const notIn = { rules: [{ action: "FailJob", onExitCodes: { operator: "NotIn", values: [1, 2] } }] };
  const r = simulate(job({ podFailurePolicy: notIn }), (n) => (n === 0 ? fails(2) : fails(3)));
  t.equal(r.created.length, 2, "NotIn: 2 is retried, 3 fails the Job");
  t.match(r.controller.finished, {
    reason: "PodFailurePolicy",
    message: /exit code 3 matching FailJob rule at index 0$/,
  });
});

t.test("podFailurePolicy FailJob with parallel pods: the others are deleted first", async (t) => {
  const policy = { rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [42] } }] };
  const { controller, log } = simulate(
    job({ parallelism: 2, completions: 2, podFailurePolicy: policy }),
    (n) => (n === 0 ? fails(42, 1) : "hangs"),
    { grace: 3 },
  );
  t.strictSame(log.slice(2), [
    "1s Normal SuccessfulDelete: Deleted pod: migrate-p1",
    "4s Warning PodFailurePolicy: Container main for pod ci/migrate-p0 failed with exit code 42 matching FailJob rule at index 0",
  ]);
  t.match(controller.status(), { failed: 2, active: 0, terminating: 0 });
});

t.test("podFailurePolicy Ignore: not counted towards backoffLimit, but the back-off still applies", async (t) => {
  const policy = { rules: [{ action: "Ignore", onExitCodes: { operator: "In", values: [143] } }] };
  const { controller, created } = simulate(job({ backoffLimit: 0, podFailurePolicy: policy }), (n) =>
    n < 2 ? fails(143) : succeeds(),
  );
  t.same(
    created.map((p) => p.at),
    [0, 11, 32],
  );
  t.match(controller.status(), { succeeded: 1, failed: 0 });
  t.match(controller.finished, { type: "Complete" });
});

t.test("podFailurePolicy Count, and the first matching rule wins", async (t) => {
  const policy = {
    rules: [
      { action: "Count", onExitCodes: { operator: "In", values: [5] } },
      { action: "FailJob", onExitCodes: { operator: "In", values: [5] } },
    ],
  };
  const { controller, created } = simulate(job({ backoffLimit: 1, podFailurePolicy: policy }), () => fails(5));
  t.equal(created.length, 2, "Count matched first: counted as an ordinary failure");
  t.match(controller.finished, { type: "Failed", reason: "BackoffLimitExceeded" });
  t.match(controller.status(), { failed: 2 });
});

t.test(
  "a podFailurePolicy implies podReplacementPolicy Failed: a deleted pod is counted when it is gone",
  async (t) => {
    t.equal(defaultJobSpec(job({ podFailurePolicy: { rules: [] } }).spec!).podReplacementPolicy, "Failed");
    t.equal(defaultJobSpec(job({}).spec!).podReplacementPolicy, "TerminatingOrFailed");
    const ignore143 = { rules: [{ action: "Ignore", onExitCodes: { operator: "In", values: [143] } }] };
    const c = new JobController({
      job: job({ activeDeadlineSeconds: 5, podFailurePolicy: ignore143 }),
      podName: () => "p",
    });
    c.sync(T0);
    c.sync(T0 + 5000);
    t.match(c.status(), { failed: 1, terminating: 1 }, "the Job is failing: its running pod counts as failed at once");
  },
);

t.test("the back-off runs from the failed pod's finish, not from when it was seen", async (t) => {
  let n = 0;
  const c = new JobController({ job: job({}), podName: () => `p${n++}` });
  const [first] = c.sync(T0).create;
  c.observe({ kind: "exited", pod: first!.name, containers: [{ name: "main", exitCode: 1 }], at: T0 + 1000 });
  const late = c.sync(T0 + 6000);
  t.same(late.create, []);
  t.equal(late.wakeAt, T0 + 11_000);
  t.equal(c.sync(T0 + 11_000).create.length, 1);
});

t.test("a success resets the back-off", async (t) => {
  // A success that finishes after a failure wipes that failure from the back-off record.
  // completions 3, one at a time: fail, succeed, fail, succeed, succeed.
  const plan = [fails(), succeeds(), fails(), succeeds(), succeeds()];
  const { created, controller } = simulate(job({ completions: 3 }), (n) => plan[n]!);
  t.same(
    created.map((p) => p.at),
    [0, 11, 12, 23, 24],
    "the failure after a success waits 10 s again, not 20 s",
  );
  t.match(controller.status(), { succeeded: 3, failed: 2 });
});

t.test("completionMode Indexed: one pod per index, a failed index retried with the same index", async (t) => {
  const { controller, created } = simulate(job({ completionMode: "Indexed", completions: 3, parallelism: 2 }), (n) =>
    n === 0 ? succeeds(30) : n === 1 ? fails() : succeeds(2),
  );
  t.same(
    created.map((p) => [p.name, p.index, p.at]),
    [
      ["migrate-0-p0", 0, 0],
      ["migrate-1-p1", 1, 0],
      ["migrate-1-p2", 1, 11],
      ["migrate-2-p3", 2, 13],
    ],
    "the lowest index neither succeeded nor running comes first",
  );
  t.match(controller.status(), { succeeded: 3, failed: 1, completedIndexes: "0-2" });
  t.equal(formatIndexes([5, 0, 1, 2, 7, 8]), "0-2,5,7-8");
});

t.test("no completions (a work queue): complete once a pod succeeded and none is left running", async (t) => {
  const { controller, created, log } = simulate(job({ parallelism: 2 }), (n) => succeeds(n === 0 ? 2 : 5));
  t.equal(created.length, 2, "no new pod after the first success");
  t.equal(log.at(-1), "5s Normal Completed: Job completed");
  t.match(controller.status(), { succeeded: 2 });
});

t.test("restartPolicy OnFailure: the restarts of running pods count towards backoffLimit", async (t) => {
  const onFailure = job({ backoffLimit: 2 });
  onFailure.spec!.template.spec!.restartPolicy = "OnFailure";
  const c = new JobController({ job: onFailure, podName: () => "p" });
  c.sync(T0);
  c.observe({ kind: "started", pod: "p", at: T0 });
  c.observe({ kind: "restarted", pod: "p", restartCount: 1, at: T0 + 5000 });
  t.same(c.sync(T0 + 5000).delete, []);
  c.observe({ kind: "restarted", pod: "p", restartCount: 2, at: T0 + 20_000 });
  const decision = c.sync(T0 + 20_000);
  t.same(decision.delete, ["p"]);
  t.match(c.status().conditions, [{ type: "FailureTarget", reason: "BackoffLimitExceeded" }]);
  c.observe({ kind: "gone", pod: "p", at: T0 + 21_000 });
  t.match(c.sync(T0 + 21_000).events, [{ reason: "BackoffLimitExceeded" }]);
});

t.test("ttlSecondsAfterFinished: when the Job and its pods are due for removal", async (t) => {
  const { controller } = simulate(job({ ttlSecondsAfterFinished: 100 }), () => succeeds(4));
  t.equal(controller.expiresAt, T0 + 104_000);
  t.equal(simulate(job({}), () => succeeds()).controller.expiresAt, undefined, "no TTL: kept");
  const unfinished = new JobController({ job: job({ ttlSecondsAfterFinished: 0 }), podName: () => "p" });
  unfinished.sync(T0);
  t.equal(unfinished.expiresAt, undefined, "only a finished Job expires");
});

t.test("observations about unknown or finished pods change nothing", async (t) => {
  const c = new JobController({ job: job({}), podName: () => "p" });
  c.sync(T0);
  c.observe({ kind: "exited", pod: "other", containers: [{ name: "main", exitCode: 1 }], at: T0 });
  c.observe({ kind: "exited", pod: "p", containers: [{ name: "main", exitCode: 0 }], at: T0 + 1000 });
  c.observe({ kind: "gone", pod: "p", at: T0 + 2000 });
  c.sync(T0 + 2000);
  t.match(c.status(), { succeeded: 1, failed: 0 });
});

t.test("defaults as the API server applies them", async (t) => {
  t.match(defaultJobSpec(job({}).spec!), {
    completions: 1,
    parallelism: 1,
    backoffLimit: 6,
    completionMode: "NonIndexed",
  });
  t.match(defaultJobSpec(job({ parallelism: 3 }).spec!), { completions: undefined, parallelism: 3 });
  t.match(defaultJobSpec(job({ completions: 4 }).spec!), { completions: 4, parallelism: 1 });
});

t.test("jobSpecWarnings names each field the controller does not act on", async (t) => {
  t.same(jobSpecWarnings(job({ backoffLimit: 1, activeDeadlineSeconds: 3 }).spec!), []);
  t.same(
    jobSpecWarnings(
      job({
        suspend: true,
        podFailurePolicy: {
          rules: [
            { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
            { action: "FailIndex", onExitCodes: { operator: "In", values: [1] } },
          ],
        },
      }).spec!,
    ),
    [
      "spec.suspend: ignored: podrun runs the Job when it is given (a suspended Job would never start)",
      "spec.podFailurePolicy.rules[0].onPodConditions: never matches on one machine: no eviction, preemption or disruption sets those pod conditions",
      "spec.podFailurePolicy.rules[1].action: FailIndex needs backoffLimitPerIndex; the rule is skipped",
    ],
  );
});

t.test(
  "a later command picks the Job up again from its pods: counters, back-off and deadline carry over",
  async (t) => {
    const c = new JobController({
      job: job({ backoffLimit: 3, activeDeadlineSeconds: 600 }),
      podName: () => "migrate-p2",
      startTime: T0,
    });
    c.adopt({ name: "migrate-p0" });
    c.adopt({ name: "migrate-p1" });
    c.observe({ kind: "exited", pod: "migrate-p0", containers: [{ name: "main", exitCode: 1 }], at: T0 + 1000 });
    c.observe({ kind: "exited", pod: "migrate-p1", containers: [{ name: "main", exitCode: 1 }], at: T0 + 12_000 });
    const first = c.sync(T0 + 20_000);
    t.same(first.create, [], "two failures in a row: 20 s from the last one's finish");
    t.equal(first.wakeAt, T0 + 32_000);
    t.match(c.status(), { failed: 2, active: 0, startTime: "2025-03-01T12:00:00Z" });
    t.same(c.sync(T0 + 32_000).create, [{ name: "migrate-p2" }]);
    t.equal(c.sync(T0 + 33_000).wakeAt, T0 + 600_000, "the deadline still runs from the first start");
  },
);
