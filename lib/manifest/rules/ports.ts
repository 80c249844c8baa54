import type { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { reportInvalid } from "./context.js";
import { findPortNameErrors, findPortNumberErrors } from "./names.js";
import { asInteger, asString, isBlank, listObjectItems, type RawObject } from "./raw.js";

// validateContainerPorts, AccumulateUniqueHostPorts and validatePodHostNetworkDeps.

export function validateContainerPorts(report: Reporter, container: RawObject, containerPath: FieldPath): void {
  const names = new Set<string>();
  for (const [i, port] of listObjectItems(container.ports)) {
    const path = containerPath.child("ports").index(i);
    const name = asString(port.name);
    if (name) {
      const errors = findPortNameErrors(name);
      if (errors.length > 0) reportInvalid(report, path.child("name"), name, errors);
      else if (names.has(name)) report({ type: "Duplicate", path: path.child("name"), value: name });
      else names.add(name);
    }
    const containerPort = port.containerPort;
    if (isBlank(containerPort) || containerPort === 0) report({ type: "Required", path: path.child("containerPort") });
    else if (typeof containerPort === "number")
      reportInvalid(report, path.child("containerPort"), containerPort, findPortNumberErrors(containerPort));
    const hostPort = port.hostPort;
    if (typeof hostPort === "number" && hostPort !== 0)
      reportInvalid(report, path.child("hostPort"), hostPort, findPortNumberErrors(hostPort));
  }
}

/** The names of a container's ports, which its probes and hooks may use instead of numbers. */
export function collectPortNames(container: RawObject): Set<string> {
  return new Set(listObjectItems(container.ports).flatMap(([, port]) => asString(port.name) ?? []));
}

/**
 * A host port (with its protocol and host IP) may be bound once among the containers given:
 * all app containers together, or one init container, as init containers run one at a time.
 * With hostNetwork every container port is a host port, as the API server defaults it.
 */
export function checkHostPortConflicts(
  report: Reporter,
  containers: readonly [RawObject, FieldPath][],
  hostNetwork: boolean,
): void {
  const seen = new Set<string>();
  for (const [container, containerPath] of containers) {
    for (const [i, port] of listObjectItems(container.ports)) {
      const hostPort = asInteger(port.hostPort) || (hostNetwork ? asInteger(port.containerPort) : undefined);
      if (!hostPort) continue;
      const key = `${asString(port.protocol) || "TCP"}/${asString(port.hostIP) ?? ""}/${hostPort}`;
      if (seen.has(key))
        report({ type: "Duplicate", path: containerPath.child("ports").index(i).child("hostPort"), value: key });
      seen.add(key);
    }
  }
}

/** With the host's network a container can only listen on the host port it declares. */
export function checkHostNetworkPorts(report: Reporter, containers: readonly [RawObject, FieldPath][]): void {
  for (const [container, containerPath] of containers) {
    for (const [i, port] of listObjectItems(container.ports)) {
      const hostPort = asInteger(port.hostPort);
      // An unset (or 0) host port is defaulted to the container port.
      if (hostPort && hostPort !== port.containerPort) {
        report({
          type: "Invalid",
          path: containerPath.child("ports").index(i).child("hostPort"),
          value: hostPort,
          detail: "must match `containerPort` when `hostNetwork` is true",
        });
      }
    }
  }
}
