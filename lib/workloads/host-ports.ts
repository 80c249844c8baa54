import type { ContainerPort, Pod } from "kubernetes-types/core/v1.js";

// The scheduler's NodePorts filter, for one node: a pod whose hostPort (with its protocol and host
// IP) is already taken by a pod placed before it does not fit, and stays Pending. On one machine
// that is what a Deployment with replicas > 1 and a hostPort meets: the first replica gets the
// port, the others wait, as on a one-node cluster. Pods are placed in the order given.
// https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/scheduler/framework/plugins/nodeports/node_ports.go

/** The scheduler's message for a pod that does not fit this one node for its host ports. */
export const NO_FREE_PORTS_MESSAGE =
  "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";

export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

/** The pods that cannot be placed beside the pods before them, each with the port it wanted. */
export function findUnschedulable(pods: readonly Pod[]): Map<Pod, HostPort> {
  const taken: HostPort[] = [];
  const unschedulable = new Map<Pod, HostPort>();
  for (const pod of pods) {
    const wanted = hostPortsOf(pod);
    const clash = wanted.find((port) => taken.some((other) => conflicts(port, other)));
    if (clash) unschedulable.set(pod, clash);
    else taken.push(...wanted);
  }
  return unschedulable;
}

/** The host ports of the pod's containers and of its sidecars (restartable init containers), which run all along. */
function hostPortsOf(pod: Pod): HostPort[] {
  const containers = [
    ...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === "Always"),
    ...(pod.spec?.containers ?? []),
  ];
  return containers
    .flatMap((c) => (c.ports ?? []).filter((p): p is ContainerPort & { hostPort: number } => (p.hostPort ?? 0) > 0))
    .map((p) => ({
      ip: p.hostIP || "0.0.0.0",
      protocol: p.protocol ?? "TCP",
      port: p.hostPort,
    }));
}

// 0.0.0.0 takes the port on every address of the node.
function conflicts(a: HostPort, b: HostPort): boolean {
  return a.port === b.port && a.protocol === b.protocol && (a.ip === b.ip || a.ip === "0.0.0.0" || b.ip === "0.0.0.0");
}

/** `0.0.0.0:8080/TCP`, for messages. */
export function formatHostPort(port: HostPort): string {
  return `${port.ip}:${port.port}/${port.protocol}`;
}
