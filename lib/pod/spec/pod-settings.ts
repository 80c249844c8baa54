import type { Pod, PodSpec } from "kubernetes-types/core/v1.js";
import { planPodResources } from "../../runtime/pod-resource-args.js";
import type { ContainerPodSettings, SandboxSettings } from "../../runtime/specs.js";

// The pod-level settings a sandbox carries, from a validated, defaulted Pod. A hostNetwork pod
// has no sandbox of its own: it gets none of them (support.ts warns) but hostIPC, which podman's
// pod must know of; hostPID and hostIPC go on every container, hostNetwork or not. hostAliases,
// subdomain and dnsConfig are files podrun writes for the containers (lib/pod/etc/etc-files.ts).

// The kubelet's limit for a hostname (truncatePodHostnameIfNeeded in pkg/kubelet/kubelet_pods.go).
const MAX_HOSTNAME_LENGTH = 63;

/**
 * The hostname the pod's containers see, as the kubelet's GeneratePodHostNameAndDomain makes it:
 * spec.hostnameOverride as written (the HostnameOverride gate, beta and on by default since
 * v1.35; the pod then has no domain), else its DNS hostname (resolveDnsHostname).
 */
export function resolvePodHostname(pod: Pod, podName: string): string {
  return hostnameOverrideOf(pod.spec) || resolveDnsHostname(pod, podName);
}

/** spec.hostnameOverride (v1.34's field, newer than the kubernetes-types podrun builds with). */
export function hostnameOverrideOf(spec: PodSpec | undefined): string | undefined {
  const value: unknown = (spec as Record<string, unknown> | undefined)?.["hostnameOverride"];
  return typeof value === "string" ? value : undefined;
}

/**
 * The pod's name in DNS under its subdomain (`<hostname>.<subdomain>`), which hostnameOverride
 * leaves alone: spec.hostname, else the pod's name cut to 63 characters without a trailing `-` or `.`.
 */
export function resolveDnsHostname(pod: Pod, podName: string): string {
  const hostname = pod.spec?.hostname;
  if (hostname) return hostname;
  if (podName.length <= MAX_HOSTNAME_LENGTH) return podName;
  return podName.slice(0, MAX_HOSTNAME_LENGTH).replace(/[-.]+$/, "");
}

/** The sandbox's settings, or undefined when the pod sets none (so that its hash is unchanged). */
export function buildSandboxSettings(spec: PodSpec): SandboxSettings | undefined {
  if (spec.hostNetwork) return spec.hostIPC ? { hostIpc: true } : undefined;
  const settings: SandboxSettings = {};
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
