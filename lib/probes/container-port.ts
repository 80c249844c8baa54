import type { Container } from "kubernetes-types/core/v1.js";

// A handler's port, by number or by the name of one of the container's ports, resolved as the
// kubelet's probe.ResolveContainerPort does (a name that is all digits is taken as a number).

export function resolveContainerPort(port: number | string, container: Pick<Container, "ports">): number {
  let resolved: number;
  if (typeof port === "number") resolved = port;
  else {
    const named = container.ports?.find((p) => p.name === port);
    if (named) resolved = named.containerPort;
    else if (/^\d+$/.test(port)) resolved = Number(port);
    else throw new Error(`port ${port} not found`);
  }
  if (resolved > 0 && resolved < 65536) return resolved;
  throw new Error(`invalid port number: ${resolved}`);
}
