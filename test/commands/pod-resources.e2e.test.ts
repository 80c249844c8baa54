import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, setupEnginePod, uniqueName, testPodHeader } from "../harness/engine-pod.js";

// Pod-level resources (spec.resources) end to end. podman: the pod's own cgroup carries the
// limits (podman's record, the cgroup files on the host, and a container without a limit of its
// own killed at the pod's memory limit). docker: no pod cgroup, a Warning naming the field and the
// engine, and the containers run under their own limits. On both: a container without a limit
// reads the pod-level one through the downward API.

const podYaml = (name: string, memory: string) => `${testPodHeader(name)}  resources:
    limits: { cpu: 500m, memory: ${memory} }
    requests: { cpu: 250m }
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sh", "-c", "echo limit=$LIMIT_MEMORY; echo done; exec sleep 600"]
      env:
        - name: LIMIT_MEMORY
          valueFrom: { resourceFieldRef: { resource: limits.memory, divisor: 1Mi } }
      resources:
        requests: { cpu: 100m }
    - name: capped
      image: ${BUSYBOX}
      command: ["sh", "-c", "cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null; echo done; exec sleep 600"]
      resources:
        limits: { memory: 32Mi }
        requests: { cpu: 100m }
`;

interface PodInspect {
  Id: string;
  CgroupPath: string;
  cpu_period?: number;
  cpu_quota?: number;
  cpu_shares?: number;
  memory_limit?: number;
  memory_swap?: number;
}

async function inspectPod(name: string): Promise<PodInspect> {
  const parsed = JSON.parse((await runCommand("podman", ["pod", "inspect", `default_${name}`])).stdout) as
    PodInspect | PodInspect[];
  return Array.isArray(parsed) ? parsed[0]! : parsed;
}

/** The pod cgroup's files on the host: cgroup v2 (one tree) or v1 (a tree per controller). */
async function readPodCgroup(path: string): Promise<{ memory: string; cpu: string; weight: string }> {
  const read = (file: string) => readFile(`/sys/fs/cgroup${file}`, "utf8").then((text) => text.trim());
  try {
    return {
      memory: await read(`${path}/memory.max`),
      cpu: await read(`${path}/cpu.max`),
      weight: `weight ${await read(`${path}/cpu.weight`)}`,
    };
  } catch {
    const [quota, period] = [await read(`/cpu${path}/cpu.cfs_quota_us`), await read(`/cpu${path}/cpu.cfs_period_us`)];
    return {
      memory: await read(`/memory${path}/memory.limit_in_bytes`),
      cpu: `${quota} ${period}`,
      weight: `shares ${await read(`/cpu${path}/cpu.shares`)}`,
    };
  }
}

t.test("podman: the pod's cgroup carries spec.resources; a change recreates the pod", async (t) => {
  const env = await setupEnginePod(t, "podman");
  if (!env) return;
  const name = uniqueName("pm");
  t.teardown(() => removeManagedContainers("podman", { "io.kubernetes.pod.name": name }));
  const r = await env.up(name, podYaml(name, "96Mi"));
  t.equal(r.exitCode, 0, r.stderr);
  t.notMatch(r.stderr, /Warning/, "podman makes all of it");

  const pod = await inspectPod(name);
  t.same(
    {
      period: pod.cpu_period,
      quota: pod.cpu_quota,
      shares: pod.cpu_shares,
      memory: pod.memory_limit,
      swap: pod.memory_swap,
    },
    // 500m: 50000 µs every 100000; 250m: 256 shares; 96Mi, and no swap beyond it.
    { period: 100000, quota: 50000, shares: 256, memory: 100663296, swap: 100663296 },
    "podman's record of the pod",
  );
  const cgroup = await readPodCgroup(pod.CgroupPath);
  t.equal(cgroup.memory, "100663296", "the pod cgroup's memory limit, on the host");
  t.equal(cgroup.cpu, "50000 100000", "the pod cgroup's CFS quota and period");
  // cgroup v2 has a weight where v1 has shares: 1 + (shares − 2) × 9999 / 262142, as runc converts.
  t.equal(
    cgroup.weight,
    cgroup.weight.startsWith("weight") ? "weight 10" : "shares 256",
    "the pod cgroup's CPU weight",
  );

  t.match(await env.reportOf(name, "app"), /^limit=96$/m, "no limit of its own: the downward API gives the pod's");
  t.match(await env.reportOf(name, "capped"), /^33554432$/m, "a container's own limit still applies within the pod's");

  const before = pod.Id;
  const again = await env.up(name, podYaml(name, "96Mi"));
  t.equal(again.exitCode, 0, again.stderr);
  t.equal((await inspectPod(name)).Id, before, "unchanged: the pod is kept");
  const changed = await env.up(name, podYaml(name, "128Mi"));
  t.equal(changed.exitCode, 0, changed.stderr);
  const recreated = await inspectPod(name);
  t.not(recreated.Id, before, "a new pod");
  t.equal(recreated.memory_limit, 134217728, "with the new limit");
});

t.test("podman: a container without a limit of its own is killed at the pod's memory limit", async (t) => {
  const env = await setupEnginePod(t, "podman");
  if (!env) return;
  const name = uniqueName("oom");
  t.teardown(() => removeManagedContainers("podman", { "io.kubernetes.pod.name": name }));
  // conmon marks an OOM kill with a file named `oom` in its working directory, podrun's: run
  // podrun from a directory of the test's own.
  const cwd = await mkdtemp(join(tmpdir(), "podrun-e2e-oom-"));
  t.teardown(() => rm(cwd, { recursive: true, force: true }));
  const file = join(cwd, `${name}.yaml`);
  // busybox tail keeps the last line of a file with no line break in memory: it grows until killed.
  await writeFile(
    file,
    `${testPodHeader(name)}  resources:
    limits: { memory: 48Mi }
  containers:
    - name: hog
      image: ${BUSYBOX}
      command: ["tail", "/dev/zero"]
`,
  );
  const r = await runCli(["up", "--runtime", "podman", file], { cwd, env: { PODRUN_STATE_DIR: env.stateDir } });
  t.equal(r.exitCode, 0, r.stderr);
  let state = "";
  for (let i = 0; i < 100 && !state.startsWith("exited"); i++) {
    state = (
      await runCommand("podman", [
        "inspect",
        `default_${name}_hog`,
        "--format",
        "{{.State.Status}} {{.State.ExitCode}}",
      ])
    ).stdout.trim();
    if (!state.startsWith("exited")) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  t.equal(state, "exited 137", "SIGKILLed by the kernel's OOM killer");
});

t.test("docker: a Warning names spec.resources and docker; the containers run under their own limits", async (t) => {
  const env = await setupEnginePod(t, "docker");
  if (!env) return;
  const name = uniqueName("dk");
  t.teardown(() => removeManagedContainers("docker", { "io.kubernetes.pod.name": name }));
  const r = await env.up(name, podYaml(name, "96Mi"));
  t.equal(r.exitCode, 0, r.stderr);
  t.match(
    r.stderr,
    /\.yaml:8:3: Warning: spec\.resources: docker has no pod-level cgroup to limit: ignored; each container's own resources still apply\n/,
  );
  t.equal(r.stderr.match(/Warning/g)?.length, 1, "that one alone");
  const running = (
    await runCommand("docker", [
      "inspect",
      "--format",
      "{{.State.Running}}",
      `default_${name}_app`,
      `default_${name}_capped`,
    ])
  ).stdout
    .trim()
    .split("\n");
  t.same(running, ["true", "true"], "both containers run");
  t.match(await env.reportOf(name, "app"), /^limit=96$/m, "the downward API gives the pod's limit on docker too");
  t.match(await env.reportOf(name, "capped"), /^33554432$/m, "the container's own limit");
});
