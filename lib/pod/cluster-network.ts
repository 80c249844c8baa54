import type { Pod } from "kubernetes-types/core/v1.js";
import { isNetworkUnusable } from "../runtime/network.js";
import type { ContainerRuntime, SandboxNetwork } from "../runtime/types.js";
import { LABEL_MANAGED } from "../runtime/types.js";
import { HOST_NETWORK } from "../runtime/relay.js";
import { resolvePodHostDomain, serviceDomainName } from "./etc/hosts-file.js";
import type { PodIdentity } from "./identity.js";
import { resolveDnsHostname } from "./spec/pod-settings.js";

// The cluster network: one engine network named `podrun` that every podrun pod of the engine
// joins, whatever its namespace and whichever run made it, as a cluster's pods share one flat
// network. It is a bridge with the engine's own DNS (docker's embedded server, podman's
// aardvark-dns), which gives the names a cluster's DNS gives. `up` makes it on demand, before the
// pods; `down` removes it once no container uses it; made by podrun, it carries io.podrun.managed. The
// engine's DNS answers the network aliases a sandbox is made with, so a pod's names are aliases:
// `<hostname>.<subdomain>.<namespace>.svc.cluster.local` for a pod with a subdomain (a
// StatefulSet's pods under its serviceName), as CoreDNS answers it for the pod's headless
// Service (https://github.com/kubernetes/dns/blob/master/docs/specification.md, 2.4.1).
// A hostNetwork pod stays on the host's network, with no names of its own.

/** The network a run's pods join, and where its DNS answers. */
export interface ClusterNetwork {
  name: string;
  /** The engine's ID of it (what a sandbox joins by); empty in a dry run. */
  id: string;
  /** The address of the engine's DNS on it; undefined when the engine has none (nerdctl, podman under CNI without dnsname). */
  dnsServer?: string | undefined;
  /**
   * The run's headless Services: a pod one of them selects is named by it too, as CoreDNS answers a
   * headless Service's name with its endpoints' addresses (the engine's DNS gives every container
   * holding an alias).
   */
  headless?: readonly { namespace: string; name: string; selector: Readonly<Record<string, string>> }[];
}

/**
 * How the pod's sandbox joins the network: its DNS names, in a stable order (the pod hash covers
 * them). Not the network's ID, which makeSandbox adds: a network made anew is the same network.
 */
export function planSandboxNetwork(
  pod: Pod,
  identity: PodIdentity,
  cluster: ClusterNetwork | undefined,
): SandboxNetwork | undefined {
  const spec = pod.spec!;
  if (!cluster || spec.hostNetwork === true) return undefined;
  const aliases: string[] = [];
  const domain = resolvePodHostDomain(spec, identity.namespace);
  if (domain) aliases.push(`${resolveDnsHostname(pod, identity.name)}.${domain}`);
  const labels = pod.metadata?.labels ?? {};
  for (const service of cluster.headless ?? []) {
    const selector = Object.entries(service.selector);
    if (service.namespace !== identity.namespace || selector.length === 0) continue;
    if (selector.every(([key, value]) => labels[key] === value))
      aliases.push(serviceDomainName(service.namespace, service.name));
  }
  return { name: cluster.name, aliases };
}

export const CLUSTER_NETWORK_NAME = "podrun";
/** On the cluster network: what it is for. */
export const LABEL_NETWORK = "io.podrun.network";

const CLUSTER_NETWORK_LABELS = { [LABEL_MANAGED]: "true", [LABEL_NETWORK]: "cluster" };

/** Whether a run of these pods needs the network: any pod off the host's network does. */
export function needsClusterNetwork(pods: readonly { spec?: { hostNetwork?: boolean } }[]): boolean {
  return pods.some((pod) => pod.spec?.hostNetwork !== true);
}

/** The cluster network, found or made (ensureNetwork: two runs at once get the same one). */
export async function ensureClusterNetwork(runtime: ContainerRuntime): Promise<ClusterNetwork> {
  const network = await runtime.ensureNetwork(CLUSTER_NETWORK_NAME, CLUSTER_NETWORK_LABELS);
  return { name: network.name, id: network.id, dnsServer: network.dnsServer };
}

/**
 * How many times a create that joins the cluster network is made again when the network failed
 * it. Each failure is another run's doing, in the moment between this run's ensure and its create:
 * its `down --all` removed the network (no container was on it yet), or, for a network an older
 * podrun made without a subnet, a twin made the name ambiguous until one run removed it (lib/runtime/network.ts).
 * Runs that start together meet each other more than once: the kill suite's cases, three at a
 * time beside other test files, met three in a row.
 */
export const CLUSTER_NETWORK_RETRIES = 4;

/**
 * Runs `create` (a sandbox's, or a Service proxy's) on the cluster network. When the network failed
 * it (isNetworkUnusable), the network is found or made again and `create` runs again on it, up to
 * CLUSTER_NETWORK_RETRIES times; `recover` may fix another failure first (true: run it again).
 */
export async function createOnClusterNetwork<T>(
  runtime: ContainerRuntime,
  cluster: ClusterNetwork | undefined,
  create: (cluster: ClusterNetwork | undefined) => Promise<T>,
  recover: (error: unknown) => Promise<boolean> = () => Promise.resolve(false),
): Promise<T> {
  for (let left = CLUSTER_NETWORK_RETRIES; ; left--) {
    try {
      return await create(cluster);
    } catch (error) {
      if (left === 0) throw error;
      if (cluster && isNetworkUnusable(error)) cluster = { ...cluster, ...(await ensureClusterNetwork(runtime)) };
      else if (!(await recover(error))) throw error;
    }
  }
}

/**
 * Removes the cluster network when podrun has no container left on this engine, in any state:
 * docker holds a network only for started containers, and another run may have just created a
 * sandbox that will join it. Kept (false) otherwise, or while the engine says it is in use. A run
 * that finds it gone between its ensure and its create makes it anew (createOnClusterNetwork).
 */
export async function removeClusterNetworkIfUnused(
  runtime: ContainerRuntime,
  listed?: readonly unknown[],
): Promise<boolean> {
  if ((listed ?? (await runtime.listContainers({ [LABEL_MANAGED]: "true" }))).length > 0) return false;
  // The relays (runtime/relay.ts) are no pod's: they go with the network, the host network's too.
  await Promise.all([runtime.removeRelay(CLUSTER_NETWORK_NAME), runtime.removeRelay(HOST_NETWORK)]);
  return runtime.removeNetwork(CLUSTER_NETWORK_NAME);
}
