import type { PodDNSConfigOption, PodSpec } from "kubernetes-types/core/v1.js";
import { CLUSTER_DOMAIN } from "./hosts-file.js";

// The pod's resolv.conf as the kubelet computes it (pkg/kubelet/network/dns/dns.go GetPodDNS:
// https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/kubelet/network/dns/dns.go) and the
// runtime writes it. Pure: the host's resolv.conf comes in as text.
// - dnsPolicy None starts from nothing; Default from the host's nameservers, search list and
//   options; ClusterFirst (and ClusterFirstWithHostNet) from the cluster's DNS server, here the
//   engine's DNS on the cluster network (lib/pod/spec/cluster-network.ts), the search list
//   `<namespace>.svc.cluster.local svc.cluster.local cluster.local` followed by the host's, and
//   `options ndots:5` alone. Without a cluster DNS server (a hostNetwork pod under ClusterFirst, an
//   engine without DNS) the kubelet falls back to Default, and so does podrun.
// - dnsConfig is appended: nameservers and searches after the base ones, duplicates dropped;
//   an option of the same name replaces the base's (`ndots:2` over the host's `ndots:5`).
// - The result is cut to the resolver's limits: 3 nameservers, 32 search domains of at most 253
//   characters each, 2048 characters for the search line; each cut is a DNSConfigForming warning.
// The kubelet rebuilds the options from a Go map, in no set order; podrun keeps the order they
// first appear in, which is the same set.

/** Nameservers, search domains and options, as resolv.conf lists them. */
export interface DnsConfig {
  servers: string[];
  searches: string[];
  /** `name` or `name:value`. */
  options: string[];
}

/** What the pod's DNS is built from: the effective policy and the pod's dnsConfig (hashed: it is the same on every run). */
export interface PodDnsPlan {
  policy: "Default" | "None" | "ClusterFirst";
  /** ClusterFirst: the cluster DNS server and the pod's namespace, which heads the search list. */
  cluster?: { server: string; namespace: string };
  nameservers?: string[];
  searches?: string[];
  options?: { name: string; value?: string }[];
}

// pkg/apis/core/validation: MaxDNSNameservers, MaxDNSSearchPaths, MaxDNSSearchListChars; and
// DNS1123SubdomainMaxLength, past which glibc aborts on a search domain.
export const MAX_DNS_NAMESERVERS = 3;
export const MAX_DNS_SEARCH_PATHS = 32;
export const MAX_DNS_SEARCH_LIST_CHARS = 2048;
const MAX_SEARCH_LENGTH = 253;

/**
 * The plan of a pod whose resolv.conf podrun writes: every pod on the cluster network (`cluster`:
 * there the engine would give its own server, not the host's file), dnsPolicy None, or a dnsConfig
 * to merge. Undefined otherwise: the engine's resolv.conf is then the host's, which is what Default gives.
 */
export function planPodDns(
  spec: Pick<PodSpec, "dnsPolicy" | "dnsConfig" | "hostNetwork">,
  cluster?: { server: string | undefined; namespace: string },
): PodDnsPlan | undefined {
  const config = spec.dnsConfig;
  const onCluster = cluster !== undefined && spec.hostNetwork !== true;
  const clusterFirst =
    onCluster &&
    cluster.server !== undefined &&
    (spec.dnsPolicy === undefined || spec.dnsPolicy === "ClusterFirst" || spec.dnsPolicy === "ClusterFirstWithHostNet");
  const policy = clusterFirst ? "ClusterFirst" : spec.dnsPolicy === "None" ? "None" : "Default";
  const nameservers = config?.nameservers ?? [];
  const searches = config?.searches ?? [];
  const options = (config?.options ?? [])
    .filter((option) => option.name)
    .map((option) =>
      option.value !== undefined ? { name: option.name!, value: option.value } : { name: option.name! },
    );
  if (!onCluster && policy === "Default" && nameservers.length === 0 && searches.length === 0 && options.length === 0)
    return undefined;
  return {
    policy,
    ...(clusterFirst ? { cluster: { server: cluster.server!, namespace: cluster.namespace } } : {}),
    ...(nameservers.length > 0 ? { nameservers: [...nameservers] } : {}),
    ...(searches.length > 0 ? { searches: [...searches] } : {}),
    ...(options.length > 0 ? { options } : {}),
  };
}

/**
 * parseResolvConf: `nameserver` lines accumulate, the last `search` and `options` lines win,
 * a search domain loses its trailing dot, `#` comments are skipped. A `nameserver` line without
 * an address is left out (the kubelet refuses the whole file; podrun keeps what it can use).
 */
export function parseResolvConf(text: string): DnsConfig {
  const config: DnsConfig = { servers: [], searches: [], options: [] };
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("#")) continue;
    const [keyword, ...fields] = trimmed.split(/\s+/).filter(Boolean);
    if (keyword === "nameserver" && fields[0] !== undefined) config.servers.push(fields[0]);
    if (keyword === "search")
      config.searches = fields.map((search) => (search.endsWith(".") ? search.slice(0, -1) : search));
    if (keyword === "options") config.options = fields;
  }
  return config;
}

/** mergeDNSOptions: the pod's options over the base's of the same name; `name` alone when there is no value. */
export function mergeDnsOptions(
  base: readonly string[],
  options: readonly Pick<PodDNSConfigOption, "name" | "value">[],
): string[] {
  const merged = new Map<string, string>();
  for (const option of base) {
    const at = option.indexOf(":");
    if (at === -1) merged.set(option, "");
    else merged.set(option.slice(0, at), option.slice(at + 1));
  }
  for (const option of options) merged.set(option.name ?? "", option.value ?? "");
  return [...merged].map(([name, value]) => (value !== "" ? `${name}:${value}` : name));
}

/** The pod's DNS (GetPodDNS): the policy's base, dnsConfig appended, then cut to the limits (`report` says what was cut). */
export function buildPodDns(
  plan: PodDnsPlan,
  hostResolvConf: string,
  report: (message: string) => void = () => undefined,
): DnsConfig {
  const base = plan.policy === "None" ? { servers: [], searches: [], options: [] } : parseResolvConf(hostResolvConf);
  if (plan.cluster) {
    // GetPodDNS's podDNSCluster: the cluster's server, its domains before the host's, ndots:5 alone.
    const domain = CLUSTER_DOMAIN;
    base.servers = [plan.cluster.server];
    base.searches = [`${plan.cluster.namespace}.svc.${domain}`, `svc.${domain}`, domain, ...base.searches];
    base.options = ["ndots:5"];
  }
  const config: DnsConfig = {
    servers: unique([...base.servers, ...(plan.nameservers ?? [])]),
    searches: unique([...base.searches, ...(plan.searches ?? [])]),
    options: mergeDnsOptions(base.options, plan.options ?? []),
  };
  return {
    servers: fitNameservers(config.servers, report),
    searches: fitSearches(config.searches, report),
    options: config.options,
  };
}

/** formDNSNameserversFitsLimits. */
export function fitNameservers(servers: readonly string[], report: (message: string) => void): string[] {
  if (servers.length <= MAX_DNS_NAMESERVERS) return [...servers];
  const kept = servers.slice(0, MAX_DNS_NAMESERVERS);
  report(
    `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${kept.join(" ")}`,
  );
  return kept;
}

/** formDNSSearchFitsLimits: the first 32, without any over 253 characters, then cut from the end to 2048 characters. */
export function fitSearches(searches: readonly string[], report: (message: string) => void): string[] {
  let exceeded = searches.length > MAX_DNS_SEARCH_PATHS;
  let kept = searches.slice(0, MAX_DNS_SEARCH_PATHS);
  const short = kept.filter((search) => search.length <= MAX_SEARCH_LENGTH);
  if (short.length < kept.length) exceeded = true;
  kept = short;
  let length = kept.join(" ").length;
  if (length > MAX_DNS_SEARCH_LIST_CHARS) {
    exceeded = true;
    while (kept.length > 0 && length > MAX_DNS_SEARCH_LIST_CHARS) length -= kept.pop()!.length + 1;
  }
  if (exceeded)
    report(
      `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${kept.join(" ")}`,
    );
  return kept;
}

/** resolv.conf as the container runtimes write a pod's: `search`, one `nameserver` line each, `options`. */
export function formatResolvConf(config: DnsConfig): string {
  let text = "";
  if (config.searches.length > 0) text += `search ${config.searches.join(" ")}\n`;
  for (const server of config.servers) text += `nameserver ${server}\n`;
  if (config.options.length > 0) text += `options ${config.options.join(" ")}\n`;
  return text;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
