// Pod-level resources as the pod cgroup's settings (the kubelet's ResourceConfigForPod arithmetic),
// podman's `pod create` flags for them, and none on docker's and nerdctl's infra container.
import type { Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { defaultPod } from "../../lib/manifest/defaults.js";
import { buildSandboxSpec, computePodHash } from "../../lib/pod/spec/container-spec.js";
import type { PodIdentity } from "../../lib/pod/identity.js";
import { buildSandboxSettings } from "../../lib/pod/spec/pod-settings.js";
import { buildSandboxArgs } from "../../lib/runtime/create-args.js";
import { DIALECTS } from "../../lib/runtime/dialects.js";
import { formatCpus, formatPodResourceArgs, planPodResources } from "../../lib/runtime/pod-resource-args.js";
import { milliCpuToQuota } from "../../lib/runtime/resource-args.js";

const { docker, podman, nerdctl } = DIALECTS;
const PAUSE = "registry.k8s.io/pause:3.10";
const identity: PodIdentity = { name: "web", namespace: "ci", uid: "u-1" };

const pod = (
  resources: unknown,
  containers: unknown[] = [{ name: "app", image: "busybox:1.36" }],
  extra: Record<string, unknown> = {},
): Pod =>
  defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: { ...(resources !== undefined ? { resources } : {}), containers, ...extra },
  } as Pod);
const plan = (resources: unknown, containers?: unknown[]) => planPodResources(pod(resources, containers).spec!);

t.test("limits and requests become the pod cgroup's memory limit, CFS quota and CPU weight", async (t) => {
  t.same(
    plan({ limits: { cpu: "500m", memory: "128Mi" } }),
    { memoryLimitBytes: 134217728, cpuQuota: 50000, cpuShares: 512 },
    "requests default to the limits",
  );
  t.same(plan({ limits: { cpu: "2" }, requests: { cpu: "250m" } }), { cpuQuota: 200000, cpuShares: 256 });
  t.same(plan({ requests: { cpu: "1", memory: "1Gi" } }), { cpuShares: 1024 }, "a memory request sets nothing");
  t.same(plan({ limits: { memory: "1G" } }), { memoryLimitBytes: 1_000_000_000 });
  t.same(plan({ limits: { cpu: "1m" } }), { cpuQuota: 1000, cpuShares: 2 }, "the kubelet's minimum quota and shares");
  t.same(
    plan({ limits: { cpu: "1" } }, [
      { name: "a", image: "x", resources: { requests: { cpu: "100m" } } },
      { name: "b", image: "x", resources: { requests: { cpu: "200m" } } },
    ]),
    { cpuQuota: 100000, cpuShares: 307 },
    "the request defaults to the containers' sum (300m), not the limit",
  );
  t.equal(plan(undefined), undefined);
  t.equal(plan({}), undefined);
  t.equal(
    plan({ limits: { "hugepages-2Mi": "2Mi", memory: "0" } }),
    undefined,
    "hugepages and a zero limit set nothing",
  );
});

t.test("--cpus: the quota podman derives (cpus × 100000, truncated) is the kubelet's", async (t) => {
  t.equal(formatCpus(50000), "0.5");
  t.equal(formatCpus(200000), "2");
  t.equal(formatCpus(1000), "0.01");
  t.equal(formatCpus(29000), "0.290005", "0.29 × 100000 is 28999.999… in floating point");
  for (let milli = 1; milli <= 64000; milli += milli < 2000 ? 1 : 7) {
    const quota = milliCpuToQuota(milli);
    const derived = Math.trunc(Number(formatCpus(quota)) * 100000);
    if (derived !== quota) t.fail(`${milli}m: quota ${quota}, podman would set ${derived}`);
  }
  t.pass("every quota from 1m to 64 CPUs survives podman's arithmetic");
});

t.test("argv: podman's pod create gets the limits; docker's and nerdctl's infra container nothing", async (t) => {
  const spec = buildSandboxSpec({
    pod: pod({ limits: { cpu: "1500m", memory: "256Mi" }, requests: { cpu: "1" } }),
    identity,
    infraImage: PAUSE,
    publishAll: false,
  });
  const RESOURCE_ARGS = [
    "--memory",
    "268435456",
    "--memory-swap",
    "268435456",
    "--cpus",
    "1.5",
    "--cpu-shares",
    "1024",
  ];
  t.same(formatPodResourceArgs(podman, spec.settings?.resources), RESOURCE_ARGS);
  const labels = Object.entries(spec.labels).flatMap(([k, v]) => ["--label", `${k}=${v}`]);
  t.same(buildSandboxArgs(podman, spec), [
    "pod",
    "create",
    "--name",
    "ci_web",
    "--infra-name",
    "ci_web_POD",
    "--infra-image",
    PAUSE,
    "--hostname",
    "web",
    ...RESOURCE_ARGS,
    ...labels,
  ]);
  const infra = [
    "create",
    "--name",
    "ci_web_POD",
    "--ipc",
    "shareable",
    "--hostname",
    "web",
    ...labels,
    "--pull",
    "never",
    PAUSE,
  ];
  t.same(buildSandboxArgs(docker, spec), infra);
  t.same(buildSandboxArgs(nerdctl, spec), infra);
});

t.test("the pod hash: unchanged without spec.resources, changed with each change of it", async (t) => {
  const hash = (p: Pod) => computePodHash({ pod: p, identity, infraImage: PAUSE, publishAll: false });
  const plain = pod(undefined);
  t.equal(buildSandboxSettings(plain.spec!), undefined);
  t.equal(hash(pod({})), hash(plain), "an empty spec.resources is no setting");
  const variants = [
    pod({ limits: { memory: "64Mi" } }),
    pod({ limits: { memory: "128Mi" } }),
    pod({ limits: { cpu: "1" } }),
    pod({ requests: { cpu: "1" } }),
  ];
  t.equal(new Set([plain, ...variants].map(hash)).size, variants.length + 1);
  t.equal(
    hash(pod({ limits: { memory: "128Mi" } })),
    hash(pod({ limits: { memory: "134217728" } })),
    "the same limit written two ways",
  );
  t.equal(
    buildSandboxSettings(pod({ limits: { memory: "64Mi" } }, undefined, { hostNetwork: true }).spec!),
    undefined,
    "a hostNetwork pod has no sandbox to carry them",
  );
});
