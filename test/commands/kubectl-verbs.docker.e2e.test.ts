import t from "tap";
import { verbsTest } from "./kubectl-verbs.js";

// The kubectl verbs e2e on docker (test/commands/kubectl-verbs.ts says what it checks); podman's is
// kubectl-verbs.podman.e2e.test.ts. One file per engine: tap runs them in two of its slots.
t.test("docker", (t) => verbsTest(t, "docker"));
