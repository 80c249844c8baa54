import t from "tap";
import { EngineError, PodrunError, type EngineFailure } from "../../lib/errors.js";
import { DIALECTS } from "../../lib/runtime/dialects.js";
import { classifyCommandError, explainCommandError } from "../../lib/runtime/engine-error.js";
import { CommandError } from "../../lib/runtime/exec.js";
import { RequestTimeoutError } from "../../lib/runtime/request-timeout.js";

// A failed engine command explained once (engine-error.ts): its kind from how it ended and what
// the engine printed, its line the engine's own, and the probe's line when no engine answers.

const failure = (fields: Partial<ConstructorParameters<typeof CommandError>[0]> = {}) =>
  new CommandError({
    shortMessage: "Command failed with exit code 1: docker start x",
    binary: "docker",
    args: ["start", "x"],
    exitCode: 1,
    stdout: "",
    stderr: "",
    ...fields,
  });

t.test("the kind of a failed command, from each engine's words", async (t) => {
  const cases: [string, CommandError, EngineFailure][] = [
    ["docker: no such container", failure({ stderr: "Error response from daemon: No such container: x" }), "not-found"],
    [
      "docker start: the daemon's line, then the CLI's summary",
      failure({ stderr: "Error response from daemon: No such container: x\nError: failed to start containers: x" }),
      "not-found",
    ],
    [
      "podman: no such container",
      failure({ stderr: 'Error: no container with name or ID "x" found: no such container' }),
      "not-found",
    ],
    [
      "nerdctl: not found",
      failure({ stderr: 'time="…" level=fatal msg="volume \\"x\\" not found: not found"' }),
      "not-found",
    ],
    [
      "docker: a name in use",
      failure({
        stderr: 'Error response from daemon: Conflict. The container name "/x" is already in use by container "abc".',
      }),
      "conflict",
    ],
    [
      "podman: a name in use",
      failure({ stderr: 'Error: creating container storage: the container name "x" is already in use by abc.' }),
      "conflict",
    ],
    [
      "docker: exec in a stopped container",
      failure({ stderr: "Error response from daemon: Container abc is not running" }),
      "conflict",
    ],
    [
      "docker: a volume in use",
      failure({ stderr: "Error response from daemon: remove v: volume is in use - [abc]" }),
      "conflict",
    ],
    [
      "docker: a network name two networks hold",
      failure({ stderr: "Error response from daemon: network podrun is ambiguous (2 matches found on name)" }),
      "conflict",
    ],
    [
      "podman: no such container, after its syslog noise",
      failure({
        stderr:
          'failed to connect to syslog: Initialization\nError: no container with name or ID "x" found: no such container',
      }),
      "not-found",
    ],
    ["timed out", failure({ exitCode: undefined, timedOut: true }), "timed-out"],
    [
      "a request deadline",
      new RequestTimeoutError("docker ps", 2000, failure({ exitCode: undefined, timedOut: true })),
      "timed-out",
    ],
    ["canceled", failure({ exitCode: undefined, canceled: true }), "canceled"],
    ["not installed", failure({ exitCode: undefined, notInstalled: true }), "unavailable"],
    ["anything else", failure({ stderr: "Error response from daemon: OCI runtime create failed" }), "failed"],
  ];
  for (const [name, error, kind] of cases) t.equal(classifyCommandError(DIALECTS.docker, error), kind, name);
});

t.test("explained: the engine's own line, the command's ending, the CommandError as cause", async (t) => {
  const probed: string[] = [];
  const answers = async (name: string) => (
    probed.push(name),
    { name: "docker" as const, binary: "docker", clientVersion: "28.2.2", serverVersion: "20.10.24" }
  );
  const cause = failure({
    stderr: "Error response from daemon: OCI runtime create failed\nmore",
    args: ["exec", "x"],
    exitCode: 126,
  });
  const error = (await explainCommandError(DIALECTS.docker, cause, answers)) as EngineError;
  t.type(error, EngineError);
  t.match(error, {
    kind: "failed",
    message: "OCI runtime create failed",
    detail: "Error response from daemon: OCI runtime create failed",
    outcome: "docker exec exited with code 126",
  });
  t.equal(error.cause, cause);
  t.equal(error.reason, undefined);
  t.same(probed, ["docker"], "a plain failure asks whether the engine answers");

  const missing = await explainCommandError(
    DIALECTS.docker,
    failure({ stderr: "Error response from daemon: No such container: x" }),
    answers,
  );
  t.match(missing, { kind: "not-found", message: "No such container: x" });
  t.same(probed, ["docker"], "not-found needs no probe");
  const late = await explainCommandError(
    DIALECTS.podman,
    failure({ exitCode: undefined, timedOut: true, shortMessage: "podman ps did not answer within 2s" }),
    answers,
  );
  t.match(late, {
    kind: "timed-out",
    message: "podman ps did not answer within 2s",
    outcome: "podman start did not finish",
  });
});

t.test("an engine that does not answer: the probe's line, RuntimeUnavailable", async (t) => {
  const down = async () => {
    throw new PodrunError(
      "RuntimeUnavailable",
      "no container engine answered: docker: Cannot connect to the Docker daemon",
    );
  };
  const error = (await explainCommandError(
    DIALECTS.docker,
    failure({ stderr: "Cannot connect to the Docker daemon" }),
    down,
  )) as EngineError;
  t.match(error, {
    kind: "unavailable",
    reason: "RuntimeUnavailable",
    message: "no container engine answered: docker: Cannot connect to the Docker daemon",
  });
  const tooOld = new EngineError(
    "unavailable",
    "docker 19.03.1 is older than podrun supports: docker 20.10 or later is needed",
  );
  t.equal(
    await explainCommandError(DIALECTS.docker, failure({ notInstalled: true, exitCode: undefined }), async () =>
      Promise.reject(tooOld),
    ),
    tooOld,
    "a version too old, as detect.ts says it",
  );
  const other = new TypeError("a bug");
  t.equal(
    await explainCommandError(DIALECTS.docker, other),
    other,
    "what is not an engine command's failure is left as it is",
  );
});

t.test("the engine's line is the first that says something of the call, past podman's noise", async (t) => {
  const { describeEngineError } = await import("../../lib/runtime/engine-error.js");
  const stderr = [
    "failed to connect to syslog: Initialization",
    'time="2026-12-02T08:00:00Z" level=warning msg="The cgroupv2 manager is set to systemd but there is no systemd user session available"',
    "Error: rootlessport listen tcp 127.0.0.1:30001: bind: address already in use",
  ].join("\n");
  t.equal(
    describeEngineError(failure({ stderr })),
    "rootlessport listen tcp 127.0.0.1:30001: bind: address already in use",
  );
  t.equal(
    describeEngineError(failure({ stderr: "failed to connect to syslog: Initialization\n" })),
    failure().shortMessage,
    "noise alone: the summary",
  );
});
