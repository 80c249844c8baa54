import t from "tap";
import { PodrunError, UsageError } from "../../lib/errors.js";
import { CommandError, runCommand, type CommandResult, type RunOptions } from "../../lib/runtime/exec.js";
import {
  DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS,
  describeStep,
  isRequestTimeout,
  requestDeadlineMs,
  RequestTimeoutError,
  resolveRequestTimeout,
  runWithinDeadline,
} from "../../lib/runtime/request-timeout.js";

// The deadline of engine commands (--runtime-request-timeout). The real engines behind a proxy
// that never answers are test/state/robustness/engine-hang.e2e.test.ts.

t.test(
  "the flag, else $PODRUN_RUNTIME_REQUEST_TIMEOUT, else the kubelet's 2m; a bad value is a usage error naming its source",
  async (t) => {
    t.equal(DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS, 120_000);
    t.equal(resolveRequestTimeout(undefined, {}), 120_000);
    t.equal(resolveRequestTimeout(undefined, { PODRUN_RUNTIME_REQUEST_TIMEOUT: " 30s " }), 30_000);
    t.equal(resolveRequestTimeout(undefined, { PODRUN_RUNTIME_REQUEST_TIMEOUT: "" }), 120_000, "empty counts as unset");
    t.equal(resolveRequestTimeout("1m30s", { PODRUN_RUNTIME_REQUEST_TIMEOUT: "30s" }), 90_000, "the flag wins");
    t.throws(
      () => resolveRequestTimeout("2x", {}),
      new UsageError(
        'invalid value "2x" for --runtime-request-timeout: expected a duration such as 90s, 5m, 1m30s or 2d',
      ),
    );
    t.throws(
      () => resolveRequestTimeout("0", {}),
      new UsageError('invalid value "0" for --runtime-request-timeout: the duration must be positive'),
    );
    t.throws(
      () => resolveRequestTimeout(undefined, { PODRUN_RUNTIME_REQUEST_TIMEOUT: "soon" }),
      /^invalid value "soon" for PODRUN_RUNTIME_REQUEST_TIMEOUT: /,
    );
  },
);

t.test("a step is named by the engine's command, never by its arguments", async (t) => {
  t.equal(describeStep("docker", ["create", "--name", "default_web_a", "--env", "A=1", "busybox"]), "docker create");
  t.equal(describeStep("podman", ["pod", "create", "--name", "default_web"]), "podman pod create");
  t.equal(describeStep("docker", ["container", "inspect", "x"]), "docker container inspect");
  t.equal(describeStep("docker", ["volume", "rm", "-f", "v"]), "docker volume rm");
  t.equal(describeStep("nerdctl", ["rm", "-f", "x"]), "nerdctl rm");
  t.equal(describeStep("docker", []), "docker");
});

t.test(
  "every command has the deadline but pulls, waits, execs and log follows; a stop has its grace period on top",
  async (t) => {
    for (const args of [
      ["create", "busybox"],
      ["start", "x"],
      ["ps", "-a"],
      ["rm", "-f", "x"],
      ["pod", "rm", "-f", "-t", "0", "p"],
      ["logs", "--tail", "10", "x"],
      ["image", "inspect", "x"],
    ]) {
      t.equal(requestDeadlineMs(args, 2000), 2000, args.join(" "));
    }
    for (const args of [
      ["pull", "--quiet", "x"],
      ["wait", "x"],
      ["exec", "x", "true"],
      ["logs", "--follow", "x"],
      ["logs", "-f", "x"],
    ]) {
      t.equal(requestDeadlineMs(args, 2000), undefined, args.join(" "));
    }
    t.equal(requestDeadlineMs(["stop", "-t", "30", "x"], 2000), 32_000);
    t.equal(requestDeadlineMs(["stop", "x"], 2000), 2000);
  },
);

t.test("a command that does not answer is killed at its deadline and fails in one line naming the step", async (t) => {
  const started = Date.now();
  const error = await runWithinDeadline(
    runCommand,
    process.execPath,
    ["-e", "setTimeout(() => {}, 60_000)", "--", "secret-looking-arg"],
    {},
    300,
  ).catch((e: unknown) => e);
  t.ok(Date.now() - started < 5000, "it did not wait for the command");
  t.type(error, RequestTimeoutError);
  t.type(error, CommandError, "an engine command's failure, as any other");
  const e = error as RequestTimeoutError;
  t.equal(e.shortMessage, `${process.execPath} -e did not answer within 300ms`);
  t.equal(e.message, e.shortMessage, "one line, no argument");
  t.equal(e.timedOut, true);
  t.ok(isRequestTimeout(e));
  t.ok(isRequestTimeout(new PodrunError("CreateContainerError", "x", { cause: e })), "found through the causes");
  t.notOk(
    isRequestTimeout(
      new CommandError({
        shortMessage: "Command timed out after 1 milliseconds: x",
        binary: "x",
        args: [],
        exitCode: undefined,
        stdout: "",
        stderr: "",
        timedOut: true,
      }),
    ),
    "a caller's own timeout is not the engine's",
  );
  t.notOk(isRequestTimeout(new Error("x")));
});

t.test("a command that answers in time, and the calls without a deadline, run as they are", async (t) => {
  const seen: (RunOptions | undefined)[] = [];
  const run = (_binary: string, _args: readonly string[], options?: RunOptions): Promise<CommandResult> => {
    seen.push(options);
    return Promise.resolve({ command: "", exitCode: 0, stdout: "", stderr: "", durationMs: 0 });
  };
  await runWithinDeadline(run, "docker", ["start", "x"], { reject: false }, 5000);
  await runWithinDeadline(run, "docker", ["pull", "x"], {}, 5000);
  await runWithinDeadline(run, "docker", ["exec", "x", "true"], { timeoutMs: 1000 }, 5000);
  await runWithinDeadline(run, "docker", ["start", "x"], {}, undefined);
  t.same(seen, [{ reject: false, timeoutMs: 5000 }, {}, { timeoutMs: 1000 }, {}]);
  const ok = await runWithinDeadline(runCommand, process.execPath, ["-e", "console.log('ok')"], {}, 10_000);
  t.equal(ok.stdout, "ok");
  const failed = await runWithinDeadline(runCommand, process.execPath, ["-e", "process.exit(3)"], {}, 10_000).catch(
    (e: unknown) => e,
  );
  t.notOk(failed instanceof RequestTimeoutError, "a failure in time is the command's own");
  t.equal((failed as CommandError).exitCode, 3);
});
