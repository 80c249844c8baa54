import type { Container, Pod } from "kubernetes-types/core/v1.js";

// Which checks of a pod podrun makes over the network from this host, at the pod's address, as a
// kubelet does from its node: httpGet and tcpSocket probes, and httpGet and tcpSocket lifecycle
// handlers (pure). Exec probes and hooks run inside the container, through the engine, and grpc
// probes are not run (docs/support.md): neither needs the pod's address to be reachable.

/** The pod's network checks, as `container: what` (e.g. `web: readinessProbe httpGet`), in spec order. */
export function networkChecks(pod: Pod): string[] {
  const containers: Container[] = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  return containers.flatMap((container) => {
    const handlers = {
      livenessProbe: container.livenessProbe,
      readinessProbe: container.readinessProbe,
      startupProbe: container.startupProbe,
      postStart: container.lifecycle?.postStart,
      preStop: container.lifecycle?.preStop,
    };
    return Object.entries(handlers).flatMap(([name, handler]) => {
      if (handler?.httpGet) return [`${container.name}: ${name} httpGet`];
      if (handler?.tcpSocket) return [`${container.name}: ${name} tcpSocket`];
      return [];
    });
  });
}
