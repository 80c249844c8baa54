import type { ServiceOutcome } from "../services/apply-services.js";
import type { RemovedService } from "../services/remove-services.js";
import { portKey } from "../services/service-proxy.js";

// What `up` prints of each Service it made or kept (pure), in kubectl's words where it has them:
// `service/api created (ClusterIP 10.89.0.3, 80/TCP)`, `service/web unchanged (NodePort
// 10.89.0.4, 80:30080/TCP on 127.0.0.1)`, `service/db created (headless)`, `service/ext created
// (ExternalName → db.example.com, 5432/TCP)`.

export function formatServiceOutcome(outcome: ServiceOutcome): string {
  const { service, action } = outcome;
  const name = `service/${service.metadata?.name}`;
  if (action === "headless") return `${name} created (headless: its name is its pods')`;
  const type = service.spec?.type ?? "ClusterIP";
  const ports = (service.spec?.ports ?? []).map((port) => {
    const nodePort = outcome.nodePorts.get(portKey(port));
    return nodePort ? `${port.port}:${nodePort}/${port.protocol ?? "TCP"}` : portKey(port);
  });
  const verb = action === "kept" ? "unchanged" : action;
  // Its name is the relay's address, not a cluster IP (docs/services.md): the target is what matters.
  if (type === "ExternalName")
    return `${name} ${verb} (ExternalName → ${service.spec?.externalName}, ${ports.join(",") || "no ports: nothing relayed"})`;
  const published = outcome.nodePorts.size > 0 ? ` on ${outcome.address ?? "127.0.0.1"}` : "";
  return `${name} ${verb} (${type} ${outcome.clusterIP ?? "<none>"}, ${ports.join(",")}${published})`;
}

/** `down`: `service/api deleted`, or kubectl's NotFound words for one that is not there. */
export function formatServiceRemoved(service: RemovedService): string {
  return service.found
    ? `service/${service.name} deleted`
    : `service/${service.name} not found (no Service "${service.name}" in namespace "${service.namespace}")`;
}
