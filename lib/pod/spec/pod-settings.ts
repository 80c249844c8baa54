import type { Pod, PodSpec } from "kubernetes-types/core/v1.js";
import { planPodResources } from "../../runtime/pod-resource-args.js";
import type { ContainerPodSettings, SandboxDns, SandboxSettings } from "../../runtime/sandbox-settings-args.js";

// The pod-level settings a sandbox carries, from a validated, defaulted Pod. A hostNetwork pod
// has no sandbox of its own: it gets none of them (support.ts warns) but hostIPC, which podman's
// pod must know of; hostPID and hostIPC go on every container, hostNetwork or not.

// The kubelet's limit for a hostname (truncatePodHostnameIfNeeded in pkg/kubelet/kubelet_pods.go).
const MAX_HOSTNAME_LENGTH = 63;

/**
 * The pod's hostname as the kubelet's GeneratePodHostNameAndDomain makes it: spec.hostname, else
 * the pod's name cut to 63 characters without a trailing `-` or `.`.
 */
export function resolvePodHostname(pod: Pod, podName: string): string {
  const hostname = pod.spec?.hostname;
  if (hostname) return hostname;
  if (podName.length <= MAX_HOSTNAME_LENGTH) return podName;
  return podName.slice(0, MAX_HOSTNAME_LENGTH).replace(/[-.]+$/, "");
}

/** The sandbox's settings, or undefined when the pod sets none (so that its hash is unchanged). */
export function buildSandboxSettings(spec: PodSpec): SandboxSettings | undefined {
  if (spec.hostNetwork) return spec.hostIPC ? { hostIpc: true } : undefined;
  const settings: SandboxSettings = {};
  const aliases = (spec.hostAliases ?? []).filter((alias) => alias.ip && (alias.hostnames ?? []).length > 0);
  if (aliases.length > 0) settings.hostAliases = aliases.map((alias) => ({ ip: alias.ip!, hostnames: [...alias.hostnames!] }));
  const dns = buildDns(spec);
  if (dns) settings.dns = dns;
  if (spec.shareProcessNamespace) settings.sharePid = true;
  if (spec.hostIPC) settings.hostIpc = true;
  // Passed on as written: the kubelet would refuse a sysctl outside its safe set unless the node
  // allows it (SysctlForbidden); here the engine (and the kernel) decide.
  const sysctls = (spec.securityContext?.sysctls ?? []).filter((sysctl) => sysctl.name);
  if (sysctls.length > 0) settings.sysctls = sysctls.map((sysctl) => `${sysctl.name}=${sysctl.value ?? ""}`);
  if (spec.hostUsers === false) settings.privateUsers = true;
  const resources = planPodResources(spec);
  if (resources) settings.resources = resources;
  return Object.keys(settings).length > 0 ? settings : undefined;
}

/** What each container of the pod joins; undefined unless the pod shares a namespace. */
export function buildContainerPodSettings(spec: PodSpec): ContainerPodSettings | undefined {
  const settings: ContainerPodSettings = {};
  if (!spec.hostNetwork && spec.shareProcessNamespace) settings.sharePid = true;
  if (spec.hostPID) settings.hostPid = true;
  if (spec.hostIPC) settings.hostIpc = true;
  return Object.keys(settings).length > 0 ? settings : undefined;
}

// dnsPolicy None: the kubelet writes dnsConfig alone; Default: the node's resolv.conf with
// dnsConfig merged in. ClusterFirst and ClusterFirstWithHostNet have no cluster DNS to point at
// here and fall back to Default (support.ts says so). The engine starts from the host's
// resolv.conf and replaces each part given, so every policy comes down to passing dnsConfig;
// under None a part dnsConfig leaves out is emptied where the engines can say it (searches).
function buildDns(spec: PodSpec): SandboxDns | undefined {
  const config = spec.dnsConfig;
  const dns: SandboxDns = {};
  if (config?.nameservers?.length) dns.nameservers = [...config.nameservers];
  if (config?.searches?.length) dns.searches = [...config.searches];
  // docker and podman take `--dns-search .` for "no search domains".
  else if (spec.dnsPolicy === "None") dns.searches = ["."];
  const options = (config?.options ?? []).filter((option) => option.name);
  if (options.length > 0) dns.options = options.map((option) => (option.value !== undefined ? `${option.name}:${option.value}` : option.name!));
  return Object.keys(dns).length > 0 ? dns : undefined;
}
