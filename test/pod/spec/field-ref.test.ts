import type { Container, Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import {
  formatMap,
  readHostIPs,
  readNodeCapacity,
  readNodeName,
  resolvePodField,
  resolveResourceField,
  type PodFieldContext,
} from "../../../lib/pod/spec/field-ref.js";

const pod: Pod = {
  metadata: {
    name: "web",
    labels: { app: "web", tier: "front" },
    annotations: { "example.com/note": 'say "hi"\n', z: "é😀" },
  },
  spec: { containers: [{ name: "app", image: "x" }] },
};
const ctx: PodFieldContext = {
  pod,
  identity: { name: "web", namespace: "ci", uid: "0b6f1d6e-uid" },
  nodeName: "box",
  hostIPs: ["192.0.2.10"],
  podIPs: ["10.88.0.5", "fd00::5"],
};

t.test("pod fields", async (t) => {
  const cases: [path: string, expected: string][] = [
    ["metadata.name", "web"],
    ["metadata.namespace", "ci"],
    ["metadata.uid", "0b6f1d6e-uid"],
    ["metadata.labels['app']", "web"],
    ["metadata.labels['missing']", ""],
    ["metadata.annotations['example.com/note']", 'say "hi"\n'],
    ["metadata.labels", 'app="web"\ntier="front"'],
    ["metadata.annotations", 'example.com/note="say \\"hi\\"\\n"\nz="é😀"'],
    ["spec.nodeName", "box"],
    ["spec.serviceAccountName", "default"],
    ["status.hostIP", "192.0.2.10"],
    ["status.hostIPs", "192.0.2.10"],
    ["status.podIP", "10.88.0.5"],
    ["status.podIPs", "10.88.0.5,fd00::5"],
  ];
  for (const [path, expected] of cases) t.equal(resolvePodField(path, ctx), expected, path);
  t.equal(
    resolvePodField("spec.serviceAccountName", {
      ...ctx,
      pod: { ...pod, spec: { ...pod.spec!, serviceAccountName: "builder" } },
    }),
    "builder",
  );
  t.equal(resolvePodField("metadata.labels", { ...ctx, pod: { metadata: {} } }), "", "no labels: empty");
  t.throws(() => resolvePodField("spec.hostname", ctx), { message: "unsupported fieldPath: spec.hostname" });
});

t.test("FormatMap quotes as Go's %q and sorts keys by bytes", async (t) => {
  t.equal(
    formatMap({ b: "1", B: "2", a: "tab\there\x01\x7f\u200b\\" }),
    'B="2"\na="tab\\there\\x01\\x7f\\u200b\\\\"\nb="1"',
  );
});

const node = { cpuCores: 4, memoryBytes: 8 * 2 ** 30, ephemeralStorageBytes: 100 * 10 ** 9 };

t.test("resource fields with divisors, rounded up", async (t) => {
  const container: Container = {
    name: "app",
    image: "x",
    resources: { limits: { cpu: "1500m", memory: "64Mi", "ephemeral-storage": "1G" }, requests: { cpu: "250m" } },
  };
  const cases: [resource: string, divisor: string | number | undefined, expected: string][] = [
    ["limits.cpu", undefined, "2"],
    ["limits.cpu", "1m", "1500"],
    ["limits.cpu", "1", "2"],
    ["limits.cpu", "0", "2"],
    ["requests.cpu", "1m", "250"],
    ["requests.cpu", undefined, "1"],
    ["limits.memory", undefined, "67108864"],
    ["limits.memory", "1Mi", "64"],
    ["limits.memory", "1M", "68"],
    ["limits.memory", 1, "67108864"],
    ["requests.memory", "1Mi", "64"], // defaulted from the limit
    ["limits.ephemeral-storage", "1Mi", "954"],
    ["requests.ephemeral-storage", "1k", "1000000"],
  ];
  for (const [resource, divisor, expected] of cases) {
    t.equal(
      resolveResourceField({ resource, ...(divisor !== undefined ? { divisor } : {}) }, container, node),
      expected,
      `${resource} / ${divisor}`,
    );
  }
});

t.test("unset limits are the node's capacity; unset requests are zero", async (t) => {
  const bare: Container = { name: "app", image: "x" };
  t.equal(resolveResourceField({ resource: "limits.cpu" }, bare, node), "4");
  t.equal(resolveResourceField({ resource: "limits.cpu", divisor: "1m" }, bare, node), "4000");
  t.equal(resolveResourceField({ resource: "limits.memory", divisor: "1Gi" }, bare, node), "8");
  t.equal(resolveResourceField({ resource: "limits.ephemeral-storage", divisor: "1G" }, bare, node), "100");
  t.equal(resolveResourceField({ resource: "requests.memory" }, bare, node), "0");
  t.equal(resolveResourceField({ resource: "requests.cpu" }, bare, node), "0");
  const zero: Container = { name: "app", image: "x", resources: { limits: { cpu: "0" } } };
  t.equal(resolveResourceField({ resource: "limits.cpu" }, zero, node), "4", "a zero limit is unset");
  t.throws(() => resolveResourceField({ resource: "limits.gpu" }, bare, node), {
    message: "unsupported container resource : limits.gpu",
  });
});

t.test("this machine", async (t) => {
  const capacity = readNodeCapacity();
  t.ok(capacity.cpuCores >= 1 && capacity.memoryBytes > 0 && capacity.ephemeralStorageBytes > 0);
  const name = readNodeName(pod);
  t.equal(name, name.toLowerCase());
  t.equal(readNodeName({ spec: { nodeName: "pinned", containers: [] } }), "pinned");
  t.match(readHostIPs()[0], /^\d+\.\d+\.\d+\.\d+$/);
});
