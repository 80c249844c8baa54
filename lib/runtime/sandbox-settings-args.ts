// Pure argv for the pod-level settings the sandbox carries: a shared PID namespace
// (shareProcessNamespace), the host's PID and IPC namespaces (hostPID, hostIPC) and namespaced
// sysctls. /etc/hosts and /etc/resolv.conf are not the sandbox's: the containers mount the
// pod's own files (lib/pod/etc/etc-files.ts), as on a node.
import type { Dialect } from "./dialects.js";
import { formatInfraName } from "./dialects.js";
import { formatPodResourceArgs } from "./pod-resource-args.js";
import type { ContainerPodSettings, SandboxSettings } from "./specs.js";

/**
 * Arguments for the sandbox's create call (`create` of the infra container, or `pod create`).
 */
export function formatSandboxSettingsArgs(dialect: Dialect, settings: SandboxSettings | undefined): string[] {
  if (!settings) return [];
  const args: string[] = [];
  // The app containers join the sandbox's network (docker/nerdctl) or the pod's (podman) and,
  // with them, these namespaced kernel settings.
  for (const sysctl of settings.sysctls ?? []) args.push("--sysctl", sysctl);
  // podman maps the pod's ids to a range of its own from /etc/subuid and /etc/subgid (user
  // `containers`); the containers join it. 65536 ids, as the kubelet gives each such pod
  // (pkg/kubelet/userns): podman would size it from the infra image's /etc/passwd, too few for
  // a runAsUser above the pause image's users.
  if (settings.privateUsers && dialect.sandbox === "pod") args.push("--userns", "auto:size=65536");
  args.push(...formatPodResourceArgs(dialect, settings.resources));
  // podman shares ipc,net,uts by default; `--share` replaces that list, so it is given whole.
  // Under hostIPC the containers take `--ipc host`, which podman refuses in a pod sharing ipc.
  // docker and nerdctl: the infra container keeps its own PID namespace for the others to join.
  if ((settings.sharePid || settings.hostIpc) && dialect.sandbox === "pod") {
    const shared = [...(settings.hostIpc ? [] : ["ipc"]), "net", "uts", ...(settings.sharePid ? ["pid"] : [])];
    args.push("--share", shared.join(","));
  }
  return args;
}

/**
 * Arguments for one container's `create`: the host's PID and IPC namespaces (hostPID, hostIPC,
 * given to each container: podman 4.3's `pod create --pid host` reaches only the infra
 * container), or docker/nerdctl join the infra container's PID namespace.
 */
export function formatContainerPodSettingsArgs(
  dialect: Dialect,
  sandbox: string | undefined,
  settings: ContainerPodSettings | undefined,
): string[] {
  if (!settings) return [];
  const args: string[] = [];
  if (settings.hostPid) args.push("--pid", "host");
  if (settings.hostIpc) args.push("--ipc", "host");
  if (settings.sharePid && sandbox !== undefined && dialect.sandbox !== "pod")
    args.push("--pid", `container:${formatInfraName(sandbox)}`);
  return args;
}
