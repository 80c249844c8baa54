import t from "tap";
import { UsageError } from "../../lib/errors.js";
import { CommandError } from "../../lib/runtime/exec.js";
import { PullError } from "../../lib/runtime/pull-errors.js";
import {
  DEFAULT_IMAGE_PULL_PROGRESS_DEADLINE_MS,
  parseImagePullProgressDeadline,
  runPullCommand,
} from "../../lib/runtime/pull-progress.js";

// The pull progress deadline over real child processes (node scripts standing in for the
// engine's pull): the timings are far apart (a line every 100 ms against a 3 s deadline, which
// also covers a slow start of node on a loaded machine; a silence of 60 s), so load cannot turn
// one outcome into the other.

// The waits are the children's, not this process's: run the cases at once.
t.jobs = 4;

const ref = "127.0.0.1:5102/x:1";
const node = process.execPath;
/** A script that prints `lines` one every `everyMs` on `stream`, then runs `then`. */
const printing = (lines: string[], everyMs: number, then = "", stream = "stdout") =>
  `const lines = ${JSON.stringify(lines)}; let i = 0; const tick = () => { if (i < lines.length) { process.${stream}.write(lines[i++] + "\\n"); setTimeout(tick, ${everyMs}); } else { ${then} } }; tick();`;

t.test("a pull that keeps printing new lines outlives the deadline and resolves with its output", async (t) => {
  const lines = Array.from({ length: 40 }, (_, i) => `layer${i}: Pull complete`);
  const started = Date.now();
  const result = await runPullCommand(node, ["-e", printing(lines, 100)], { ref, deadlineMs: 3000 });
  t.ok(Date.now() - started >= 3900, "it ran longer than the deadline");
  t.equal(result.exitCode, 0);
  t.equal(result.stdout, lines.join("\n"));
});

t.test(
  "silence for the deadline cancels: ErrImagePull naming the deadline and the latest progress; the process is killed",
  async (t) => {
    const started = Date.now();
    const error = await runPullCommand(
      node,
      ["-e", printing(["Trying to pull x..."], 10, "setTimeout(() => {}, 60000)", "stderr")],
      { ref, deadlineMs: 3000 },
    ).catch((e: unknown) => e);
    t.ok(error instanceof PullError);
    t.match(error, {
      reason: "ErrImagePull",
      message: `pull of ${ref} canceled because of no progress for 3s (--image-pull-progress-deadline); latest progress: "Trying to pull x..."`,
    });
    t.ok(Date.now() - started < 30_000, "not the 60 s the script would sleep: it was killed");
  },
);

t.test("a line printed again, docker's retry countdown and nerdctl's elapsed total are no progress", async (t) => {
  const repeated = [
    "a: Pulling fs layer",
    "a: Retrying in 5 seconds",
    "elapsed: 0.1 s",
    "a: Pulling fs layer",
    "a: Retrying in 1 second",
    "elapsed: 0.2 s",
  ];
  // Printed every 100 ms for 10 s: only the first line is new, so 3 s after it the pull is canceled.
  const lines = Array.from({ length: 100 }, (_, i) => repeated[i % repeated.length]!);
  const error = await runPullCommand(node, ["-e", printing(lines, 100)], { ref, deadlineMs: 3000 }).catch(
    (e: unknown) => e,
  );
  t.match(error, { reason: "ErrImagePull", message: /no progress for 3s .*latest progress: "a: Pulling fs layer"$/ });
});

t.test("a failed pull resolves with its exit code and all of its stderr, for the caller to classify", async (t) => {
  const script = `process.stderr.write("Trying to pull x...\\nError: manifest unknown\\n"); process.exit(125);`;
  const result = await runPullCommand(node, ["-e", script], { ref, deadlineMs: 5000 });
  t.equal(result.exitCode, 125);
  t.equal(result.stderr, "Trying to pull x...\nError: manifest unknown");
});

t.test("deadline 0: never canceled", async (t) => {
  const result = await runPullCommand(node, ["-e", "setTimeout(() => console.log('done'), 300)"], {
    ref,
    deadlineMs: 0,
  });
  t.same([result.exitCode, result.stdout], [0, "done"]);
});

t.test("the caller's abort is a cancellation, not a pull failure", async (t) => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const error = await runPullCommand(node, ["-e", "setTimeout(() => {}, 60000)"], {
    ref,
    deadlineMs: 10_000,
    signal: controller.signal,
  }).catch((e: unknown) => e);
  t.ok(error instanceof CommandError && error.canceled, "CommandError, canceled");
});

t.test("a binary that is not installed throws as runCommand does", async (t) => {
  const error = await runPullCommand("podrun-no-such-engine", ["pull", ref], { ref, deadlineMs: 1000 }).catch(
    (e: unknown) => e,
  );
  t.ok(error instanceof CommandError && error.notInstalled);
});

t.test("--image-pull-progress-deadline: a Go duration, 0 for none, the default when absent", async (t) => {
  t.equal(parseImagePullProgressDeadline(undefined), DEFAULT_IMAGE_PULL_PROGRESS_DEADLINE_MS);
  t.equal(parseImagePullProgressDeadline(""), DEFAULT_IMAGE_PULL_PROGRESS_DEADLINE_MS);
  t.equal(parseImagePullProgressDeadline("2s"), 2000);
  t.equal(parseImagePullProgressDeadline("1m30s"), 90_000);
  t.equal(parseImagePullProgressDeadline("0"), 0);
  t.throws(
    () => parseImagePullProgressDeadline("soon"),
    new UsageError(
      'invalid value "soon" for --image-pull-progress-deadline: expected a duration such as 90s, 5m or 0 (no deadline)',
    ),
  );
  t.throws(
    () => parseImagePullProgressDeadline("-1s", "PODRUN_IMAGE_PULL_PROGRESS_DEADLINE"),
    /for PODRUN_IMAGE_PULL_PROGRESS_DEADLINE:/,
  );
});
