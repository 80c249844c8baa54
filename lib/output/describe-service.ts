import type { Service } from "kubernetes-types/core/v1.js";
import { formatLabels } from "../text/labels.js";
import type { FoldedRow } from "../events/fold.js";
import { describeEvents, keyValues } from "./describe-pod.js";
import { alignTabs } from "./tab-writer.js";

// `podrun describe svc/NAME`: the Service in kubectl's layout (pure), from what `get svc` lists
// (services/list-services.ts: the record, the address and node ports on the engine, the endpoints
// of each port). kubectl's describeService:
// https://github.com/kubernetes/kubectl/blob/v0.34.0/pkg/describe/describe.go

export interface ServiceDescription {
  service: Service;
  /** `ip:port` of each port's endpoints, a list per port of spec.ports. */
  endpointsByPort: readonly (readonly string[])[];
  /** Every endpoint (a headless Service without ports: its pods' addresses). */
  endpoints: readonly string[];
  events: readonly FoldedRow[];
  nowMs: number;
}

export function formatServiceDescription(input: ServiceDescription): string {
  const { service } = input;
  const spec = service.spec ?? {};
  const lines = [
    `Name:\t${service.metadata?.name ?? ""}`,
    `Namespace:\t${service.metadata?.namespace ?? "default"}`,
    ...keyValues("Labels", service.metadata?.labels),
    ...keyValues("Annotations", service.metadata?.annotations),
    `Selector:\t${formatLabels(spec.selector)}`,
    `Type:\t${spec.type ?? "ClusterIP"}`,
    ...(spec.ipFamilyPolicy ? [`IP Family Policy:\t${spec.ipFamilyPolicy}`] : []),
    ...(spec.ipFamilies?.length ? [`IP Families:\t${spec.ipFamilies.join(",")}`] : []),
    `IP:\t${spec.clusterIP ?? ""}`,
    ...(spec.clusterIPs?.length ? [`IPs:\t${spec.clusterIPs.join(",")}`] : []),
    ...(spec.externalIPs?.length ? [`External IPs:\t${spec.externalIPs.join(",")}`] : []),
    ...(spec.externalName ? [`External Name:\t${spec.externalName}`] : []),
    ...describePorts(input),
    `Session Affinity:\t${spec.sessionAffinity ?? "None"}`,
    ...(spec.externalTrafficPolicy ? [`External Traffic Policy:\t${spec.externalTrafficPolicy}`] : []),
    ...(spec.internalTrafficPolicy ? [`Internal Traffic Policy:\t${spec.internalTrafficPolicy}`] : []),
    ...describeEvents(input.events, input.nowMs),
  ];
  return `${alignTabs(lines).join("\n")}\n`;
}

/** Each port: its name (`<unset>`), number and protocol, its target, its node port, its endpoints. */
function describePorts({ service, endpointsByPort, endpoints }: ServiceDescription): string[] {
  const ports = service.spec?.ports ?? [];
  if (ports.length === 0) return [`Endpoints:\t${formatEndpoints(endpoints)}`];
  return ports.flatMap((port, i) => {
    const name = port.name || "<unset>";
    const protocol = port.protocol ?? "TCP";
    const target = port.targetPort ?? port.port;
    return [
      `Port:\t${name}\t${port.port}/${protocol}`,
      `TargetPort:\t${target === 0 ? "<unset>" : target}/${protocol}`,
      ...(port.nodePort ? [`NodePort:\t${name}\t${port.nodePort}/${protocol}`] : []),
      `Endpoints:\t${formatEndpoints(endpointsByPort[i] ?? [])}`,
    ];
  });
}

/** kubectl's describe lists every endpoint, comma-separated; none: empty. */
function formatEndpoints(endpoints: readonly string[]): string {
  return endpoints.join(",");
}
