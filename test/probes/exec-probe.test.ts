import t from "tap";
import { runExecProbe } from "../../lib/probes/exec-probe.js";
import { CommandError } from "../../lib/runtime/exec.js";
import type { ExecResult } from "../../lib/runtime/types.js";
import { FakeRuntime, explainedAsDocker } from "../harness/fake-runtime.js";

// The classification of an exec probe's outcome, the command answered by the shared fake engine
// (real engines: test/commands/up-wait.e2e.test.ts).

const probe = (answer: () => Promise<ExecResult>) => {
  const runtime = new FakeRuntime();
  runtime.addContainer({ id: "c1", name: "c1" });
  runtime.script("c1", { exec: answer });
  const calls: unknown[] = [];
  runtime.on("execInContainer", (call) => void calls.push(call.args));
  return {
    calls,
    result: runExecProbe({ runtime, containerId: "c1", command: ["cat", "/tmp/ready"], timeoutMs: 2000 }),
  };
};

t.test("exit 0 is a success, with the output", async (t) => {
  const { calls, result } = probe(async () => ({ exitCode: 0, stdout: "ok", stderr: "" }));
  t.same(await result, { result: "success", output: "ok" });
  t.same(calls, [["c1", ["cat", "/tmp/ready"], { timeoutMs: 2000 }]], "timeoutSeconds bounds the exec");
});

t.test("another exit code fails, naming the command, the code and the output", async (t) => {
  const { result } = probe(async () => ({
    exitCode: 1,
    stdout: "",
    stderr: "cat: can't open '/tmp/ready': No such file or directory\n",
  }));
  t.same(await result, {
    result: "failure",
    output: `command "cat /tmp/ready" exited with 1: cat: can't open '/tmp/ready': No such file or directory`,
  });
  const silent = probe(async () => ({ exitCode: 2, stdout: "", stderr: "" }));
  t.same(await silent.result, { result: "failure", output: 'command "cat /tmp/ready" exited with 2' });
});

t.test("a timeout fails in the kubelet's words; an engine failure errors", async (t) => {
  const timedOut = explainedAsDocker(
    new CommandError({
      shortMessage: "Command timed out after 2000 milliseconds: docker exec",
      binary: "docker",
      args: [],
      exitCode: undefined,
      stdout: "",
      stderr: "",
      timedOut: true,
    }),
  );
  t.same(await probe(() => Promise.reject(timedOut)).result, {
    result: "failure",
    output: 'command "cat /tmp/ready" timed out',
  });
  const gone = explainedAsDocker(
    new CommandError({
      shortMessage: "Command failed with exit code 1: docker exec",
      binary: "docker",
      args: [],
      exitCode: 1,
      stdout: "",
      stderr: "Error response from daemon: Container c1 is not running\n",
    }),
  );
  t.same(await probe(() => Promise.reject(gone)).result, {
    result: "unknown",
    output: "Error response from daemon: Container c1 is not running",
  });
});
