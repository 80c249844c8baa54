import t from "tap";
import type { Job } from "kubernetes-types/batch/v1.js";
import { FakeClock, T0, after } from "../harness/fake-clock.js";
import { JobController, type JobObservation, type PodToCreate } from "../../lib/workloads/job-controller.js";
import { runJob, type JobPodEngine } from "../../lib/workloads/job-loop.js";

// The `up --wait` loop of a Job (lib/workloads/job-loop.ts) over fake pods and a fake clock: the
// controller's decisions carried out, its wake-ups honoured, observations never lost.

type Script = { runs: number; exitCode: number } | "hangs";

class FakePods implements JobPodEngine {
  readonly log: string[] = [];
  private seen: JobObservation[] = [];
  private wake?: () => void;
  private readonly deleted = new Set<string>();
  private count = 0;
  constructor(
    private readonly clock: FakeClock,
    private readonly script: (n: number) => Script,
  ) {}

  async create(pod: PodToCreate) {
    const behaviour = this.script(this.count++);
    this.log.push(`${this.clock.seconds}s create ${pod.name}`);
    this.push({ kind: "started", pod: pod.name, at: this.clock.now() });
    if (behaviour === "hangs") return;
    void this.clock.sleep(behaviour.runs * 1000).then(() => {
      if (!this.deleted.has(pod.name))
        this.push({
          kind: "exited",
          pod: pod.name,
          containers: [{ name: "main", exitCode: behaviour.exitCode }],
          at: this.clock.now(),
        });
    });
  }

  async delete(name: string) {
    this.deleted.add(name);
    this.log.push(`${this.clock.seconds}s delete ${name}`);
    void this.clock.sleep(1000).then(() => this.push({ kind: "gone", pod: name, at: this.clock.now() }));
  }

  // An aborted watch hands over nothing: what arrives afterwards waits for the next call.
  watch(signal: AbortSignal): Promise<JobObservation[]> {
    return new Promise((resolve) => {
      const done = (observations: JobObservation[]) => {
        this.wake = undefined;
        signal.removeEventListener("abort", onAbort);
        resolve(observations);
      };
      const onAbort = () => done([]);
      if (this.seen.length > 0) return done(this.seen.splice(0));
      if (signal.aborted) return resolve([]);
      this.wake = () => done(this.seen.splice(0));
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private push(observation: JobObservation) {
    this.seen.push(observation);
    this.wake?.();
  }
}

const job = (spec: Record<string, unknown>): Job => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "migrate", namespace: "ci" },
  spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "main", image: "busybox" }] } }, ...spec },
});

function start(spec: Record<string, unknown>, script: (n: number) => Script, signal?: AbortSignal) {
  const clock = new FakeClock();
  const pods = new FakePods(clock, script);
  let n = 0;
  const controller = new JobController({ job: job(spec), podName: () => `migrate-p${n++}` });
  const events: string[] = [];
  const outcome = runJob(controller, pods, {
    clock,
    signal,
    onEvent: (e) => events.push(`${(e.at - T0) / 1000}s ${e.reason}: ${e.message}`),
  });
  return { clock, pods, events, outcome };
}

t.test("fails twice, then succeeds: the loop sleeps through each back-off and returns Complete", async (t) => {
  const { clock, pods, events, outcome } = start({ backoffLimit: 3 }, (n) => ({ runs: 1, exitCode: n < 2 ? 1 : 0 }));
  t.equal(await after(clock, 30, outcome), "pending");
  const result = await after(clock, 10, outcome);
  t.match(result, { outcome: "Complete", reason: "CompletionsReached", status: { succeeded: 1, failed: 2 } });
  t.strictSame(pods.log, ["0s create migrate-p0", "11s create migrate-p1", "32s create migrate-p2"]);
  t.strictSame(events, [
    "0s SuccessfulCreate: Created pod: migrate-p0",
    "11s SuccessfulCreate: Created pod: migrate-p1",
    "32s SuccessfulCreate: Created pod: migrate-p2",
    "33s Completed: Job completed",
  ]);
});

t.test("exceeds backoffLimit: Failed, BackoffLimitExceeded", async (t) => {
  const { clock, outcome, events } = start({ backoffLimit: 1 }, () => ({ runs: 1, exitCode: 1 }));
  t.match(await after(clock, 60, outcome), {
    outcome: "Failed",
    reason: "BackoffLimitExceeded",
    message: "Job has reached the specified backoff limit",
    status: { failed: 2 },
  });
  t.equal(events.at(-1), "12s BackoffLimitExceeded: Job has reached the specified backoff limit");
});

t.test(
  "activeDeadlineSeconds: woken at the deadline with nothing observed, the pod deleted, Failed when it is gone",
  async (t) => {
    const { clock, pods, outcome, events } = start({ activeDeadlineSeconds: 20 }, () => "hangs");
    t.equal(await after(clock, 19, outcome), "pending");
    t.match(await after(clock, 5, outcome), { outcome: "Failed", reason: "DeadlineExceeded" });
    t.strictSame(pods.log, ["0s create migrate-p0", "20s delete migrate-p0"]);
    t.equal(events.at(-1), "21s DeadlineExceeded: Job was active longer than specified deadline");
  },
);

t.test("interrupted: the loop returns with the status so far", async (t) => {
  const interrupt = new AbortController();
  const { clock, outcome } = start({}, () => "hangs", interrupt.signal);
  t.equal(await after(clock, 5, outcome), "pending");
  interrupt.abort();
  t.match(await after(clock, 0, outcome), { outcome: "interrupted", status: { active: 1 } });
});

t.test("news that arrives with the wake-up is not lost", async (t) => {
  // The pod's exit and the active deadline fall at the same second, and the wake-up fires first.
  const clock = new FakeClock();
  let calls = 0;
  const engine: JobPodEngine = {
    create: async () => {},
    delete: async () => {},
    watch: async (signal) => {
      if (calls++ > 0)
        return new Promise((resolve) => signal.addEventListener("abort", () => resolve([]), { once: true }));
      await Promise.resolve();
      await clock.sleep(1000);
      return [{ kind: "exited", pod: "p", containers: [{ name: "main", exitCode: 0 }], at: clock.now() }];
    },
  };
  const controller = new JobController({ job: job({ activeDeadlineSeconds: 1 }), podName: () => "p" });
  const outcome = runJob(controller, engine, { clock });
  t.match(
    await after(clock, 2, outcome),
    { outcome: "Failed", reason: "DeadlineExceeded", status: { succeeded: 1, active: 0 } },
    "the success is counted (the deadline, checked first, still fails the Job, as in the controller)",
  );
});
