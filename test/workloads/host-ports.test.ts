import t from "tap";
import type { Pod } from "kubernetes-types/core/v1.js";
import { findUnschedulable, formatHostPort } from "../../lib/workloads/host-ports.js";

const pod = (
  name: string,
  ports: { hostPort?: number; hostIP?: string; protocol?: string }[],
  sidecar = false,
): Pod => {
  const container = { name: "c", image: "busybox", ports: ports.map((p) => ({ containerPort: 80, ...p })) };
  return {
    metadata: { name },
    spec: sidecar
      ? { initContainers: [{ ...container, restartPolicy: "Always" }], containers: [{ name: "app", image: "busybox" }] }
      : { containers: [container] },
  };
};

t.test("the first pod of a host port gets it; the later ones stay Pending", async (t) => {
  const pods = [
    pod("a", [{ hostPort: 8080 }]),
    pod("b", [{ hostPort: 8080 }]),
    pod("c", [{ hostPort: 8081 }]),
    pod("d", [{}]),
  ];
  const result = findUnschedulable(pods);
  t.same(
    [...result.keys()].map((p) => p.metadata?.name),
    ["b"],
  );
  t.equal(formatHostPort(result.get(pods[1]!)!), "0.0.0.0:8080/TCP");
});

t.test("ports conflict when protocol and port match and the addresses overlap (0.0.0.0 overlaps all)", async (t) => {
  const names = (pods: Pod[]) => [...findUnschedulable(pods).keys()].map((p) => p.metadata?.name);
  t.same(names([pod("a", [{ hostPort: 53, protocol: "UDP" }]), pod("b", [{ hostPort: 53 }])]), [], "UDP and TCP");
  t.same(
    names([pod("a", [{ hostPort: 80, hostIP: "127.0.0.1" }]), pod("b", [{ hostPort: 80, hostIP: "127.0.0.2" }])]),
    [],
    "two addresses",
  );
  t.same(
    names([pod("a", [{ hostPort: 80, hostIP: "127.0.0.1" }]), pod("b", [{ hostPort: 80 }])]),
    ["b"],
    "an address and every address",
  );
  t.same(
    names([pod("a", [{ hostPort: 80 }], true), pod("b", [{ hostPort: 80 }])]),
    ["b"],
    "a sidecar's port is held too",
  );
  t.same(
    names([pod("a", [{ hostPort: 80 }]), pod("b", [{ hostPort: 80 }]), pod("c", [{ hostPort: 80 }])]),
    ["b", "c"],
    "a Pending pod takes nothing",
  );
});
