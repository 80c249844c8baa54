import type { ContainerPort, Service } from "kubernetes-types/core/v1.js";
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { groupPods, type PodRecord } from "../pod/status/find-pods.js";
import { LABEL_POD_PORTS } from "../pod/spec/spec-hash.js";
import { LABEL_MANAGED, type ContainerRuntime, type ContainerState } from "../runtime/types.js";
import { writeFileAtomic } from "../state/atomic-write.js";
import { serviceEndpoints, type CandidatePod } from "./endpoints.js";
import { renderProxyConfig, SERVICE_PROXY_CONFIG_FILE, type ProxyProtocol } from "./proxy-config.js";
import { LABEL_SERVICE_CONFIG_DIR, LABEL_SERVICE_ROUTING, type ServiceRouting } from "./service-proxy.js";

// The endpoints follow the pods, as the EndpointSlice controller and kube-proxy keep them: after
// `up` starts a pod, after `down` removes one, every Service proxy on the engine gets the config
// of what is there now. Read back from the engine, never from a cache: one listing of podrun's
// containers gives the pods (their labels, address, container ports and states) and the proxies
// (each with its routing and the directory its config lives in, whichever run made it). A pod is
// an endpoint while its sandbox and all its app containers run: podrun is no kubelet left running
// to probe it after `up` ends (docs/services.md). A config that did not change is not rewritten.

/**
 * Rewrites the config of every Service proxy whose endpoints changed; the proxies rewritten.
 * `containers`: podrun's containers as just listed, when the caller has them.
 */
export async function syncServiceEndpoints(
  runtime: ContainerRuntime,
  listed?: readonly ContainerState[],
): Promise<ContainerState[]> {
  const containers = listed ?? (await runtime.listContainers({ [LABEL_MANAGED]: "true" }));
  const proxies = containers.filter((c) => c.labels[LABEL_SERVICE_ROUTING] && c.labels[LABEL_SERVICE_CONFIG_DIR]);
  if (proxies.length === 0) return [];
  const pods = candidatePods(containers);
  const written: ContainerState[] = [];
  for (const proxy of proxies) if (await writeProxyConfig(proxy, pods)) written.push(proxy);
  return written;
}

/**
 * The config text of one Service for these pods (pure). An ExternalName Service's ports go to its
 * name at the same port, whatever the pods: a client of its CNAME on a cluster connects there.
 */
export function proxyConfigText(routing: ServiceRouting, pods: readonly CandidatePod[]): string {
  const { externalName } = routing;
  if (externalName)
    return renderProxyConfig({
      service: `${routing.namespace}/${routing.name}`,
      ports: routing.ports.map((port) => ({
        name: port.name ?? "",
        protocol: (port.protocol ?? "TCP") as ProxyProtocol,
        port: port.port,
        endpoints: [{ host: externalName, port: port.port }],
      })),
    });
  const service: Service = {
    metadata: { name: routing.name, namespace: routing.namespace },
    spec: {
      ...(routing.selector ? { selector: routing.selector } : {}),
      ports: routing.ports,
      ...(routing.publishNotReadyAddresses ? { publishNotReadyAddresses: true } : {}),
    },
  };
  return renderProxyConfig({
    service: `${routing.namespace}/${routing.name}`,
    sessionAffinity: routing.sessionAffinity,
    ...(routing.affinityTimeoutSeconds !== undefined ? { affinityTimeoutSeconds: routing.affinityTimeoutSeconds } : {}),
    ports: serviceEndpoints(service, pods).map((port) => ({
      name: port.name,
      protocol: port.protocol as ProxyProtocol,
      port: port.port,
      endpoints: port.endpoints,
    })),
  });
}

/**
 * Writes the Service's config into its directory; true when it changed. The run making the proxy
 * makes the directory (`create`); any other run writes only into one that is there: a `down` of
 * the Service removes its directory after its proxy, and a run that listed the proxy just before
 * must not make the directory again (it would outlive the Service).
 */
export async function writeProxyConfigText(configDir: string, text: string, create = true): Promise<boolean> {
  const file = join(configDir, SERVICE_PROXY_CONFIG_FILE);
  if ((await readFile(file, "utf8").catch(() => undefined)) === text) return false;
  if (create) await mkdir(configDir, { recursive: true });
  try {
    // Replaced by one rename: the proxy re-reads the path and never sees half a file.
    await writeFileAtomic(file, text, 0o644);
  } catch (error) {
    if (!create && (error as NodeJS.ErrnoException).code === "ENOENT") return false; // its Service went down meanwhile
    throw error;
  }
  return true;
}

async function writeProxyConfig(proxy: ContainerState, pods: readonly CandidatePod[]): Promise<boolean> {
  const configDir = proxy.labels[LABEL_SERVICE_CONFIG_DIR]!;
  // The Service's routing as its last `up` stored it (a change made in place), else as its proxy was made with.
  let routing = (await readStoredRouting(dirname(configDir)))?.routing;
  try {
    routing ??= JSON.parse(proxy.labels[LABEL_SERVICE_ROUTING]!) as ServiceRouting;
  } catch {
    return false; // not podrun's writing: a proxy whose label was changed by hand is left as it is
  }
  return writeProxyConfigText(configDir, proxyConfigText(routing, pods), false);
}

/** A Service's routing as `up` stored it in its directory, with the hash of the spec it came from. */
export interface StoredRouting {
  specHash: string;
  routing: ServiceRouting;
}

const ROUTING_FILE = "routing.json";

export async function readStoredRouting(serviceDir: string): Promise<StoredRouting | undefined> {
  try {
    const stored = JSON.parse(await readFile(join(serviceDir, ROUTING_FILE), "utf8")) as Partial<StoredRouting>;
    return typeof stored.specHash === "string" && stored.routing ? (stored as StoredRouting) : undefined;
  } catch {
    return undefined; // none yet (a proxy made by an older podrun), or not podrun's writing
  }
}

export async function writeStoredRouting(serviceDir: string, stored: StoredRouting): Promise<void> {
  await mkdir(serviceDir, { recursive: true });
  await writeFileAtomic(join(serviceDir, ROUTING_FILE), `${JSON.stringify(stored)}\n`, 0o644);
}

/** The pods among podrun's containers, as their Services see them. */
export function candidatePods(containers: readonly ContainerState[]): CandidatePod[] {
  return groupPods(containers).flatMap(toCandidate);
}

/** A pod as its Services see it: ready while its sandbox and every app container run. */
function toCandidate(pod: PodRecord): CandidatePod[] {
  const infra = pod.infra;
  if (!infra) return []; // a hostNetwork pod: on the host's address, which the cluster network does not reach
  const apps = pod.appContainers;
  const ready = infra.running && apps.length > 0 && apps.every((c) => c.running);
  return [
    {
      name: pod.name,
      namespace: pod.namespace,
      labels: infra.labels,
      ip: infra.ip,
      ready,
      containers: [{ ports: readPorts(infra.labels[LABEL_POD_PORTS]) }],
    },
  ];
}

function readPorts(label: string | undefined): ContainerPort[] {
  if (!label) return [];
  try {
    const ports = JSON.parse(label) as unknown;
    return Array.isArray(ports) ? (ports as ContainerPort[]) : [];
  } catch {
    return []; // a label changed by hand: the pod's named ports are not known, its numbered ones still are
  }
}
