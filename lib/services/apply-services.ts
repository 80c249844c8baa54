import type { Service } from "kubernetes-types/core/v1.js";
import { chmod, mkdir, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { errorMessage, PodrunError } from "../errors.js";
import type { EventRecorder } from "../events/recorder.js";
import type { InvolvedObject } from "../events/types.js";
import type { ImageManager } from "../images/manager.js";
import { createOnClusterNetwork, type ClusterNetwork } from "../pod/cluster-network.js";
import { shortHash } from "../pod/spec/spec-hash.js";
import {
  ContainerNotStartedError,
  type ContainerRuntime,
  type ContainerSpec,
  type ContainerState,
} from "../runtime/types.js";
import { SERVICE_NODE_PORT_RANGE } from "../manifest/rules/service.js";
import {
  candidatePods,
  proxyConfigText,
  readStoredRouting,
  type StoredRouting,
  writeProxyConfigText,
  writeStoredRouting,
} from "./endpoint-sync.js";
import { LABEL_MANAGED } from "../runtime/types.js";
import {
  buildProxySpec,
  hasProxy,
  LABEL_SERVICE_HASH,
  LABEL_SERVICE_NODE_PORTS,
  LABEL_SERVICE_STATUS_DIR,
  portKey,
  proxyContainerName,
  proxyDirectories,
  routingOf,
  serviceDirectory,
} from "./service-proxy.js";
import type { ServiceAddress } from "./service-env.js";
import { readServiceRecord, recordService } from "./service-record.js";
import { SERVICE_PROXY_APPLIED_FILE } from "./proxy-config.js";
import type { ProxyFiles } from "./proxy-applied.js";

// The Services of an `up`, made before its pods (service-proxy.ts says what a Service is here):
// (1) a proxy whose Service is unchanged is kept, with its address, node ports and connections;
// one whose Service changed only in how it routes (selector, ports it listens on, targetPort,
// affinity, externalName…) is kept too, and gets the new routing and config (`configured`): an
// engine cannot change a running container's labels, so the routing lives in the Service's
// directory (routing.json), and the proxy's label hash covers only what the container publishes;
// (2) otherwise the old one goes, the node ports are kept or taken, the image is ensured as any
// pod's (events, back-off, credentials), the config is written from the pods there now, and the
// proxy is started; (3) its address is read back: the Service's cluster IP, for the pods' env
// and `ps`. A headless Service has no proxy (its name is its pods'). An ExternalName Service's
// proxy relays to its externalName (service-proxy.ts); its address is the relay's, not a cluster
// IP: it gives the pods no Service variables (service-env.ts).

export interface ServicesOptions {
  services: readonly { service: Service; source: string }[];
  cluster: ClusterNetwork;
  image: string;
  /** Where node ports and load balancer ports are published (127.0.0.1 unless widened). */
  address: string;
  stateDir: string;
  dryRun: boolean;
}

/** How one Service came up. */
export interface ServiceOutcome {
  service: Service;
  source: string;
  action: "created" | "configured" | "kept" | "headless";
  clusterIP?: string | undefined;
  nodePorts: ReadonlyMap<string, number>;
  /** Where its node ports are published. */
  address?: string;
  /** Its proxy's files, when it has a proxy that reports what it applied (`up` waits for it). */
  proxy?: ProxyFiles;
}

type ServiceDeps = { runtime: ContainerRuntime; recorder: Pick<EventRecorder, "event">; images: ImageManager };

export async function applyServices(deps: ServiceDeps, options: ServicesOptions): Promise<ServiceOutcome[]> {
  const outcomes: ServiceOutcome[] = [];
  // Each Service is recorded once made, headless and ExternalName ones too: `ps svc` and `down` read it (service-record.ts).
  const recordLast = () => recordService({ ...options, engine: deps.runtime.name }, outcomes.at(-1)!);
  for (const { service, source } of options.services) {
    if (!hasProxy(service)) {
      await removeFormerProxy(deps.runtime, service, options);
      outcomes.push({ service, source, action: "headless", nodePorts: new Map() });
      await recordLast();
      continue;
    }
    outcomes.push({ ...(await applyService(deps, service, options)), source });
    await recordLast();
  }
  return outcomes;
}

/**
 * A Service made headless whose last `up` gave it a proxy (its record says so): the proxy goes, or
 * it would keep answering at the old address. No engine call when the record says none was made.
 */
async function removeFormerProxy(
  runtime: ContainerRuntime,
  service: Service,
  options: Pick<ServicesOptions, "stateDir" | "dryRun">,
): Promise<void> {
  const { namespace, name } = routingOf(service);
  const record = await readServiceRecord(serviceDirectory(options.stateDir, runtime.name, namespace, name));
  if (options.dryRun || !record || !hasProxy(record.service)) return;
  await runtime.removeContainers([proxyContainerName(namespace, name)]);
}

/** The run's Services with their addresses, for the pods' environment (service-env.ts). */
export const serviceAddressesOf = (outcomes: readonly ServiceOutcome[]): ServiceAddress[] =>
  outcomes.map(({ service, clusterIP }) => ({ service, clusterIP }));

async function applyService(
  deps: ServiceDeps,
  service: Service,
  options: ServicesOptions,
): Promise<Omit<ServiceOutcome, "source">> {
  const { runtime } = deps;
  const routing = routingOf(service);
  const name = proxyContainerName(routing.namespace, routing.name);
  const hash = publishedHash(service, options);
  const specHash = shortHash({ spec: service.spec });
  const serviceDir = serviceDirectory(options.stateDir, runtime.name, routing.namespace, routing.name);
  const { configDir, statusDir } = proxyDirectories(serviceDir);
  // 1. Kept: the same Service, or one that only routes differently, its proxy running.
  const existing = options.dryRun ? undefined : (await runtime.inspectContainers([name]))[0];
  const kept = readNodePorts(existing);
  const files: ProxyFiles = {
    name,
    namespace: routing.namespace,
    service: routing.name,
    uid: service.metadata?.uid ?? "",
    configDir,
    statusDir,
  };
  const stored = await readStoredRouting(serviceDir);
  const plan = planService(
    existing && { running: existing.running, hash: existing.labels[LABEL_SERVICE_HASH] },
    stored?.specHash,
    { hash, specHash },
  );
  if (plan !== "create" && existing) {
    if (plan === "configure") await writeRouting(runtime, serviceDir, { specHash, routing });
    return {
      service,
      action: plan === "keep" ? "kept" : "configured",
      clusterIP: existing.ip,
      nodePorts: kept,
      address: options.address,
      ...(existing.labels[LABEL_SERVICE_STATUS_DIR] ? { proxy: files } : {}),
    };
  }
  // 2. Made anew: the old proxy goes first (its node ports are freed, and taken back below).
  if (existing) await runtime.removeContainers([existing.id]);
  const nodePorts = await allocateNodePorts(service, kept, options);
  const object = serviceObject(service);
  const image = await deps.images.ensureImageExists({
    object,
    image: options.image,
    pullPolicy: "IfNotPresent",
    present: options.dryRun ? new Map() : await runtime.inspectImages([options.image]),
  });
  if (!options.dryRun) {
    await writeRouting(runtime, serviceDir, { specHash, routing });
    await makeStatusDirectory(statusDir);
  }
  const build = (cluster: ClusterNetwork) =>
    buildProxySpec({ service, image, cluster, configDir, statusDir, hash, nodePorts, address: options.address });
  const id = await startProxy(runtime, build, options).catch((error: unknown) => {
    const message = `service/${routing.name}: ${describeProxyFailure(error, nodePorts)}`;
    throw new PodrunError("FailedServiceProxy", message, { cause: error });
  });
  // 3. Its address on the cluster network: the cluster IP.
  const clusterIP = options.dryRun ? `<address of ${name}>` : (await runtime.inspectContainers([id]))[0]?.ip;
  return {
    service,
    action: existing ? "configured" : "created",
    clusterIP,
    nodePorts,
    address: options.address,
    ...(options.dryRun ? {} : { proxy: files }),
  };
}

/** The Service's routing stored for every run's endpoint sync, and its config from the pods there now. */
async function writeRouting(runtime: ContainerRuntime, serviceDir: string, stored: StoredRouting): Promise<void> {
  await writeStoredRouting(serviceDir, stored);
  const containers = await runtime.listContainers({ [LABEL_MANAGED]: "true" });
  const { configDir } = proxyDirectories(serviceDir);
  await writeProxyConfigText(configDir, proxyConfigText(stored.routing, candidatePods(containers)));
}

/**
 * Makes and starts the proxy; its ID. Nothing half-made: a proxy made but not started (its port
 * taken, its network gone) goes. A cluster network that another run removed or made at the same
 * moment is found or made again, and the proxy made again, as a sandbox is (createOnClusterNetwork).
 */
async function startProxy(
  runtime: ContainerRuntime,
  build: (cluster: ClusterNetwork) => ContainerSpec,
  options: Pick<ServicesOptions, "cluster" | "dryRun">,
): Promise<string> {
  const create = async (cluster: ClusterNetwork | undefined) => {
    const spec = build(cluster ?? options.cluster);
    return runtime.createContainer(spec, { start: true }).catch(async (error: unknown) => {
      await runtime.removeContainers([spec.name]).catch(() => undefined); // the error says what failed
      throw error;
    });
  };
  if (options.dryRun) return create(options.cluster);
  return createOnClusterNetwork(runtime, options.cluster, create);
}

/**
 * The one directory the proxy writes: emptied of an earlier proxy's report (the new one has applied
 * nothing yet), and writable by any user, since the proxy runs as its image's root with every
 * capability dropped (no CAP_DAC_OVERRIDE), which under a rootful engine is not this user. Sticky,
 * as /tmp is: no other user can replace the proxy's report; at worst one writes a first report that
 * makes `up` return before the proxy has read its config, as it did before proxies reported.
 */
async function makeStatusDirectory(statusDir: string): Promise<void> {
  await mkdir(statusDir, { recursive: true });
  await chmod(statusDir, 0o1777);
  await rm(join(statusDir, SERVICE_PROXY_APPLIED_FILE), { force: true });
}

/**
 * What the proxy container is made of beyond its routing: a change here needs a new container (an
 * engine publishes ports and joins networks only at creation); any other change is made in place.
 */
function publishedHash(service: Service, options: Pick<ServicesOptions, "image" | "address" | "cluster">): string {
  const type = service.spec?.type ?? "ClusterIP";
  const published = type === "NodePort" || type === "LoadBalancer";
  return shortHash({
    type: published ? type : "ClusterIP",
    ports: published ? (service.spec?.ports ?? []).map((p) => [portKey(p), p.nodePort ?? null]) : [],
    image: options.image,
    address: options.address,
    network: options.cluster.name,
  });
}

/**
 * What becomes of a Service's proxy (pure): kept when it runs with the same published part and the
 * stored spec is the Service's; configured in place when only the spec's routing changed; made
 * anew otherwise (none yet, not running, or what it publishes changed).
 */
export function planService(
  existing: { running: boolean; hash: string | undefined } | undefined,
  storedSpecHash: string | undefined,
  want: { hash: string; specHash: string },
): "keep" | "configure" | "create" {
  if (!existing?.running || existing.hash !== want.hash) return "create";
  return storedSpecHash === want.specHash ? "keep" : "configure";
}

function serviceObject(service: Service): InvolvedObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    name: service.metadata?.name ?? "",
    namespace: service.metadata?.namespace ?? "default",
    uid: service.metadata?.uid ?? "",
  };
}

function readNodePorts(proxy: ContainerState | undefined): Map<string, number> {
  const label = proxy?.labels[LABEL_SERVICE_NODE_PORTS];
  if (!label) return new Map();
  try {
    return new Map(Object.entries(JSON.parse(label) as Record<string, number>));
  } catch {
    return new Map(); // a label changed by hand: node ports are taken anew
  }
}

/**
 * The node port of each port of a NodePort or LoadBalancer Service: the one written, else the one
 * its proxy had, else a free one of 30000–32767, as the API server's allocator gives one when none
 * is set (and the line `up` prints shows it).
 */
async function allocateNodePorts(
  service: Service,
  kept: ReadonlyMap<string, number>,
  options: Pick<ServicesOptions, "address" | "dryRun">,
): Promise<Map<string, number>> {
  const type = service.spec?.type;
  const ports = new Map<string, number>();
  if (type !== "NodePort" && type !== "LoadBalancer") return ports;
  for (const port of service.spec?.ports ?? []) {
    if (port.protocol === "SCTP") continue;
    const key = portKey(port);
    const chosen = port.nodePort ?? kept.get(key) ?? (options.dryRun ? 0 : await findFreePort(options.address, ports));
    ports.set(key, chosen);
  }
  return ports;
}

async function findFreePort(address: string, taken: ReadonlyMap<string, number>): Promise<number> {
  const { min, max } = SERVICE_NODE_PORT_RANGE;
  const size = max - min + 1;
  const start = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i++) {
    const port = min + ((start + i) % size);
    if ([...taken.values()].includes(port)) continue;
    if (await isFree(address, port)) return port;
  }
  throw new PodrunError("FailedServiceProxy", `no free node port in ${min}-${max} on ${address}`);
}

function isFree(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ host: address, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The engine's words, or, for a port taken on this machine, which one. */
function describeProxyFailure(error: unknown, nodePorts: ReadonlyMap<string, number>): string {
  // Made but not started: the engine's words are the start's.
  const message = errorMessage(error instanceof ContainerNotStartedError ? error.cause : error);
  const taken = /address already in use|port is already allocated|bind.*in use/i.test(message);
  if (!taken) return `its proxy did not start: ${message}`;
  const ports = [...nodePorts.values()].join(", ");
  return `a port it publishes on this machine is taken (${ports || "its ports"}): ${message}`;
}
