import t from "tap";
import { shouldPullImage, type PullPolicy } from "../../lib/images/policy.js";

t.test("the pull decision", async (t) => {
  const table: [PullPolicy, boolean, boolean][] = [
    ["Always", true, true],
    ["Always", false, true],
    ["IfNotPresent", true, false],
    ["IfNotPresent", false, true],
    ["Never", true, false],
    ["Never", false, false],
  ];
  for (const [policy, present, pull] of table)
    t.equal(shouldPullImage(policy, present), pull, `${policy}, present=${present}`);
});
