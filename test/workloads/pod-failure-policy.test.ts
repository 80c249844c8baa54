import t from "tap";
import type { PodFailurePolicy } from "kubernetes-types/batch/v1.js";
import { matchPodFailurePolicy, type ContainerExit } from "../../lib/workloads/pod-failure-policy.js";

// podFailurePolicy rules against one failed pod (pure); their effect on a Job: job-controller.test.ts.

const pod = (containers: ContainerExit[]) => ({ name: "migrate-abcde", namespace: "ci", containers });
const rule = (action: string, operator: string, values: number[], containerName?: string) => ({
  action,
  onExitCodes: { operator, values, ...(containerName ? { containerName } : {}) },
});
const policy = (...rules: ReturnType<typeof rule>[]): PodFailurePolicy => ({ rules });

t.test("no policy, or no rule matching: an ordinary failure", async (t) => {
  t.same(matchPodFailurePolicy(undefined, pod([{ name: "main", exitCode: 1 }])), { countFailed: true });
  t.same(matchPodFailurePolicy(policy(rule("FailJob", "In", [2])), pod([{ name: "main", exitCode: 1 }])), {
    countFailed: true,
  });
});

t.test("each action", async (t) => {
  const failed = pod([{ name: "main", exitCode: 3 }]);
  t.same(matchPodFailurePolicy(policy(rule("Ignore", "In", [3])), failed), { countFailed: false, action: "Ignore" });
  t.same(matchPodFailurePolicy(policy(rule("Count", "In", [3])), failed), { countFailed: true, action: "Count" });
  t.same(matchPodFailurePolicy(policy(rule("FailJob", "NotIn", [1])), failed), {
    countFailed: true,
    action: "FailJob",
    failJobMessage: "Container main for pod ci/migrate-abcde failed with exit code 3 matching FailJob rule at index 0",
  });
  t.same(
    matchPodFailurePolicy(policy(rule("FailIndex", "In", [3]), rule("Ignore", "In", [3])), failed),
    { countFailed: false, action: "Ignore" },
    "FailIndex without backoffLimitPerIndex: skipped",
  );
});

t.test("the first matching rule wins, and its index is in the message", async (t) => {
  const failed = pod([{ name: "main", exitCode: 7 }]);
  t.match(
    matchPodFailurePolicy(
      policy(rule("Ignore", "In", [1]), rule("FailJob", "In", [7]), rule("Ignore", "In", [7])),
      failed,
    ),
    { action: "FailJob", failJobMessage: /rule at index 1$/ },
  );
});

t.test("containers: exit 0 never matches, containerName narrows, app containers before init containers", async (t) => {
  t.same(
    matchPodFailurePolicy(policy(rule("FailJob", "NotIn", [1])), pod([{ name: "main", exitCode: 0 }])),
    { countFailed: true },
    "NotIn [1] does not catch a success",
  );
  const two = pod([
    { name: "setup", exitCode: 4, init: true },
    { name: "main", exitCode: 0 },
    { name: "side", exitCode: 5 },
  ]);
  t.match(matchPodFailurePolicy(policy(rule("FailJob", "In", [4, 5])), two), {
    failJobMessage: /^Container side .* exit code 5 /,
  });
  t.match(matchPodFailurePolicy(policy(rule("FailJob", "In", [4, 5], "setup")), two), {
    failJobMessage: /^Container setup .* exit code 4 /,
  });
  t.same(matchPodFailurePolicy(policy(rule("FailJob", "In", [5], "main")), two), { countFailed: true });
});

t.test("onPodConditions rules never match here", async (t) => {
  const p: PodFailurePolicy = {
    rules: [{ action: "FailJob", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] }],
  };
  t.same(matchPodFailurePolicy(p, pod([{ name: "main", exitCode: 1 }])), { countFailed: true });
});
