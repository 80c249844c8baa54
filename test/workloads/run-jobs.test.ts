import t, { type Test } from "tap";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { up, type UpOptions } from "../../lib/commands/up.js";
import { down } from "../../lib/commands/down.js";
import { ExitError } from "../../lib/errors.js";
import { readJobRecord, writeJobRecord } from "../../lib/workloads/job-state.js";
import { createCommandWorld, type CommandWorld } from "../harness/command-io.js";

// `podrun up` of a Job against the fake engine (lib/workloads/run-jobs.ts, job-pod-engine.ts):
// the controller's events as job/<name>, Complete and Failed, a finished Job not run again,
// without --wait one sync, ttlSecondsAfterFinished. Pods exit at once here, so no back-off is
// waited for (backoffLimit 0); the retries after a back-off are job.e2e.test.ts's, on the real engines.

const JOB = (fields: { backoffLimit?: number; ttl?: number; exitCode?: number } = {}) => `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
spec:
  backoffLimit: ${fields.backoffLimit ?? 0}
${fields.ttl === undefined ? "" : `  ttlSecondsAfterFinished: ${fields.ttl}\n`}  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: busybox:1.36
          command: ["sh", "-c", "exit ${fields.exitCode ?? 0}"]
`;

async function setup(
  t: Test,
  manifest: string,
): Promise<{ world: CommandWorld; file: string; run: (extra?: Partial<UpOptions>) => Promise<void> }> {
  const world = await createCommandWorld(t);
  const file = await world.manifest("job.yaml", manifest);
  const run = (extra: Partial<UpOptions> = {}) => {
    world.nextCommand();
    return up({
      files: [file],
      publishAll: false,
      parallelPulls: 1,
      keepOnFailure: false,
      dryRun: false,
      json: false,
      ...world.io,
      ...extra,
    });
  };
  return { world, file, run };
}

const jobLines = (world: CommandWorld) => world.stdout.lines().filter((line) => line.includes("job/"));
const podNames = (world: CommandWorld) => [
  ...new Set(
    world.runtime
      .listAll()
      .map((c) => c.labels["io.kubernetes.pod.name"])
      .filter(Boolean),
  ),
];

t.test(
  "up --wait: a pod that succeeds completes the Job; the controller's events name job/<name>; a re-up does nothing",
  async (t) => {
    const { world, run } = await setup(t, JOB());
    world.runtime.script("main", { exitCode: 0 });
    await run({ wait: true });
    const lines = jobLines(world);
    t.match(lines[0], /^Normal {3}SuccessfulCreate +job\/migrate +Created pod: migrate-[a-z0-9]{5}$/);
    t.match(lines.at(-2), /^Normal {3}Completed +job\/migrate +Job completed$/);
    t.match(lines.at(-1), /^job\/migrate: Complete: 1 of 1 succeeded, in \d+s$/);
    t.equal(podNames(world).length, 1);
    const record = await readJobRecord(world.stateDir, "docker", { namespace: "default", name: "migrate" });
    t.equal(record?.finished?.type, "Complete");

    const creates = world.runtime.calls.filter((c) => c.startsWith("createSandbox")).length;
    await run({ wait: true });
    t.match(
      world.stdout.text,
      /job\/migrate: already Complete \(CompletionsReached\); a finished Job is not run again/,
    );
    t.equal(world.runtime.calls.filter((c) => c.startsWith("createSandbox")).length, creates, "no new pod");
  },
);

t.test(
  "up --wait: a Job past its backoffLimit fails with exit 1, the reason, and the failed pod's last log lines",
  async (t) => {
    const { world, run } = await setup(t, JOB({ exitCode: 3 }));
    world.runtime.script("main", { exitCode: 3, logs: ["step 1", "step 2: no database"] });
    const error = await run({ wait: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(error instanceof ExitError && error.code === 1);
    t.match(
      jobLines(world).at(-1),
      /^Warning {2}BackoffLimitExceeded +job\/migrate +Job has reached the specified backoff limit$/,
    );
    const stderr = world.stderr.lines();
    t.match(
      stderr.at(-1),
      /^Error: BackoffLimitExceeded: job\/migrate: Job has reached the specified backoff limit \(0 succeeded, 1 failed, in \d+s\)$/,
    );
    t.match(stderr.slice(-4, -1), [
      /^last log lines of pod\/migrate-[a-z0-9]{5}\[main\]:$/,
      "  step 1",
      "  step 2: no database",
    ]);
    t.equal(podNames(world).length, 1, "the failed pod stays (restartPolicy Never)");
  },
);

t.test("up without --wait: one sync of the controller creates the first pod and returns", async (t) => {
  const { world, run } = await setup(t, JOB());
  world.runtime.script("main", { runs: true });
  await run();
  t.match(jobLines(world)[0], /SuccessfulCreate +job\/migrate/);
  t.match(
    world.stdout.text,
    /job\/migrate: 1 active, 0 succeeded, 0 failed \(podrun up --wait .*job\.yaml follows the Job to its end: retries need it\)/,
  );
  t.notOk(world.stdout.text.includes("Completed"));
  // The next up adopts the pod, running still: nothing new is made.
  const creates = world.runtime.calls.filter((c) => c.startsWith("createSandbox")).length;
  await run();
  t.equal(world.runtime.calls.filter((c) => c.startsWith("createSandbox")).length, creates);
  t.match(world.stdout.text, /job\/migrate: 1 active/);
});

t.test("ttlSecondsAfterFinished 0: the Job's pods are removed as soon as it finished", async (t) => {
  const { world, run } = await setup(t, JOB({ ttl: 0 }));
  world.runtime.script("main", { exitCode: 0 });
  await run({ wait: true });
  t.match(world.stdout.text, /job\/migrate: ttlSecondsAfterFinished 0: its pod removed/);
  t.same(podNames(world), []);
  t.equal(await readJobRecord(world.stateDir, "docker", { namespace: "default", name: "migrate" }), undefined);
});

t.test(
  "ttlSecondsAfterFinished: the next up after the TTL removes the pods of a finished Job, whatever it is given",
  async (t) => {
    const { world, run, file } = await setup(t, JOB({ ttl: 60 }));
    world.runtime.script("main", { exitCode: 0 });
    await run({ wait: true });
    t.equal(podNames(world).length, 1, "kept within the TTL");
    // The record as it would be an hour later: finished long ago.
    const record = (await readJobRecord(world.stateDir, "docker", { namespace: "default", name: "migrate" }))!;
    await writeJobRecord(world.stateDir, "docker", {
      ...record,
      finished: { ...record.finished!, at: Date.now() - 3_600_000 },
    });
    const other = await world.manifest(
      "pod.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: app, image: busybox:1.36}]\n",
    );
    world.nextCommand();
    await up({
      files: [other],
      publishAll: false,
      parallelPulls: 1,
      keepOnFailure: false,
      dryRun: false,
      json: false,
      ...world.io,
    });
    t.match(world.stdout.text, /job\/migrate: ttlSecondsAfterFinished passed; its pod removed/);
    t.same(podNames(world), ["web"]);
    t.same(await readdir(join(world.stateDir, "jobs", "docker")), []);
    // Its pods gone, the Job runs anew.
    await run({ wait: true });
    t.match(world.stdout.text, /job\/migrate: Complete/);
    void file;
  },
);

t.test(
  "a failed init container is the pod's failure: counted, the Job fails with its exit and log lines",
  async (t) => {
    const manifest = JOB().replace(
      "    spec:\n      restartPolicy: Never",
      '    spec:\n      restartPolicy: Never\n      initContainers:\n        - name: prep\n          image: busybox:1.36\n          command: ["false"]',
    );
    const { world, run } = await setup(t, manifest);
    world.runtime.script("prep", { exitCode: 2, logs: ["no schema"] });
    const error = await run({ wait: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(error instanceof ExitError && error.code === 1);
    const stderr = world.stderr.lines();
    t.match(stderr.at(-1), /^Error: BackoffLimitExceeded: job\/migrate: .*\(0 succeeded, 1 failed, in \d+s\)$/);
    t.match(stderr.slice(-3, -1), [/^last log lines of pod\/migrate-[a-z0-9]{5}\[prep\]:$/, "  no schema"]);
    t.notOk(
      world.runtime.calls.some((c) => c === "createContainer main"),
      "the app container never made",
    );
    t.equal(podNames(world).length, 1, "the failed pod is kept (restartPolicy Never)");
  },
);

t.test(
  "down of the Job's file removes its pods, found by owner, and its record: the next up runs it anew",
  async (t) => {
    const { world, run, file } = await setup(t, JOB());
    world.runtime.script("main", { exitCode: 0 });
    await run({ wait: true });
    t.equal(podNames(world).length, 1);
    world.nextCommand();
    await down({ targets: [file], all: false, json: false, ...world.io });
    t.match(world.stdout.text, /pod\/migrate-[a-z0-9]{5} deleted/);
    t.same(podNames(world), []);
    t.equal(await readJobRecord(world.stateDir, "docker", { namespace: "default", name: "migrate" }), undefined);
    await run({ wait: true });
    t.match(world.stdout.text, /job\/migrate: Complete/);
  },
);

t.test("up --json: standard output holds the events only, the Job's lines go to standard error", async (t) => {
  const { world, run } = await setup(t, JOB());
  world.runtime.script("main", { exitCode: 0 });
  await run({ wait: true, json: true });
  const events = world.stdout
    .lines()
    .map(
      (line) =>
        JSON.parse(line) as { reason: string; involvedObject: { kind: string; apiVersion: string; name: string } },
    );
  const job = events.filter((e) => e.involvedObject.kind === "Job");
  t.same(
    job.map((e) => e.reason),
    ["SuccessfulCreate", "Completed"],
  );
  t.equal(job[0]!.involvedObject.apiVersion, "batch/v1");
  t.equal(job[0]!.involvedObject.name, "migrate");
  t.match(world.stderr.text, /job\/migrate: Complete: 1 of 1 succeeded/);
});

t.test(
  "activeDeadlineSeconds: the running pod is deleted, the Job fails; a re-up finds it Failed, though its pods are gone",
  async (t) => {
    const { world, run } = await setup(
      t,
      JOB().replace("  backoffLimit: 0\n", "  backoffLimit: 0\n  activeDeadlineSeconds: 1\n"),
    );
    world.runtime.script("main", { runs: true, logs: ["still migrating"] });
    const failure = await run({ wait: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(failure instanceof ExitError && failure.code === 1);
    t.same(
      jobLines(world).map((line) => line.split(/ {2,}/)[1]),
      ["SuccessfulCreate", "SuccessfulDelete", "DeadlineExceeded"],
    );
    t.match(
      world.stderr.text,
      /last log lines of pod\/migrate-[a-z0-9]{5}\[main\]:\n {2}still migrating\nError: DeadlineExceeded: job\/migrate: Job was active longer than specified deadline/,
    );
    t.same(podNames(world), [], "the controller deleted its pod");

    const again = await run({ wait: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(again instanceof ExitError && again.code === 1, "still Failed: exit 1 with --wait");
    t.match(
      world.stderr.lines().at(-1),
      /^Error: DeadlineExceeded: job\/migrate: Job was active longer than specified deadline \(already Failed; a finished Job is not run again/,
    );
    t.same(podNames(world), []);
  },
);
