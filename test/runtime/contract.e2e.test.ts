import t from "tap";
import { createRuntime } from "../../lib/runtime/cli-runtime.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { requireEngine, requireImage, requireTestEnv } from "../harness/engine.js";
import { uniqueName } from "../harness/engine-pod.js";
import { runContract } from "./contract.js";

// The runtime contract (contract.ts) on CliRuntime against the real docker and podman: the same
// cases the fake passes in contract.test.ts. Each case's objects carry its own pod label, and are
// removed by it at teardown (test/harness/cleanup.ts), whatever the case left.

for (const name of ["docker", "podman"] as const) {
  t.test(name, async (t) => {
    await runContract(t, async (t) => {
      const env = requireTestEnv(t);
      const engine = env && (await requireEngine(t, name));
      if (
        !env ||
        !engine ||
        !(await requireImage(t, name, env.images.busybox)) ||
        !(await requireImage(t, name, env.images.pause))
      )
        return undefined;
      const pod = uniqueName("contract");
      t.teardown(async () => {
        await removeManagedContainers(name, { "io.kubernetes.pod.name": pod });
      });
      return { runtime: createRuntime(engine), pod, image: env.images.busybox, pauseImage: env.images.pause };
    });
  });
}
