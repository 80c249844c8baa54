// resourceFieldRef limits of a container without its own limit: the pod-level limit (cpu, memory)
// before the node's capacity, as the kubelet's defaultPodLimitsForDownwardAPI does.
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { resolveResourceField, type NodeCapacity } from "../../../lib/pod/spec/field-ref.js";

const node: NodeCapacity = { cpuCores: 4, memoryBytes: 8 * 1024 ** 3, ephemeralStorageBytes: 100e9 };
const bare: Container = { name: "app", image: "x" };
const podWith = (limits: Record<string, string>): Pod =>
  ({ spec: { resources: { limits }, containers: [bare] } }) as Pod;

t.test("an unset or zero container limit is the pod-level one", async (t) => {
  const pod = podWith({ cpu: "1500m", memory: "256Mi", "hugepages-2Mi": "2Mi" });
  t.equal(resolveResourceField({ resource: "limits.cpu" }, bare, node, pod), "2", "1500m rounded up");
  t.equal(resolveResourceField({ resource: "limits.cpu", divisor: "1m" }, bare, node, pod), "1500");
  t.equal(resolveResourceField({ resource: "limits.memory", divisor: "1Mi" }, bare, node, pod), "256");
  const zero: Container = { name: "app", image: "x", resources: { limits: { memory: "0" } } };
  t.equal(resolveResourceField({ resource: "limits.memory", divisor: "1Mi" }, zero, node, pod), "256");
  t.equal(
    resolveResourceField({ resource: "limits.ephemeral-storage", divisor: "1G" }, bare, node, pod),
    "100",
    "not a pod-level resource: the node's",
  );
  t.equal(
    resolveResourceField({ resource: "requests.cpu" }, bare, node, pod),
    "0",
    "requests are the container's alone",
  );
});

t.test("the container's own limit, then the node's capacity, stay first and last", async (t) => {
  const own: Container = { name: "app", image: "x", resources: { limits: { memory: "64Mi" } } };
  t.equal(
    resolveResourceField({ resource: "limits.memory", divisor: "1Mi" }, own, node, podWith({ memory: "256Mi" })),
    "64",
  );
  t.equal(
    resolveResourceField({ resource: "limits.cpu" }, bare, node, podWith({ memory: "256Mi" })),
    "4",
    "no pod-level cpu limit",
  );
  t.equal(
    resolveResourceField({ resource: "limits.cpu" }, bare, node, podWith({ cpu: "0" })),
    "4",
    "a zero pod-level limit is unset",
  );
  t.equal(resolveResourceField({ resource: "limits.cpu" }, bare, node), "4", "no pod");
});
