import t from "tap";
import { FakeRuntime } from "../harness/fake-runtime.js";
import { runContract } from "./contract.js";

// The runtime contract (contract.ts) on the fake that the unit tests use, as docker and as podman:
// what the pod logic is tested against behaves as the engines do (contract.e2e.test.ts).

const IMAGE = "busybox:1.36";
const PAUSE = "registry.k8s.io/pause:3.10";

for (const name of ["docker", "podman"] as const) {
  t.test(`fake as ${name}`, async (t) => {
    await runContract(t, async (_t, index) => {
      const runtime = new FakeRuntime({ name, images: [IMAGE, PAUSE] });
      // The fake runs no command: it is told what the contract's `sh -c "exit 3"` answers.
      runtime.script("app", {
        exec: async (command) => ({ exitCode: command.join(" ") === "sh -c exit 3" ? 3 : 0, stdout: "", stderr: "" }),
      });
      return { runtime, pod: `contract-${index}`, image: IMAGE, pauseImage: PAUSE };
    });
  });
}
