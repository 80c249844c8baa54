import type { Service, ServicePort } from "kubernetes-types/core/v1.js";
import { join } from "node:path";
import type { ClusterNetwork } from "../pod/cluster-network.js";
import { LABEL_CONTAINER_NAME, LABEL_MANAGED, type ContainerSpec, type PortMapping } from "../runtime/types.js";
import { serviceDomainName } from "../pod/etc/hosts-file.js";
import { SERVICE_PROXY_CONFIG_DIR, SERVICE_PROXY_STATUS_DIR } from "./proxy-config.js";

// A Service as podrun makes it: one proxy container (images/service-proxy) on the cluster network,
// named `<namespace>_<name>_SVC` (a pod's containers are `<namespace>_<pod>_<container>`, and no
// container name is upper case), whose address is the Service's cluster IP and whose network alias
// is the Service's name, `<name>.<namespace>.svc.cluster.local`; the pods' search list makes the
// shorter forms resolve. It relays each port to the endpoints' targetPort, from a config file podrun
// writes (endpoint-sync.ts). An ExternalName Service gets one too, which relays each port it lists
// to `externalName:port`, resolved by the proxy at each connection: the engines' DNS holds no
// CNAME. A headless Service has no proxy: its name is an alias of its endpoint pods
// (lib/pod/cluster-network.ts). The proxy is no pod's container: it carries podrun's Service
// labels, not the kubelet's pod labels, so that pod listings (find-pods.ts) pass it by.
// Design and cost: docs/services.md.

export const LABEL_SERVICE_NAME = "io.podrun.service.name";
export const LABEL_SERVICE_NAMESPACE = "io.podrun.service.namespace";
export const LABEL_SERVICE_UID = "io.podrun.service.uid";
/**
 * The hash of what the proxy container publishes (type, published ports, image, address, network):
 * while it is the same the proxy is kept, and so its address; routing changes are made in place.
 */
export const LABEL_SERVICE_HASH = "io.podrun.service.hash";
/**
 * What any run needs to find the Service's endpoints (ServiceRouting, JSON), as the proxy was made
 * with; a change made in place since is in the Service's directory (endpoint-sync.ts readStoredRouting).
 */
export const LABEL_SERVICE_ROUTING = "io.podrun.service.routing";
/** The host directory the proxy reads its config from (any run rewrites it). */
export const LABEL_SERVICE_CONFIG_DIR = "io.podrun.service.config-dir";
/** The host directory the proxy reports the config it applied in (none on an older podrun's proxy). */
export const LABEL_SERVICE_STATUS_DIR = "io.podrun.service.status-dir";
/** The node ports given to the Service (`port/protocol` → nodePort, JSON): kept by the next run. */
export const LABEL_SERVICE_NODE_PORTS = "io.podrun.service.node-ports";
export const SERVICE_PROXY_CONTAINER_NAME = "service-proxy";

/** What the endpoints of a Service are computed from: its selector, ports and affinity. */
export interface ServiceRouting {
  namespace: string;
  name: string;
  selector?: Record<string, string>;
  ports: Pick<ServicePort, "name" | "protocol" | "port" | "targetPort">[];
  sessionAffinity: "None" | "ClientIP";
  affinityTimeoutSeconds?: number;
  publishNotReadyAddresses?: boolean;
  /** An ExternalName Service's target: its ports go there, by name, rather than to pods. */
  externalName?: string;
}

export const isHeadless = (service: Service): boolean => service.spec?.clusterIP === "None";
export const isExternalName = (service: Service): boolean => service.spec?.type === "ExternalName";
/** A Service that gets a proxy: any but a headless one (an ExternalName Service has no clusterIP field). */
export const hasProxy = (service: Service): boolean => isExternalName(service) || !isHeadless(service);

export function proxyContainerName(namespace: string, name: string): string {
  return `${namespace}_${name}_SVC`;
}

/** The Service's directory in podrun's state directory; its proxy reads `proxy/` of it and writes `status/`. */
export function serviceDirectory(stateDir: string, engine: string, namespace: string, name: string): string {
  return join(stateDir, "services", engine, `${namespace}_${name}`);
}

/** The directories of a Service's proxy, in its Service's directory. */
export const proxyDirectories = (serviceDir: string): { configDir: string; statusDir: string } => ({
  configDir: join(serviceDir, "proxy"),
  statusDir: join(serviceDir, "status"),
});

export function routingOf(service: Service): ServiceRouting {
  const spec = service.spec ?? {};
  return {
    namespace: service.metadata?.namespace ?? "default",
    name: service.metadata?.name ?? "",
    ...(spec.selector ? { selector: spec.selector } : {}),
    ports: (spec.ports ?? [])
      .filter((p) => p.protocol !== "SCTP")
      .map((p) => ({
        ...(p.name ? { name: p.name } : {}),
        protocol: p.protocol ?? "TCP",
        port: p.port,
        ...(p.targetPort !== undefined ? { targetPort: p.targetPort } : {}),
      })),
    sessionAffinity: spec.sessionAffinity === "ClientIP" ? "ClientIP" : "None",
    ...(spec.sessionAffinity === "ClientIP"
      ? { affinityTimeoutSeconds: spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? 10800 }
      : {}),
    ...(spec.publishNotReadyAddresses ? { publishNotReadyAddresses: true } : {}),
    ...(isExternalName(service) && spec.externalName ? { externalName: spec.externalName } : {}),
  };
}

/** `port/protocol` of a Service port: the key its node port is kept under. */
export const portKey = (port: Pick<ServicePort, "port" | "protocol">): string =>
  `${port.port}/${port.protocol ?? "TCP"}`;

/**
 * What the proxy publishes on this machine: a NodePort Service its node ports, a LoadBalancer its
 * node ports and its ports (as a one-node cluster's load balancer does: k3s's servicelb), each on
 * `address` (127.0.0.1 unless the user opens it wider: docs/services.md says why).
 */
export function publishedPorts(
  service: Service,
  nodePorts: ReadonlyMap<string, number>,
  address: string,
): PortMapping[] {
  const type = service.spec?.type;
  if (type !== "NodePort" && type !== "LoadBalancer") return [];
  const published: PortMapping[] = [];
  for (const port of routingOf(service).ports) {
    const protocol = (port.protocol ?? "TCP") as PortMapping["protocol"];
    const nodePort = nodePorts.get(portKey(port));
    if (nodePort !== undefined)
      published.push({ hostPort: nodePort, containerPort: port.port, protocol, hostIP: address });
    if (type === "LoadBalancer")
      published.push({ hostPort: port.port, containerPort: port.port, protocol, hostIP: address });
  }
  return published;
}

export interface ProxySpecOptions {
  service: Service;
  image: string;
  cluster: ClusterNetwork;
  configDir: string;
  statusDir: string;
  hash: string;
  nodePorts: ReadonlyMap<string, number>;
  address: string;
}

/**
 * The proxy container: on the cluster network under the Service's name, least privileged, its
 * config dir mounted read-only and its status dir (the one place it writes) read-write.
 */
export function buildProxySpec(options: ProxySpecOptions): ContainerSpec {
  const { service, cluster } = options;
  const routing = routingOf(service);
  return {
    name: proxyContainerName(routing.namespace, routing.name),
    image: options.image,
    labels: {
      [LABEL_MANAGED]: "true",
      [LABEL_CONTAINER_NAME]: SERVICE_PROXY_CONTAINER_NAME,
      [LABEL_SERVICE_NAME]: routing.name,
      [LABEL_SERVICE_NAMESPACE]: routing.namespace,
      [LABEL_SERVICE_UID]: service.metadata?.uid ?? "",
      [LABEL_SERVICE_HASH]: options.hash,
      [LABEL_SERVICE_ROUTING]: JSON.stringify(routing),
      [LABEL_SERVICE_CONFIG_DIR]: options.configDir,
      [LABEL_SERVICE_STATUS_DIR]: options.statusDir,
      [LABEL_SERVICE_NODE_PORTS]: JSON.stringify(Object.fromEntries(options.nodePorts)),
    },
    hostNetwork: false,
    network: {
      name: cluster.name,
      ...(cluster.id ? { id: cluster.id } : {}),
      aliases: [serviceDomainName(routing.namespace, routing.name)],
    },
    ports: publishedPorts(service, options.nodePorts, options.address),
    // Restarted by the engine if it dies, as kube-proxy's rules outlive any one process.
    restartPolicy: "always",
    stopTimeoutSeconds: 0,
    mounts: [
      { volume: "service-config", target: SERVICE_PROXY_CONFIG_DIR, readOnly: true, source: options.configDir },
      { volume: "service-status", target: SERVICE_PROXY_STATUS_DIR, readOnly: false, source: options.statusDir },
    ],
    // It binds the Service's ports (below 1024 too) and relays bytes: nothing else.
    security: { capDrop: ["ALL"], capAdd: ["NET_BIND_SERVICE"], readOnlyRootFilesystem: true, noNewPrivileges: true },
  };
}
