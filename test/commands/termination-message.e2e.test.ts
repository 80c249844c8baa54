import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ContainerStatus, Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { removeManagedContainers } from "../harness/cleanup.js";
import { runCli } from "../harness/cli.js";
import { BUSYBOX, setupEnginePod, uniqueName, testPodHeader } from "../harness/engine-pod.js";
import { engineBlind } from "../harness/engine.js";

// terminationMessagePath/Policy end to end: what a container writes at its path (or, under
// FallbackToLogsOnError, its log's end) is the message `ps --json` shows for it once it ended, and
// the end of `up`'s error line for a failed init container; on a read-only root and as non-root too.

const container = (name: string, script: string, fields = "") => `    - name: ${name}
      image: ${BUSYBOX}
      command: ["sh", "-c", ${JSON.stringify(script)}]
${fields}`;

for (const runtime of engineBlind("podman")) {
  t.test(`${runtime}: ps --json shows each terminated container's message`, async (t) => {
    const env = await setupEnginePod(t, runtime);
    if (!env) return;
    const name = uniqueName("msg");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const result = await env.up(
      name,
      `${testPodHeader(name)}  containers:
${container("writer", "echo working; echo 'database unreachable' > /dev/termination-log; exit 1")}
${container("fallback", "for i in $(seq 1 100); do echo line $i; done; exit 2", "      terminationMessagePolicy: FallbackToLogsOnError\n")}
${container("fallback-ok", "echo all good", "      terminationMessagePolicy: FallbackToLogsOnError\n")}
${container("custom", "echo 'custom path' > /tmp/custom-msg", "      terminationMessagePath: /tmp/custom-msg\n      securityContext:\n        readOnlyRootFilesystem: true\n")}
${container("nonroot", "id -u > /dev/termination-log; exit 3", "      securityContext:\n        runAsUser: 1000\n        runAsGroup: 1000\n")}`,
    );
    t.equal(result.exitCode, 0, result.stderr);
    let statuses: ContainerStatus[] = [];
    for (let i = 0; i < 50; i++) {
      const ps = await runCli(["ps", "--runtime", runtime, "--json", name], {
        env: { PODRUN_STATE_DIR: env.stateDir },
      });
      t.equal(ps.exitCode, 0, ps.stderr);
      statuses = (JSON.parse(ps.stdout) as { items: Pod[] }).items[0]?.status?.containerStatuses ?? [];
      if (statuses.length === 5 && statuses.every((s) => s.state?.terminated)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const terminated = (c: string) => statuses.find((s) => s.name === c)?.state?.terminated;
    t.equal(terminated("writer")?.exitCode, 1);
    t.equal(terminated("writer")?.message, "database unreachable\n", "the file's content, the log not mixed in");
    const fallback = terminated("fallback")?.message ?? "";
    t.match(fallback, /line 100\n?$/, "an empty file and a failure: the log's end");
    t.notMatch(fallback, /^line 20$/m, "only the last 80 lines");
    t.match(fallback, /^line 21$/m);
    t.equal(terminated("fallback-ok")?.exitCode, 0);
    t.equal(terminated("fallback-ok")?.message, undefined, "a success takes nothing from the log");
    t.equal(terminated("custom")?.message, "custom path\n", "a custom path, on a read-only root");
    t.equal(terminated("nonroot")?.message, "1000\n", "a non-root user can write the file");
  });

  t.test(`${runtime}: a failed init container's message ends up's error line`, async (t) => {
    const env = await setupEnginePod(t, runtime);
    if (!env) return;
    const name = uniqueName("init");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const result = await env.up(
      name,
      `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 1
  initContainers:
${container("migrate", "echo trying; echo 'schema version 7 is newer than 6' > /dev/termination-log; exit 1")}
  containers:
${container("app", "sleep 60")}`,
    );
    t.equal(result.exitCode, 1);
    t.match(result.stderr, `init container migrate exited with code 1: schema version 7 is newer than 6\n`);
    t.match(result.stderr, /last log lines of init container migrate:\n {4}trying\n/);
  });

  t.test(
    `${runtime}: up --wait: an app container that exits for good ends the error line with its message`,
    async (t) => {
      const env = await setupEnginePod(t, runtime);
      if (!env) return;
      const name = uniqueName("wait");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const file = join(env.stateDir, `${name}.yaml`);
      await writeFile(
        file,
        `${testPodHeader(name)}  containers:
${container("app", "echo starting; echo 'port 8080 already in use' > /dev/termination-log; exit 4")}`,
      );
      const result = await runCli(["up", "--runtime", runtime, "--wait", file], {
        env: { PODRUN_STATE_DIR: env.stateDir },
      });
      t.equal(result.exitCode, 1);
      t.match(
        result.stderr,
        "container app exited with code 4 and restartPolicy Never does not restart it: port 8080 already in use\n",
      );
    },
  );
}
