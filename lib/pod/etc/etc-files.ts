import { readFile, writeFile, chmod } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";
import type { Pod, PodSpec } from "kubernetes-types/core/v1.js";
import { errorFirstLine, PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import type { VolumeMount } from "../../runtime/types.js";
import { describeFsError } from "../../state/state-error.js";
import type { PodIdentity } from "../identity.js";
import type { ClusterNetwork } from "../cluster-network.js";
import { hostnameOverrideOf, resolvePodHostname } from "../spec/pod-settings.js";
import { ensurePodDirectory, podDirectory } from "../volumes/pod-dir.js";
import {
  managedHostsFileContent,
  nodeHostsFileContent,
  planHostAliases,
  resolvePodHostDomain,
  type HostsAlias,
} from "./hosts-file.js";
import { buildPodDns, formatResolvConf, planPodDns, type PodDnsPlan } from "./pod-dns.js";

// The pod's /etc/hosts and /etc/resolv.conf, files in the pod directory bind-mounted into every
// container (init containers and sidecars included, never the sandbox), as the kubelet mounts its
// `etc-hosts` and the runtime the sandbox's resolv.conf. Every pod gets the hosts file; the
// resolv.conf only when the pod's DNS differs from the host's (dnsPolicy None, or a dnsConfig),
// otherwise the engine's copy of the host's file is what Default gives. A container that mounts a
// volume at either path keeps its own (the kubelet's rule for /etc/hosts, the runtimes' for resolv.conf).
// The hosts file needs the pod's IP, known once the sandbox runs: it is written without the pod's
// line first (a bind mount's source must exist at create), then in place once the IP is known and
// before any container starts. In place, never by rename: a running container's bind mount holds
// the file, not the path.

export const HOSTS_FILE = "etc-hosts";
export const RESOLV_FILE = "resolv.conf";
const ETC_HOSTS = "/etc/hosts";
const ETC_RESOLV_CONF = "/etc/resolv.conf";
// systemd-resolved's list of the real servers, for a host whose /etc/resolv.conf names only its
// local stub (127.0.0.53), which a pod on its own network cannot reach: the file kubeadm points
// the kubelet's --resolv-conf at on such hosts, and the one docker reads there too.
const SYSTEMD_RESOLV_CONF = "/run/systemd/resolve/resolv.conf";

/** What the pod's files are made of beyond what every pod has: part of the pod hash, undefined for a pod that sets none. */
export interface PodEtcPlan {
  hostAliases?: HostsAlias[];
  /** `<subdomain>.<namespace>.svc.cluster.local` (not for a hostNetwork pod: the host's file has no pod line). */
  hostDomain?: string;
  dns?: PodDnsPlan;
}

/** The host paths of the pod's files. */
export interface PodEtcFiles {
  hosts: string;
  resolv?: string;
}

export function planPodEtcFiles(spec: PodSpec, namespace: string, cluster?: ClusterNetwork): PodEtcPlan | undefined {
  const plan: PodEtcPlan = {};
  const aliases = planHostAliases(spec.hostAliases);
  if (aliases.length > 0) plan.hostAliases = aliases;
  const domain = spec.hostNetwork ? undefined : resolvePodHostDomain(spec, namespace);
  if (domain) plan.hostDomain = domain;
  const dns = planPodDns(spec, cluster && { server: cluster.dnsServer, namespace });
  if (dns) plan.dns = dns;
  return Object.keys(plan).length > 0 ? plan : undefined;
}

/**
 * Writes the pod's files in its directory (nothing in a dry run) and returns their paths. A kept
 * pod's resolv.conf stays as it was made (the runtime writes it once, with the sandbox); a hosts
 * file is rewritten only when its content changes.
 */
export async function preparePodEtcFiles(
  recorder: Pick<EventRecorder, "event">,
  options: {
    pod: Pod;
    identity: PodIdentity;
    stateDir: string;
    engine: string;
    kept: boolean;
    dryRun: boolean;
    cluster?: ClusterNetwork | undefined;
  },
): Promise<PodEtcFiles> {
  const { pod, identity } = options;
  const spec = pod.spec!;
  const dir = podDirectory(options.stateDir, options.engine, identity);
  const plan = planPodEtcFiles(spec, identity.namespace, options.cluster);
  const files: PodEtcFiles = { hosts: join(dir, HOSTS_FILE), ...(plan?.dns ? { resolv: join(dir, RESOLV_FILE) } : {}) };
  if (options.dryRun) return files;
  try {
    await ensurePodDirectory(options.stateDir, options.engine, identity);
    // No hosts file yet (a new pod, or one removed by hand): written whole below.
    const hostsNow = await readFile(files.hosts, "utf8").catch(() => undefined);
    // A kept pod's file already has its IP line: it is completed below, not emptied here.
    if (spec.hostNetwork)
      await writeIfChanged(
        files.hosts,
        nodeHostsFileContent(await readFile(ETC_HOSTS, "utf8"), plan?.hostAliases ?? []),
        hostsNow,
      );
    else if (hostsNow === undefined || !options.kept)
      await writeIfChanged(files.hosts, hostsFileContent(pod, identity, []), hostsNow);
    if (
      plan?.dns &&
      files.resolv &&
      // A kept pod keeps its resolv.conf; one that is gone is written anew.
      (!options.kept || (await readFile(files.resolv).catch(() => undefined)) === undefined)
    ) {
      const report = (message: string) =>
        recorder.event(toInvolvedObject(identity), "Warning", "DNSConfigForming", message);
      const host = plan.dns.policy === "None" ? "" : await readHostResolvConf(spec.hostNetwork === true, report);
      await writeIfChanged(files.resolv, formatResolvConf(buildPodDns(plan.dns, host, report)), undefined);
    }
  } catch (error) {
    throw new PodrunError(
      "CreateContainerConfigError",
      `cannot write the pod's /etc/hosts and /etc/resolv.conf in ${dir}: ${describeFsError(error)}`,
      { cause: error },
    );
  }
  return files;
}

/** The pod's IP is known: its hosts file gets the pod's line (a hostNetwork pod's has none). */
export async function completeHostsFile(
  files: PodEtcFiles,
  pod: Pod,
  identity: PodIdentity,
  podIP: string | undefined,
): Promise<void> {
  if (pod.spec!.hostNetwork) return;
  const path = files.hosts;
  try {
    await writeIfChanged(
      path,
      hostsFileContent(pod, identity, podIP ? [podIP] : []),
      // No file yet: written whole.
      await readFile(path, "utf8").catch(() => undefined),
    );
  } catch (error) {
    throw new PodrunError(
      "CreateContainerConfigError",
      `cannot write the pod's /etc/hosts ${path}: ${describeFsError(error)}`,
      { cause: error },
    );
  }
}

/** The container's mounts with the pod's files added, at the paths it does not mount itself. */
export function withEtcFileMounts(
  mounts: readonly VolumeMount[] | undefined,
  files: PodEtcFiles,
): VolumeMount[] | undefined {
  const taken = new Set((mounts ?? []).map((mount) => mount.target));
  const added: VolumeMount[] = [];
  // The kubelet's name for the hosts mount; the resolv.conf one has none on a node (the runtime's).
  if (!taken.has(ETC_HOSTS))
    added.push({ volume: "k8s-managed-etc-hosts", target: ETC_HOSTS, readOnly: false, source: files.hosts });
  if (files.resolv && !taken.has(ETC_RESOLV_CONF))
    added.push({ volume: "resolv-conf", target: ETC_RESOLV_CONF, readOnly: false, source: files.resolv });
  return added.length > 0 ? [...(mounts ?? []), ...added] : mounts && [...mounts];
}

/**
 * The node's resolv.conf for the Default policy: /etc/resolv.conf, or systemd-resolved's list of
 * servers when /etc/resolv.conf names only loopback servers and the pod has a network of its own;
 * an unreadable /etc/resolv.conf is `report`ed and reads as empty.
 */
export async function readHostResolvConf(hostNetwork: boolean, report: (message: string) => void): Promise<string> {
  const text = await readFile(ETC_RESOLV_CONF, "utf8").catch((error: unknown) => {
    // The kubelet fails the sandbox here (GetPodDNS, pkg/kubelet/network/dns/dns.go); podrun goes
    // on without the node's servers, and a Warning says why the pod has none.
    report(`Could not open resolv conf file: ${errorFirstLine(error)}`);
    return "";
  });
  if (hostNetwork || !namesOnlyLoopbackServers(text)) return text;
  // No systemd-resolved list: /etc/resolv.conf as it is.
  return readFile(SYSTEMD_RESOLV_CONF, "utf8").catch(() => text);
}

function namesOnlyLoopbackServers(text: string): boolean {
  const servers = [...text.matchAll(/^\s*nameserver\s+(\S+)/gm)].map((match) => match[1]!);
  return (
    servers.length > 0 && servers.every((server) => (isIP(server) === 4 ? server.startsWith("127.") : server === "::1"))
  );
}

function hostsFileContent(pod: Pod, identity: PodIdentity, podIPs: string[]): string {
  const spec = pod.spec!;
  return managedHostsFileContent(
    podIPs,
    resolvePodHostname(pod, identity.name),
    // An overriding hostname stands alone: the kubelet gives the pod no domain then.
    hostnameOverrideOf(spec) ? undefined : resolvePodHostDomain(spec, identity.namespace),
    planHostAliases(spec.hostAliases),
  );
}

// Truncated and written in place, 0644 as the kubelet writes it; an unchanged file is left alone,
// so that a running container never reads it half written for nothing.
async function writeIfChanged(path: string, content: string, current: string | undefined): Promise<void> {
  if (current === content) return;
  await writeFile(path, content, { mode: 0o644 });
  await chmod(path, 0o644);
}
