import t from "tap";
import { runKillSuite } from "../../harness/kill-shim-cases.js";

// `podrun up` SIGKILLed at seeded points on podman (test/harness/kill-shim-cases.ts says what each
// case checks; docs/development.md how to replay one). its twin for docker is kill-points.docker.e2e.test.ts.
t.test("podman: podrun up killed at seeded points: the state parses, down leaves nothing, up comes back", (t) => runKillSuite(t, "podman", { count: 17, timed: 1, pull: true }));
