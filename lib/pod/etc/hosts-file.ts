import type { HostAlias, PodSpec } from "kubernetes-types/core/v1.js";

// The pod's /etc/hosts as the kubelet writes it (pkg/kubelet/kubelet_pods.go makeHostsMount,
// managedHostsFileContent, nodeHostsFileContent, hostsEntriesFromHostAliases:
// https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/kubelet/kubelet_pods.go). Pure: the
// content from what the pod says and, for a hostNetwork pod, the host's own file.

/**
 * The cluster domain a pod's FQDN ends in (the kubelet's --cluster-domain). This machine has no
 * cluster: podrun takes the kubeadm default, the domain manifests and the documentation assume.
 */
export const CLUSTER_DOMAIN = "cluster.local";

/** `<name>.<namespace>.svc.cluster.local`: a Service's name, which a pod's subdomain names too. */
export function serviceDomainName(namespace: string, name: string): string {
  return `${name}.${namespace}.svc.${CLUSTER_DOMAIN}`;
}

const MANAGED_HEADER = "# Kubernetes-managed hosts file.\n";
const HOST_NETWORK_HEADER = "# Kubernetes-managed hosts file (host network).\n";

/** A hostAliases entry as it is written: an IP and the names that resolve to it. */
export interface HostsAlias {
  ip: string;
  hostnames: string[];
}

/** spec.hostAliases as written (an alias without hostnames still gets its line, as on a node). */
export function planHostAliases(aliases: readonly HostAlias[] | undefined): HostsAlias[] {
  return (aliases ?? [])
    .filter((alias) => alias.ip)
    .map((alias) => ({ ip: alias.ip!, hostnames: [...(alias.hostnames ?? [])] }));
}

/**
 * The pod's domain as GeneratePodHostNameAndDomain makes it: `<subdomain>.<namespace>.svc.<cluster
 * domain>` when spec.subdomain is set, else none (the hosts line then names the hostname alone).
 */
export function resolvePodHostDomain(spec: Pick<PodSpec, "subdomain">, namespace: string): string | undefined {
  return spec.subdomain ? serviceDomainName(namespace, spec.subdomain) : undefined;
}

/**
 * The file of a pod on its own network: localhost lines, one line per pod IP with the FQDN (when
 * the pod has a domain) and the hostname, then the hostAliases section. Without an IP (not known
 * yet) the pod's own line is left out, as the kubelet has no line to write before it knows one.
 */
export function managedHostsFileContent(
  podIPs: readonly string[],
  hostname: string,
  hostDomain: string | undefined,
  aliases: readonly HostsAlias[],
): string {
  let content = MANAGED_HEADER;
  content += "127.0.0.1\tlocalhost\n";
  content += "::1\tlocalhost ip6-localhost ip6-loopback\n";
  content += "fe00::0\tip6-localnet\n";
  content += "fe00::0\tip6-mcastprefix\n";
  content += "fe00::1\tip6-allnodes\n";
  content += "fe00::2\tip6-allrouters\n";
  for (const ip of podIPs)
    content += hostDomain ? `${ip}\t${hostname}.${hostDomain}\t${hostname}\n` : `${ip}\t${hostname}\n`;
  return content + hostsEntriesFromHostAliases(aliases);
}

/** The file of a hostNetwork pod: the host's own /etc/hosts as it is, then the hostAliases section. */
export function nodeHostsFileContent(hostFile: string, aliases: readonly HostsAlias[]): string {
  return HOST_NETWORK_HEADER + hostFile + hostsEntriesFromHostAliases(aliases);
}

/** One line per IP, its names separated by tabs, under the kubelet's comment; nothing without aliases. */
export function hostsEntriesFromHostAliases(aliases: readonly HostsAlias[]): string {
  if (aliases.length === 0) return "";
  return (
    "\n# Entries added by HostAliases.\n" +
    aliases.map((alias) => `${alias.ip}\t${alias.hostnames.join("\t")}\n`).join("")
  );
}
