import t from "tap";
import { EngineError, PodrunError, StateAccessError } from "../../lib/errors.js";
import { formatErrorLine, formatWarningLine } from "../../lib/output/error-line.js";

// The one format of every command's last line on failure: `Error: <Reason>: <object>: <message>`,
// with only the parts the error has.

t.test("a pod's failure: reason, pod, message", async (t) => {
  const error = new PodrunError("ErrImagePull", 'pulling image "nope:1": not found');
  t.equal(formatErrorLine(error, "pod/web"), 'Error: ErrImagePull: pod/web: pulling image "nope:1": not found');
});

t.test("without a pod: reason and message", async (t) => {
  t.equal(
    formatErrorLine(new PodrunError("RuntimeUnavailable", "docker: the engine does not answer")),
    "Error: RuntimeUnavailable: docker: the engine does not answer",
  );
});

t.test("an error without a reason: an engine command, a state file, a plain message", async (t) => {
  t.equal(formatErrorLine(new EngineError("failed", "no such network"), "pod/web"), "Error: pod/web: no such network");
  t.equal(formatErrorLine(new EngineError("failed", "no such network")), "Error: no such network");
  t.equal(
    formatErrorLine(new StateAccessError("/s", "cannot read /s/backoff.json: permission denied (EACCES)")),
    "Error: cannot read /s/backoff.json: permission denied (EACCES)",
  );
  t.equal(
    formatErrorLine({ message: "no back-off entry x (`podrun backoff` lists them)" }),
    "Error: no back-off entry x (`podrun backoff` lists them)",
  );
});

t.test("a reason given as data (down's FailedKillPod)", async (t) => {
  t.equal(
    formatErrorLine(
      { reason: "FailedKillPod", message: "container app: could not stop it: boom" },
      "pod/web (namespace ci)",
    ),
    "Error: FailedKillPod: pod/web (namespace ci): container app: could not stop it: boom",
  );
});

t.test("a warning: what went wrong, the command going on", async (t) => {
  const cases: [string, string][] = [
    ["event log not written: EACCES", "Warning: event log not written: EACCES"],
    [
      "pod/web: container app: preStop hook failed: exit 1",
      "Warning: pod/web: container app: preStop hook failed: exit 1",
    ],
    ["", "Warning: "],
  ];
  for (const [message, line] of cases) t.equal(formatWarningLine(message), line, message);
});
