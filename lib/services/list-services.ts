import type { Service, ServicePort } from "kubernetes-types/core/v1.js";
import { dirname } from "node:path";
import { toKubeTime } from "../pod/status/pod-status.js";
import { LABEL_MANAGED, type ContainerRuntime, type ContainerState } from "../runtime/types.js";
import { candidatePods } from "./endpoint-sync.js";
import { headlessAddresses, serviceEndpoints, type CandidatePod } from "./endpoints.js";
import {
  hasProxy,
  LABEL_SERVICE_CONFIG_DIR,
  LABEL_SERVICE_NAME,
  LABEL_SERVICE_NAMESPACE,
  LABEL_SERVICE_NODE_PORTS,
  LABEL_SERVICE_ROUTING,
  portKey,
  type ServiceRouting,
} from "./service-proxy.js";
import { readServiceRecord, readServiceRecords, recordKey, type ServiceRecord } from "./service-record.js";

// The Services there are, as `kubectl get svc` would list them: read on every call from the engine
// (one listing of podrun's containers: the proxies and the pods) and from the records runs left
// (service-record.ts). The engine is the truth for a Service with a proxy: its cluster IP is the
// proxy's address now, its node ports the proxy's label, and one whose proxy is gone (removed by
// hand, an engine reset) is not listed, since nothing answers at its name or address any more, as
// `ps` lists no pod whose containers are gone; its record stays until `down` of it or `down --all`.
// A headless Service has nothing on the engine: its record is the Service.

/** A Service as `ps svc` shows it. */
export interface ListedService {
  /** The object kubectl would get: metadata.creationTimestamp, spec.clusterIP(s), spec.ports[].nodePort, status. */
  service: Service;
  /** `ip:port` of each port's endpoints, port by port (a headless Service without ports: its pods' IPs). */
  endpoints: string[];
  /** The same, one list per port of spec.ports, in its order (none without ports), as `describe svc` shows them. */
  endpointsByPort: string[][];
}

export async function findServices(
  runtime: ContainerRuntime,
  options: { stateDir: string; namespace?: string | undefined },
): Promise<ListedService[]> {
  const [containers, records] = await Promise.all([
    runtime.listContainers({ [LABEL_MANAGED]: "true" }),
    readServiceRecords(options.stateDir, runtime.name),
  ]);
  const proxies = containers.filter(isProxy);
  // A proxy another state directory's run made: its record is beside its config directory.
  const known = new Set(records.map(recordKey));
  const elsewhere = await Promise.all(
    proxies
      .filter((proxy) => !known.has(proxyKey(proxy)) && proxy.labels[LABEL_SERVICE_CONFIG_DIR])
      .map(async (proxy) => {
        const record = await readServiceRecord(dirname(proxy.labels[LABEL_SERVICE_CONFIG_DIR]!));
        return record && recordKey(record) === proxyKey(proxy) ? [record] : [];
      }),
  );
  const pods = candidatePods(containers);
  return mergeServices(proxies, [...records, ...elsewhere.flat()])
    .filter((service) => options.namespace === undefined || service.metadata?.namespace === options.namespace)
    .map((service) => ({
      service,
      endpoints: endpointsOf(service, pods),
      endpointsByPort: endpointsByPortOf(service, pods),
    }));
}

/** The Services of these proxies and records (pure), sorted by namespace and name, as the API server lists them. */
export function mergeServices(proxies: readonly ContainerState[], records: readonly ServiceRecord[]): Service[] {
  const byKey = new Map(records.map((record) => [recordKey(record), record]));
  const proxied = new Set(proxies.map(proxyKey));
  const services = [
    ...proxies.map((proxy) => serviceOfProxy(proxy, byKey.get(proxyKey(proxy)))),
    ...[...byKey.values()]
      .filter((record) => !proxied.has(recordKey(record)) && !hasProxy(record.service))
      .map((record) => record.service),
  ];
  const keyOf = (s: Service) => [s.metadata?.namespace ?? "", s.metadata?.name ?? ""];
  return services.sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
}

/** `ip:port` of each endpoint of each port (pure); an ExternalName Service has none. */
export function endpointsOf(service: Service, pods: readonly CandidatePod[]): string[] {
  if (service.spec?.type === "ExternalName") return [];
  // kubectl's formatEndpoints: a headless Service without ports lists its addresses alone.
  if (!service.spec?.ports?.length) return headlessAddresses(service, pods);
  return endpointsByPortOf(service, pods).flat();
}

/** `ip:port` of each port's endpoints, a list per port of spec.ports (pure); none for an ExternalName Service. */
export function endpointsByPortOf(service: Service, pods: readonly CandidatePod[]): string[][] {
  if (service.spec?.type === "ExternalName" || !service.spec?.ports?.length) return [];
  return serviceEndpoints(service, pods).map((port) =>
    port.endpoints.map(({ ip, port }) => (ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`)),
  );
}

const isProxy = (c: ContainerState): boolean => !!c.labels[LABEL_SERVICE_NAME] && !!c.labels[LABEL_SERVICE_NAMESPACE];
const proxyKey = (c: ContainerState): string => `${c.labels[LABEL_SERVICE_NAMESPACE]}/${c.labels[LABEL_SERVICE_NAME]}`;

/** The proxy's Service: its record's, with the address and node ports the engine holds now. */
function serviceOfProxy(proxy: ContainerState, record: ServiceRecord | undefined): Service {
  const nodePorts = readNodePorts(proxy);
  const service = record ? structuredClone(record.service) : serviceOfLabels(proxy, nodePorts);
  const spec = (service.spec ??= {});
  if (spec.ports) spec.ports = spec.ports.map((port) => withNodePort(port, nodePorts.get(portKey(port))));
  // A stopped proxy has no address: nothing answers at the Service's.
  delete spec.clusterIP;
  delete spec.clusterIPs;
  // An ExternalName has no cluster IP, as on a cluster: its relay's address is podrun's means, not the Service's.
  if (proxy.ip && spec.type !== "ExternalName") Object.assign(spec, { clusterIP: proxy.ip, clusterIPs: [proxy.ip] });
  if (!service.metadata?.creationTimestamp && proxy.createdAt)
    service.metadata = { ...service.metadata, creationTimestamp: toKubeTime(proxy.createdAt) };
  return service;
}

function withNodePort(port: ServicePort, nodePort: number | undefined): ServicePort {
  const { nodePort: _written, ...rest } = port;
  return nodePort ? { ...rest, nodePort } : rest;
}

/**
 * A proxy without a record (its record removed by hand, or a podrun before records made it): the
 * Service its labels say; a LoadBalancer's type is not among them, so one with node ports reads as NodePort.
 */
function serviceOfLabels(proxy: ContainerState, nodePorts: ReadonlyMap<string, number>): Service {
  const routing = readRouting(proxy);
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: proxy.labels[LABEL_SERVICE_NAME]!, namespace: proxy.labels[LABEL_SERVICE_NAMESPACE]! },
    spec: {
      type: nodePorts.size > 0 ? "NodePort" : "ClusterIP",
      ...(routing?.selector ? { selector: routing.selector } : {}),
      ports: routing?.ports.map((port) => ({ ...port })) ?? [],
      sessionAffinity: routing?.sessionAffinity ?? "None",
    },
    status: { loadBalancer: {} },
  };
}

function readRouting(proxy: ContainerState): ServiceRouting | undefined {
  try {
    return JSON.parse(proxy.labels[LABEL_SERVICE_ROUTING] ?? "") as ServiceRouting;
  } catch {
    return undefined; // a label changed by hand: the Service without its ports
  }
}

function readNodePorts(proxy: ContainerState): Map<string, number> {
  try {
    return new Map(
      Object.entries(JSON.parse(proxy.labels[LABEL_SERVICE_NODE_PORTS] ?? "{}") as Record<string, number>),
    );
  } catch {
    return new Map(); // a label changed by hand
  }
}

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}
