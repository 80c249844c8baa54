import t from "tap";
import { verbsTest } from "./kubectl-verbs.js";

// The kubectl verbs e2e on podman (test/commands/kubectl-verbs.ts says what it checks); docker's is
// kubectl-verbs.docker.e2e.test.ts. One file per engine: tap runs them in two of its slots.
t.test("podman", (t) => verbsTest(t, "podman"));
