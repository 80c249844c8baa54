import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { engineBlind, requirePodEngine } from "../harness/engine.js";
import { BUSYBOX, uniqueName } from "../harness/engine-pod.js";

// `podrun up --wait` of a batch/v1 Job on docker and podman (lib/workloads/run-jobs.ts): a Job
// whose pod fails once, then succeeds (the attempts counted in a hostPath directory) completes
// within backoffLimit 3 after the controller's real back-off of 10 s, with its events in order
// (the doubling after further failures is the same loop on a fake clock: job-loop.test.ts,
// job-backoff.test.ts); a Job past backoffLimit 1 fails with exit 1, BackoffLimitExceeded and
// the failed pod's last log lines; activeDeadlineSeconds, ttlSecondsAfterFinished 0 and a
// podFailurePolicy rule end a Job as the controller does. The cases run at once: most of their
// time is the back-off.

t.jobs = 8;

function job(name: string, fields: { backoffLimit: number; script: string; countDir?: string }): string {
  const mount = fields.countDir
    ? `        volumeMounts:\n        - {name: count, mountPath: /count}\n      volumes:\n      - name: count\n        hostPath: {path: ${fields.countDir}, type: Directory}\n`
    : "";
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
  backoffLimit: ${fields.backoffLimit}
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 1
      containers:
      - name: main
        image: ${BUSYBOX}
        command: [sh, -c, ${JSON.stringify(fields.script)}]
${mount}`;
}

interface JobWorld {
  dir: string;
  file: string;
  cli: (...args: string[]) => ReturnType<typeof runCli>;
  /** Pod names the Job's events said were created. */
  created: (stdout: string) => string[];
}

async function setup(
  t: Test,
  runtime: RuntimeName,
  name: string,
  manifest: (dir: string) => string,
): Promise<JobWorld | undefined> {
  if (!(await requirePodEngine(t, runtime))) return undefined;
  const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-job-"));
  const file = join(dir, "job.yaml");
  await writeFile(file, manifest(dir));
  const env = { PODRUN_STATE_DIR: join(dir, "state") };
  const cli = (...args: string[]) => runCli([...args, "--runtime", runtime, file], { env, timeoutMs: 150_000 });
  const created = (stdout: string) =>
    [...stdout.matchAll(new RegExp(`Created pod: (${name}-[a-z0-9]{5})`, "g"))].map((m) => m[1]!);
  const seen = new Set<string>();
  t.teardown(async () => {
    await cli("down").catch(() => undefined);
    for (const pod of seen) await removeManagedContainers(runtime, { "io.kubernetes.pod.name": pod });
    await rm(dir, { recursive: true, force: true });
  });
  return {
    dir,
    file,
    cli,
    created: (stdout) => {
      const names = created(stdout);
      for (const pod of names) seen.add(pod);
      return names;
    },
  };
}

/** The Job's own event lines (`Normal  SuccessfulCreate  job/x  …`) as `Reason message`. */
function jobEvents(stdout: string, name: string): string[] {
  return stdout
    .split("\n")
    .map((line) => new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}(?:Normal|Warning) +(\\S+) +job/${name} +(.*)$`).exec(line))
    .flatMap((m) => (m ? [`${m[1]} ${m[2]}`] : []));
}

async function exitCodes(runtime: RuntimeName, pods: string[]): Promise<number[]> {
  const codes: number[] = [];
  for (const pod of pods) {
    const result = await runCommand(runtime, ["inspect", "--format", "{{.State.ExitCode}}", `default_${pod}_main`]);
    codes.push(Number(result.stdout.trim()));
  }
  return codes;
}

async function retryTest(t: Test, runtime: RuntimeName): Promise<void> {
  const name = uniqueName("jobok");
  const world = await setup(t, runtime, name, (dir) => {
    return job(name, {
      backoffLimit: 3,
      countDir: join(dir, "count"),
      script: "echo x >> /count/attempts; n=$(wc -l < /count/attempts); echo attempt $n; [ $n -ge 2 ]",
    });
  });
  if (!world) return;
  await mkdir(join(world.dir, "count"));
  const started = Date.now();
  const result = await world.cli("up", "--wait");
  const seconds = (Date.now() - started) / 1000;
  t.equal(result.exitCode, 0, result.stderr);
  const pods = world.created(result.stdout);
  t.equal(pods.length, 2);
  t.same(
    jobEvents(result.stdout, name),
    [...pods.map((pod) => `SuccessfulCreate Created pod: ${pod}`), "Completed Job completed"],
    "events in order",
  );
  t.match(result.stdout, new RegExp(`job/${name}: Complete: 1 of 1 succeeded, 1 failed, in \\d+s`));
  // The back-off: 10 s after the first failure.
  t.ok(seconds >= 10, `took ${seconds}s: the back-off was waited for`);
  // restartPolicy Never: the failed pod stays, exited, beside the one that succeeded.
  t.same(await exitCodes(runtime, pods), [1, 0]);

  // A finished Job is not run again.
  const again = await world.cli("up", "--wait");
  t.equal(again.exitCode, 0, again.stderr);
  t.match(again.stdout, new RegExp(`job/${name}: already Complete`));
  t.same(world.created(again.stdout), []);

  const down = await world.cli("down");
  t.equal(down.exitCode, 0, down.stderr);
  const left = await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.podrun.owner=Job/${name}`]);
  t.equal(left.stdout.trim(), "", "down removed every pod of the Job");
}

async function backoffLimitTest(t: Test, runtime: RuntimeName): Promise<void> {
  const name = uniqueName("jobfail");
  const world = await setup(t, runtime, name, () =>
    job(name, {
      backoffLimit: 1,
      script: "for i in $(seq 1 15); do echo line $i; done; sleep 1; echo cannot reach the database >&2; exit 4",
    }),
  );
  if (!world) return;
  const result = await world.cli("up", "--wait");
  t.equal(result.exitCode, 1);
  const pods = world.created(result.stdout);
  t.equal(pods.length, 2, "the first pod and one retry");
  t.same(jobEvents(result.stdout, name), [
    ...pods.map((pod) => `SuccessfulCreate Created pod: ${pod}`),
    "BackoffLimitExceeded Job has reached the specified backoff limit",
  ]);
  const stderr = result.stderr.trimEnd().split("\n");
  t.match(
    stderr.at(-1),
    new RegExp(
      `^Error: BackoffLimitExceeded: job/${name}: Job has reached the specified backoff limit \\(0 succeeded, 2 failed, in \\d+s\\)$`,
    ),
  );
  // The last failed pod's last ten lines, stdout and stderr together (the engines stamp each
  // stream's lines as they read them: the pause keeps the stderr line last).
  t.equal(stderr.at(-12), `last log lines of pod/${pods[1]}[main]:`);
  t.same(
    stderr.slice(-11, -1).map((line) => line.trim()),
    [
      "line 7",
      "line 8",
      "line 9",
      "line 10",
      "line 11",
      "line 12",
      "line 13",
      "line 14",
      "line 15",
      "cannot reach the database",
    ],
  );
  t.same(await exitCodes(runtime, pods), [4, 4]);
}

async function deadlineAndPolicyTest(t: Test, runtime: RuntimeName): Promise<void> {
  // activeDeadlineSeconds: the running pod is deleted, the Job fails with DeadlineExceeded.
  const late = uniqueName("joblate");
  const deadline = await setup(t, runtime, late, () =>
    job(late, { backoffLimit: 6, script: "exec sleep 600" }).replace(
      "  backoffLimit: 6\n",
      "  backoffLimit: 6\n  activeDeadlineSeconds: 3\n",
    ),
  );
  if (!deadline) return;
  const result = await deadline.cli("up", "--wait");
  t.equal(result.exitCode, 1);
  const [pod] = deadline.created(result.stdout);
  t.same(jobEvents(result.stdout, late), [
    `SuccessfulCreate Created pod: ${pod}`,
    `SuccessfulDelete Deleted pod: ${pod}`,
    "DeadlineExceeded Job was active longer than specified deadline",
  ]);
  t.match(
    result.stderr,
    new RegExp(`Error: DeadlineExceeded: job/${late}: Job was active longer than specified deadline`),
  );
  const left = await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.podrun.owner=Job/${late}`]);
  t.equal(left.stdout.trim(), "", "the deleted pod is gone");

  // podFailurePolicy: a FailJob rule on the exit code ends the Job at the first failure, whatever
  // backoffLimit says; with ttlSecondsAfterFinished 0 its failed pod goes as soon as it has finished.
  const fatal = uniqueName("jobfatal");
  const policy = await setup(t, runtime, fatal, () =>
    job(fatal, { backoffLimit: 6, script: "exit 42" }).replace(
      "  backoffLimit: 6\n",
      "  backoffLimit: 6\n  ttlSecondsAfterFinished: 0\n  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onExitCodes: {operator: In, values: [42]}\n",
    ),
  );
  if (!policy) return;
  const failed = await policy.cli("up", "--wait");
  t.equal(failed.exitCode, 1);
  const [only] = policy.created(failed.stdout);
  t.match(
    failed.stderr,
    new RegExp(
      `Error: PodFailurePolicy: job/${fatal}: Container main for pod default/${only} failed with exit code 42 matching FailJob rule at index 0`,
    ),
  );
  t.equal(policy.created(failed.stdout).length, 1, "no retry");
  t.match(failed.stdout, `job/${fatal}: ttlSecondsAfterFinished 0: its pod removed`);
  const gone = await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.podrun.owner=Job/${fatal}`]);
  t.equal(gone.stdout.trim(), "", "the TTL removed the Job's pod");
}

async function indexedTest(t: Test, runtime: RuntimeName): Promise<void> {
  // completions 3, parallelism 2, Indexed: one pod per index, two at a time, each told its index.
  const name = uniqueName("jobidx");
  const world = await setup(t, runtime, name, () =>
    job(name, { backoffLimit: 0, script: "echo index $JOB_COMPLETION_INDEX on $(hostname)" }).replace(
      "  backoffLimit: 0\n",
      "  backoffLimit: 0\n  completions: 3\n  parallelism: 2\n  completionMode: Indexed\n",
    ),
  );
  if (!world) return;
  const result = await world.cli("up", "--wait");
  t.equal(result.exitCode, 0, result.stderr);
  t.match(result.stdout, new RegExp(`job/${name}: Complete: 3 of 3 succeeded, in \\d+s`));
  const pods = [...result.stdout.matchAll(new RegExp(`Created pod: (${name}-(\\d)-[a-z0-9]{5})`, "g"))].map((m) => ({
    pod: m[1]!,
    index: m[2]!,
  }));
  t.same(pods.map((p) => p.index).sort(), ["0", "1", "2"], "one pod per index, named <job>-<index>-<5 characters>");
  for (const { pod, index } of pods) {
    const logs = await runCommand(runtime, ["logs", `default_${pod}_main`]);
    t.equal(
      logs.stdout.trim(),
      `index ${index} on ${name}-${index}`,
      "JOB_COMPLETION_INDEX and the hostname <job>-<index>",
    );
  }
}

for (const runtime of engineBlind("docker")) {
  t.test(`${runtime}: an Indexed Job, completions 3, parallelism 2`, (t) => indexedTest(t, runtime));
  t.test(`${runtime}: activeDeadlineSeconds; a podFailurePolicy FailJob rule with ttlSecondsAfterFinished 0`, (t) =>
    deadlineAndPolicyTest(t, runtime),
  );
  t.test(`${runtime}: a Job that fails once, then succeeds within backoffLimit 3`, (t) => retryTest(t, runtime));
  t.test(`${runtime}: a Job past its backoffLimit fails with BackoffLimitExceeded and the pod's last log lines`, (t) =>
    backoffLimitTest(t, runtime),
  );
}
