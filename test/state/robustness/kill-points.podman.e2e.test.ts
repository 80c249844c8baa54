import t from "tap";
import { runKillSuite } from "../../harness/kill-shim-cases.js";

// `podrun up` SIGKILLed at seeded points on podman (test/harness/kill-shim-cases.ts says what each
// case checks; docs/development.md how to replay one). Its twin for docker is kill-points.docker.e2e.test.ts.

// About 6 cases of two or three podrun runs each (an eighth of the engine calls of an up, drawn from the
// commit's seed, so that coverage grows from commit to commit, and three points more): more than tap's default limit on a machine busy with
// other work. Still bounded: every podrun run has its own time limit (test/harness/cli.ts).
t.setTimeout(600_000);
t.test(
  "podman: podrun up killed at seeded points: the state parses, down leaves nothing of the pod and its Services, up comes back",
  (t) => runKillSuite(t, "podman", { fraction: 1 / 8, timed: 1, pull: true }),
);
