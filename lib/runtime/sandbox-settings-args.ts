// Pure argv for the pod-level settings the sandbox carries: extra /etc/hosts entries
// (hostAliases), DNS (dnsConfig under dnsPolicy) and a shared PID namespace
// (shareProcessNamespace). The app containers see the sandbox's /etc/hosts and /etc/resolv.conf:
// docker and nerdctl give a container joined by `--network container:` the donor's files (and
// refuse `--add-host`/`--dns` on it), podman gives a pod's containers the pod's.
import type { Dialect } from "./dialects.js";
import { formatInfraName } from "./dialects.js";

/** Pod-level settings made on the sandbox; each part absent when the pod does not set it. */
export interface SandboxSettings {
  /** spec.hostAliases, in order: one /etc/hosts line per IP. */
  hostAliases?: { ip: string; hostnames: string[] }[];
  /** What /etc/resolv.conf is made of; a part left out keeps the engine's (the host's) value. */
  dns?: SandboxDns;
  /** spec.shareProcessNamespace: every container of the pod in one PID namespace. */
  sharePid?: boolean;
}

export interface SandboxDns {
  nameservers?: string[];
  searches?: string[];
  /** `name` or `name:value`, as resolv.conf's `options` line reads them. */
  options?: string[];
}

/** What a container needs to join the sandbox's pod-level settings (docker/nerdctl only). */
export interface ContainerPodSettings {
  /** Join the infra container's PID namespace. */
  sharePid?: boolean;
}

/**
 * Arguments for the sandbox's create call (`create` of the infra container, or `pod create`).
 * `--add-host`, `--dns`, `--dns-search` and `--dns-option` read the same on the three CLIs.
 */
export function formatSandboxSettingsArgs(dialect: Dialect, settings: SandboxSettings | undefined): string[] {
  if (!settings) return [];
  const args: string[] = [];
  for (const alias of settings.hostAliases ?? []) {
    for (const hostname of alias.hostnames) args.push("--add-host", `${hostname}:${alias.ip}`);
  }
  const dns = settings.dns;
  for (const server of dns?.nameservers ?? []) args.push("--dns", server);
  for (const search of dns?.searches ?? []) args.push("--dns-search", search);
  for (const option of dns?.options ?? []) args.push("--dns-option", option);
  // podman shares ipc,net,uts by default; `--share` replaces that list, so it is given whole.
  // docker and nerdctl: the infra container keeps its own PID namespace for the others to join.
  if (settings.sharePid && dialect.sandbox === "pod") args.push("--share", "ipc,net,uts,pid");
  return args;
}

/** Arguments for one container's `create`: docker/nerdctl join the infra container's PID namespace. */
export function formatContainerPodSettingsArgs(dialect: Dialect, sandbox: string | undefined, settings: ContainerPodSettings | undefined): string[] {
  if (!settings?.sharePid || sandbox === undefined || dialect.sandbox === "pod") return [];
  return ["--pid", `container:${formatInfraName(sandbox)}`];
}
