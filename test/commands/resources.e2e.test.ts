import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, requirePodEngine } from "../harness/engine.js";

// Container resources end to end: what the container itself reads from its cgroup (v2:
// memory.max, cpu.max; v1: memory.limit_in_bytes, cpu.cfs_quota_us/cfs_period_us, cpu.shares),
// and the engine's own record of the CPU weight.

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;
// grep -H prints `file:value` for the files of whichever cgroup version the engine gives.
const PRINT_CGROUP =
  "cd /sys/fs/cgroup && grep -H . memory.max memory.swap.max cpu.max memory/memory.limit_in_bytes memory/memory.memsw.limit_in_bytes cpu/cpu.cfs_quota_us cpu/cpu.cfs_period_us cpu/cpu.shares 2>/dev/null";

/** The cgroup files a container printed, as `{ file: value }`. */
function readCgroup(log: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const line of log.split("\n")) {
    const at = line.indexOf(":");
    if (at > 0) found[line.slice(0, at)] = line.slice(at + 1).trim();
  }
  return found;
}

/** Memory limit and "quota period" as the container sees them, whatever the cgroup version. */
function limitsSeen(cgroup: Record<string, string>): { memory?: string; cpu?: string } {
  if (cgroup["memory.max"] !== undefined) return { memory: cgroup["memory.max"], cpu: cgroup["cpu.max"] };
  return {
    memory: cgroup["memory/memory.limit_in_bytes"],
    cpu: `${cgroup["cpu/cpu.cfs_quota_us"]} ${cgroup["cpu/cpu.cfs_period_us"]}`,
  };
}

// Each case has its own state directory and uniquely named pods: two run at once.
t.jobs = 2;
for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: limits and requests reach the container's cgroup; an init container has its own`,
    { buffered: true },
    async (t) => {
      if (!(await requirePodEngine(t, runtime))) return;
      const stateDir = await mkdtemp(join(tmpdir(), "podrun-res-state-"));
      const dir = await mkdtemp(join(tmpdir(), "podrun-res-"));
      t.teardown(() => Promise.all([stateDir, dir].map((path) => rm(path, { recursive: true, force: true }))));
      const name = unique("res");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const yaml = `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  initContainers:
    - name: init
      image: ${BUSYBOX}
      command: ["sh", "-c", "${PRINT_CGROUP}; true"]
      resources:
        limits: { memory: 32Mi, cpu: "1", ephemeral-storage: 1Gi }
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sh", "-c", "${PRINT_CGROUP}; exec sleep 600"]
      resources:
        limits: { memory: 64Mi, cpu: 500m }
        requests: { cpu: 250m }
`;
      const file = join(dir, `${name}.yaml`);
      await writeFile(file, yaml);
      const r = await runCli(["up", "--runtime", runtime, "--json", file], { env: { PODRUN_STATE_DIR: stateDir } });
      t.equal(r.exitCode, 0, r.stderr);
      t.notMatch(
        r.stderr,
        /resources\.(?:limits|requests)\.(?:cpu|memory)|resources: /,
        "no warning for the fields podrun acts on",
      );
      t.match(
        r.stderr,
        /Warning: spec\.initContainers\[0\]\.resources\.limits\.ephemeral-storage: not supported by podrun yet: ignored/,
        "ephemeral-storage is named",
      );

      const logOf = async (container: string) => {
        let log = "";
        for (let i = 0; i < 50 && !log.includes("memory"); i++) {
          log = (await runCommand(runtime, ["logs", `default_${name}_${container}`], { reject: false })).stdout;
          if (!log.includes("memory")) await new Promise((resolve) => setTimeout(resolve, 200));
        }
        return readCgroup(log);
      };
      const app = await logOf("app");
      t.same(
        limitsSeen(app),
        { memory: "67108864", cpu: "50000 100000" },
        "64Mi and 500m, from inside the app container",
      );
      // No swap beyond the limit, where the engine's cgroup shows it (v1 needs swap accounting).
      if (app["memory.swap.max"] !== undefined) t.equal(app["memory.swap.max"], "0", "no swap (cgroup v2)");
      if (app["memory/memory.memsw.limit_in_bytes"] !== undefined)
        t.equal(app["memory/memory.memsw.limit_in_bytes"], "67108864", "memory+swap = memory (cgroup v1)");
      if (app["cpu/cpu.shares"] !== undefined) t.equal(app["cpu/cpu.shares"], "256", "250m: 256 shares (cgroup v1)");
      const init = await logOf("init");
      t.same(limitsSeen(init), { memory: "33554432", cpu: "100000 100000" }, "the init container's own 32Mi and 1 CPU");

      const inspected = JSON.parse(
        (await runCommand(runtime, ["inspect", `default_${name}_app`, `default_${name}_init`])).stdout,
      ) as {
        HostConfig: { Memory: number; MemorySwap: number; CpuShares: number; CpuQuota: number; CpuPeriod: number };
      }[];
      t.same(
        inspected.map((c) => ({
          memory: c.HostConfig.Memory,
          swap: c.HostConfig.MemorySwap,
          shares: c.HostConfig.CpuShares,
          quota: c.HostConfig.CpuQuota,
          period: c.HostConfig.CpuPeriod,
        })),
        [
          { memory: 67108864, swap: 67108864, shares: 256, quota: 50000, period: 100000 },
          // No request: the limit's 1000m, as the API server defaults it.
          { memory: 33554432, swap: 33554432, shares: 1024, quota: 100000, period: 100000 },
        ],
        "the engine's record: the CPU weight as shares",
      );
    },
  );
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: an unchanged limit keeps the container, a changed one recreates it`,
    { buffered: true },
    async (t) => {
      if (!(await requirePodEngine(t, runtime))) return;
      const stateDir = await mkdtemp(join(tmpdir(), "podrun-res-state-"));
      const dir = await mkdtemp(join(tmpdir(), "podrun-res-"));
      t.teardown(() => Promise.all([stateDir, dir].map((path) => rm(path, { recursive: true, force: true }))));
      const name = unique("resup");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const up = async (memory: string) => {
        const file = join(dir, `${name}.yaml`);
        await writeFile(
          file,
          `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sleep", "600"]
      resources:
        limits: { memory: ${memory} }
`,
        );
        const r = await runCli(["up", "--runtime", runtime, file], { env: { PODRUN_STATE_DIR: stateDir } });
        t.equal(r.exitCode, 0, r.stderr);
        const inspected = JSON.parse((await runCommand(runtime, ["inspect", `default_${name}_app`])).stdout) as {
          Id: string;
          HostConfig: { Memory: number };
        }[];
        return { stdout: r.stdout, id: inspected[0]!.Id, memory: inspected[0]!.HostConfig.Memory };
      };
      const first = await up("64Mi");
      t.equal(first.memory, 67108864);
      const same = await up("67108864");
      t.equal(same.id, first.id, "the same bytes written another way: kept");
      t.match(same.stdout, `pod/${name}[app] unchanged`);
      const changed = await up("128Mi");
      t.not(changed.id, first.id, "a changed limit: recreated");
      t.equal(changed.memory, 134217728);
      t.match(changed.stdout, /Container app definition changed, will be restarted/);
    },
  );
}
