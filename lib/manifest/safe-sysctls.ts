// The kubelet's default safe sysctls (pkg/kubelet/sysctl/safe_sysctls.go): namespaced, and
// without effect on other pods of the node. A pod that sets another is refused at admission
// (SysctlForbidden) unless the kubelet runs with --allowed-unsafe-sysctls; podrun sets it and
// says so in a Warning (lib/kinds/support/security-warnings.ts).
import { release } from "node:os";

/** Each safe sysctl, with the kernel from which it is namespaced when that is not every kernel. */
export const SAFE_SYSCTLS: readonly { name: string; kernel?: string }[] = [
  { name: "kernel.shm_rmid_forced" },
  { name: "net.ipv4.ip_local_port_range" },
  { name: "net.ipv4.tcp_syncookies" },
  { name: "net.ipv4.ping_group_range" },
  { name: "net.ipv4.ip_unprivileged_port_start" },
  { name: "net.ipv4.ip_local_reserved_ports", kernel: "3.16" },
  { name: "net.ipv4.tcp_keepalive_time", kernel: "4.5" },
  { name: "net.ipv4.tcp_fin_timeout", kernel: "4.6" },
  { name: "net.ipv4.tcp_keepalive_intvl", kernel: "4.5" },
  { name: "net.ipv4.tcp_keepalive_probes", kernel: "4.5" },
  { name: "net.ipv4.tcp_rmem", kernel: "4.15" },
  { name: "net.ipv4.tcp_wmem", kernel: "4.15" },
];

/**
 * The safe set on a kernel of release `kernel` (`6.1.0-18-amd64`): a sysctl with a minimum kernel
 * is left out below it, or when the release cannot be read, as the kubelet does.
 */
export function safeSysctls(kernel: string = release()): Set<string> {
  const version = parseKernelVersion(kernel);
  return new Set(
    SAFE_SYSCTLS.filter(
      (sysctl) =>
        sysctl.kernel === undefined || (version !== undefined && atLeast(version, parseKernelVersion(sysctl.kernel)!)),
    ).map((sysctl) => sysctl.name),
  );
}

/**
 * The kubelet's NormalizeName (component-helpers/node/util/sysctl): a name whose first separator
 * is `/` has its `.` and `/` swapped (`net/ipv4/conf/eth0.100/x` is `net.ipv4.conf.eth0/100.x`).
 */
export function normalizeSysctlName(name: string): string {
  const first = name.search(/[./]/);
  if (first === -1 || name[first] !== "/") return name;
  return name.replace(/[./]/g, (c) => (c === "." ? "/" : "."));
}

/** The namespace the kernel keeps a sysctl in, as the kubelet's GetNamespace tells it. */
export function sysctlNamespace(name: string): "ipc" | "net" | undefined {
  const normal = normalizeSysctlName(name);
  if (IPC_SYSCTLS.has(normal) || normal.startsWith("fs.mqueue.")) return "ipc";
  if (normal.startsWith("net.")) return "net";
  return undefined;
}

const IPC_SYSCTLS = new Set([
  "kernel.sem",
  "kernel.shmall",
  "kernel.shmmax",
  "kernel.shmmni",
  "kernel.shm_rmid_forced",
  "kernel.msgmax",
  "kernel.msgmnb",
  "kernel.msgmni",
]);

function parseKernelVersion(text: string): number[] | undefined {
  const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : undefined;
}

function atLeast(version: readonly number[], minimum: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) {
    if (version[i]! !== minimum[i]!) return version[i]! > minimum[i]!;
  }
  return true;
}
