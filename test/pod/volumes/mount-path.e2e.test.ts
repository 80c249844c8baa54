import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runCommand } from "../../../lib/runtime/exec.js";
import { runCli } from "../../harness/cli.js";
import { removeManagedContainers } from "../../harness/cleanup.js";
import { BUSYBOX, requirePodEngine } from "../../harness/engine.js";

// A relative mountPath passes the API server and the kubelet roots it at `/`: the container sees
// the volume at /data for `mountPath: data/`, on docker and on podman.

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: a relative mountPath is mounted at / + the path`, async (t) => {
    if (!(await requirePodEngine(t, runtime))) return;
    const name = `relmount-${randomBytes(3).toString("hex")}`;
    const stateDir = await mkdtemp(join(tmpdir(), "podrun-mount-state-"));
    const env = { PODRUN_STATE_DIR: stateDir };
    t.teardown(async () => {
      await runCli(["down", "--runtime", runtime, name], { env });
      await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
      await rm(stateDir, { recursive: true, force: true });
    });
    const dir = await mkdtemp(join(tmpdir(), "podrun-mount-"));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, "pod.yaml");
    await writeFile(
      file,
      `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  volumes:
    - name: scratch
      emptyDir: {}
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sh", "-c", "grep -q ' /data ' /proc/mounts && touch /data/x && echo mounted-at-/data"]
      volumeMounts:
        - name: scratch
          mountPath: data/
`,
    );
    const up = await runCli(["up", "--runtime", runtime, file], { env });
    t.equal(up.exitCode, 0, up.stderr);
    let logs = "";
    for (let i = 0; i < 50 && !logs.includes("mounted"); i++) {
      logs = (await runCommand(runtime, ["logs", `default_${name}_app`], { reject: false })).stdout;
      if (!logs.includes("mounted")) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    t.match(logs, "mounted-at-/data", "the container sees the volume at /data");
  });
}
