import t from "tap";
import { UsageError } from "../../lib/errors.js";
import { POD_KIND } from "../../lib/kinds/pod.js";
import { DEPLOYMENT_KIND, JOB_KIND, STATEFUL_SET_KIND } from "../../lib/kinds/workloads.js";
import { conditionOf, parseWaitFor, parseWaitTimeout, readPath } from "../../lib/kinds/wait-for.js";

// `wait --for` and `--timeout` as kubectl reads them (tables). The command: test/commands/wait.test.ts.

t.test("--for: delete, condition=NAME[=VALUE], jsonpath='{…}'[=VALUE]", async (t) => {
  const cases: Array<[string, unknown]> = [
    ["delete", { kind: "delete" }],
    ["DELETE", { kind: "delete" }],
    ["condition=Ready", { kind: "condition", condition: "Ready", value: "True" }],
    ["condition=ready", { kind: "condition", condition: "ready", value: "True" }],
    ["condition=Ready=false", { kind: "condition", condition: "Ready", value: "False" }],
    ["condition=Complete=True", { kind: "condition", condition: "Complete", value: "True" }],
    [
      "jsonpath={.status.phase}=Running",
      { kind: "jsonpath", path: ["status", "phase"], text: "{.status.phase}", value: "Running" },
    ],
    [
      "jsonpath={.status.containerStatuses[0].ready}=true",
      {
        kind: "jsonpath",
        path: ["status", "containerStatuses", 0, "ready"],
        text: "{.status.containerStatuses[0].ready}",
        value: "true",
      },
    ],
    [
      "jsonpath={.metadata.labels['app.kubernetes.io/name']}=web",
      {
        kind: "jsonpath",
        path: ["metadata", "labels", "app.kubernetes.io/name"],
        text: "{.metadata.labels['app.kubernetes.io/name']}",
        value: "web",
      },
    ],
    ["jsonpath={.status.podIP}", { kind: "jsonpath", path: ["status", "podIP"], text: "{.status.podIP}" }],
    ["jsonpath={.status.phase}=", { kind: "jsonpath", path: ["status", "phase"], text: "{.status.phase}", value: "" }],
  ];
  for (const [text, expected] of cases) t.same(parseWaitFor(text), expected, text);
});

t.test("--for refused: a usage error naming what it takes", async (t) => {
  const cases: Array<[string | undefined, RegExp]> = [
    [undefined, /--for is required/],
    ["ready", /unrecognized condition: "ready"/],
    ["condition=", /expected condition=NAME/],
    ["condition=Ready=maybe", /expected condition=NAME or condition=NAME=true\|false/],
    ["jsonpath=.status.phase", /must be in braces/],
    ["jsonpath={.items[*].status}=x", /a JSONPath to one field/],
    ["jsonpath={.status.phase}Running", /expected '=' and a value/],
  ];
  for (const [text, message] of cases) {
    const error = t.throws(() => parseWaitFor(text)) as Error;
    t.ok(error instanceof UsageError, `${text}: usage error`);
    t.match(error.message, message, `${text}`);
  }
});

t.test("a kind's conditions, from the kind table: spelled as the kind spells them", async (t) => {
  t.equal(conditionOf(POD_KIND, "ready"), "Ready");
  t.equal(conditionOf(POD_KIND, "containersready"), "ContainersReady");
  t.equal(conditionOf(DEPLOYMENT_KIND, "available"), "Available");
  t.equal(conditionOf(JOB_KIND, "complete"), "Complete");
  t.throws(
    () => conditionOf(POD_KIND, "Available"),
    /a Pod has no condition "Available"; its conditions: PodScheduled, Initialized, ContainersReady, Ready/,
  );
  t.throws(
    () => conditionOf(STATEFUL_SET_KIND, "Ready"),
    /a StatefulSet has no condition "Ready"; its conditions: none that podrun tracks/,
  );
});

t.test("--timeout: kubectl's default 30s, 0 looks once, negative is a week", async (t) => {
  t.equal(parseWaitTimeout(undefined), 30_000);
  t.equal(parseWaitTimeout("120s"), 120_000);
  t.equal(parseWaitTimeout("2m30s"), 150_000);
  t.equal(parseWaitTimeout("0"), 0);
  t.equal(parseWaitTimeout("0s"), 0);
  t.equal(parseWaitTimeout("-1s"), 7 * 24 * 3600 * 1000);
  t.throws(() => parseWaitTimeout("soon"), /invalid value "soon" for --timeout/);
});

t.test("a JSONPath's value as kubectl prints it", async (t) => {
  const pod = { status: { phase: "Running", containerStatuses: [{ ready: true, restartCount: 0 }] } };
  t.equal(readPath(pod, ["status", "phase"]), "Running");
  t.equal(readPath(pod, ["status", "containerStatuses", 0, "ready"]), "true");
  t.equal(readPath(pod, ["status", "containerStatuses", 0, "restartCount"]), "0");
  t.equal(readPath(pod, ["status", "podIP"]), undefined);
  t.equal(readPath(pod, ["status", "phase", "x"]), undefined);
});
