// The kubelet's CPU arithmetic, from its own cases (pkg/kubelet/cm/helpers_linux_test.go), and the
// `create` flags a container's resources become.
import t from "tap";
import {
  formatResourceArgs,
  milliCpuToQuota,
  milliCpuToShares,
  planResources,
} from "../../lib/runtime/resource-args.js";
import { buildCreateArgs } from "../../lib/runtime/create-args.js";
import { DIALECTS } from "../../lib/runtime/dialects.js";
import type { ContainerSpec } from "../../lib/runtime/types.js";

t.test("MilliCPUToQuota: the kubelet's table (default period 100000 µs, minimum quota 1000 µs)", async (t) => {
  const cases: [milliCPU: number, quota: number][] = [
    [0, 0],
    [5, 1000],
    [9, 1000],
    [10, 1000],
    [200, 20000],
    [500, 50000],
    [1000, 100000],
    [1500, 150000],
  ];
  for (const [milliCPU, quota] of cases) t.equal(milliCpuToQuota(milliCPU), quota, `${milliCPU}m`);
  t.equal(milliCpuToQuota(1, 100000), 1000, "1m: the minimum");
  t.equal(milliCpuToQuota(333), 33300);
});

t.test("MilliCPUToShares: 1024 per CPU, at least 2, at most 262144", async (t) => {
  const cases: [milliCPU: number, shares: number][] = [
    [0, 2],
    [1, 2],
    [2, 2],
    [3, 3],
    [250, 256],
    [500, 512],
    [1000, 1024],
    [1500, 1536],
    [256000, 262144],
    [300000, 262144],
  ];
  for (const [milliCPU, shares] of cases) t.equal(milliCpuToShares(milliCPU), shares, `${milliCPU}m`);
});

t.test("resources as cgroup settings: quantities read exactly, the request defaulting to the limit", async (t) => {
  t.equal(planResources(undefined), undefined, "no resources: nothing");
  t.equal(planResources({}), undefined);
  t.equal(planResources({ limits: { "ephemeral-storage": "1Gi" } }), undefined, "only what the engine is not given");
  t.same(planResources({ limits: { memory: "64Mi", cpu: "500m" }, requests: { cpu: "250m", memory: "32Mi" } }), {
    memoryLimitBytes: 67108864,
    memoryReservationBytes: 33554432,
    cpuPeriod: 100000,
    cpuQuota: 50000,
    cpuShares: 256,
  });
  t.same(
    planResources({ limits: { cpu: "1.5" } }),
    { cpuPeriod: 100000, cpuQuota: 150000, cpuShares: 1536 },
    "no request: the limit's shares (the kubelet's default)",
  );
  t.same(planResources({ requests: { cpu: "0.1" } }), { cpuShares: 102 }, "a request alone: shares, no quota");
  t.same(planResources({ limits: { cpu: "1m" } }), { cpuPeriod: 100000, cpuQuota: 1000, cpuShares: 2 });
  t.same(planResources({ limits: { memory: "129e6" } }), { memoryLimitBytes: 129000000 });
  t.same(planResources({ limits: { memory: "1G" } }), { memoryLimitBytes: 1000000000 });
  t.same(planResources({ limits: { memory: "100m" } }), { memoryLimitBytes: 1 }, "bytes round up, as Quantity.Value()");
  t.same(
    planResources({ limits: { cpu: "0.0001" } }),
    { cpuPeriod: 100000, cpuQuota: 1000, cpuShares: 2 },
    "milli-CPUs round up, as MilliValue()",
  );
  t.equal(planResources({ limits: { cpu: "0", memory: "0" } }), undefined, "zero: no limit");
});

t.test("the flags, the same on every engine", async (t) => {
  t.same(formatResourceArgs(undefined), []);
  t.same(
    formatResourceArgs({
      memoryLimitBytes: 67108864,
      memoryReservationBytes: 33554432,
      cpuPeriod: 100000,
      cpuQuota: 50000,
      cpuShares: 256,
    }),
    [
      "--memory",
      "67108864",
      "--memory-swap",
      "67108864",
      "--memory-reservation",
      "33554432",
      "--cpu-period",
      "100000",
      "--cpu-quota",
      "50000",
      "--cpu-shares",
      "256",
    ],
  );
  t.same(formatResourceArgs({ cpuShares: 2 }), ["--cpu-shares", "2"]);
});

t.test("create args: the resource flags before --pull, per dialect", async (t) => {
  const IMAGE = "127.0.0.1:5100/podrun-test/busybox:1.36";
  const spec: ContainerSpec = {
    name: "web-app",
    image: IMAGE,
    labels: { "io.podrun.managed": "true" },
    sandbox: "web",
    hostNetwork: false,
    restartPolicy: "always",
    resources: { memoryLimitBytes: 67108864, cpuPeriod: 100000, cpuQuota: 50000, cpuShares: 256 },
  };
  const env = { byName: [], childEnv: {} };
  const flags = [
    "--memory",
    "67108864",
    "--memory-swap",
    "67108864",
    "--cpu-period",
    "100000",
    "--cpu-quota",
    "50000",
    "--cpu-shares",
    "256",
  ];
  const tail = ["--pull", "never", IMAGE];
  t.same(buildCreateArgs(DIALECTS.docker, spec, env), [
    "create",
    "--name",
    "web-app",
    "--network",
    "container:web_POD",
    "--ipc",
    "container:web_POD",
    "--label",
    "io.podrun.managed=true",
    "--restart",
    "always",
    ...flags,
    ...tail,
  ]);
  t.same(buildCreateArgs(DIALECTS.nerdctl, spec, env), [
    "create",
    "--name",
    "web-app",
    "--network",
    "container:web_POD",
    "--ipc",
    "container:web_POD",
    "--label",
    "io.podrun.managed=true",
    "--restart",
    "always",
    ...flags,
    ...tail,
  ]);
  t.same(buildCreateArgs(DIALECTS.podman, spec, env), [
    "create",
    "--name",
    "web-app",
    "--pod",
    "web",
    "--label",
    "io.podrun.managed=true",
    "--restart",
    "always",
    ...flags,
    ...tail,
  ]);
});
