// Where the engine runs, as seen from this host (pure): the answer decides whether podrun may
// reach a pod at its address (network probes, httpGet hooks, port-forward's direct path) and
// whether the engine sees this host's files (the volume files podrun bind-mounts from its state
// directory). Three places:
// - local: the engine runs here; its pods' addresses are on a bridge of this host; the disk is shared;
// - vm: the engine runs in a VM or network namespace of this machine (Docker Desktop, Colima,
//   Rancher Desktop, podman machine, WSL, rootless podman): the pods' addresses are not reachable
//   from here, and the VM mounts the user's home, so the disk is shared;
// - remote: the engine runs on another host (ssh://, tcp:// to another address): neither.
// Two things tell it: the endpoint the CLI talks to (DOCKER_HOST, the docker context, podman's
// connection), and whether the bridge of the engine's network is one of this host's interfaces
// (an address alone proves nothing: another engine here may use the same subnet, and a proxy on
// the default route may even answer for an address that is nowhere).

export type EnginePlace = "local" | "vm" | "remote";

export interface EngineLocation {
  place: EnginePlace;
  /** This host reaches the pods' addresses. */
  podIPsRoutable: boolean;
  /** The engine sees this host's files (judged from the place; not checked by a mount). */
  sharedDisk: boolean;
  /** What the CLI talks to (`unix:///var/run/docker.sock`, `ssh://…`); "" when it does not say. */
  endpoint: string;
  /** Why, in one line. */
  reason: string;
}

/** The sockets of the VM-based engines of macOS and Windows, as their installers set them up. */
const VM_SOCKETS: readonly { pattern: RegExp; name: string }[] = [
  { pattern: /\/\.docker\/run\/docker\.sock$|\/\.docker\/desktop\//, name: "Docker Desktop" },
  { pattern: /^npipe:/, name: "Docker Desktop (Windows)" },
  { pattern: /\/\.colima\//, name: "Colima" },
  { pattern: /\/\.rd\/docker\.sock$/, name: "Rancher Desktop" },
  { pattern: /\/\.lima\//, name: "Lima" },
  { pattern: /\/\.orbstack\//, name: "OrbStack" },
  { pattern: /podman-machine|\/podman\/machine\//, name: "podman machine" },
];

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** What the endpoint alone says: a VM's socket, another host, or (undefined) a local socket or the default. */
export function placeOfEndpoint(endpoint: string): { place: EnginePlace; reason: string } | undefined {
  for (const { pattern, name } of VM_SOCKETS)
    if (pattern.test(endpoint)) return { place: "vm", reason: `${endpoint} is ${name}'s socket` };
  const url = /^(ssh|tcp|https?):\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^:/]+)/.exec(endpoint);
  if (!url) return undefined;
  const [, scheme, host = ""] = url;
  // An ssh:// to this machine is a VM's (podman machine, Lima); a tcp:// to loopback may be a VM's
  // forwarded port or a local daemon: the bridge check decides.
  if (LOOPBACK_HOSTS.has(host.toLowerCase()))
    return scheme === "ssh" ? { place: "vm", reason: `${endpoint} is a VM on this machine` } : undefined;
  return { place: "remote", reason: `${endpoint} is another host` };
}

/** The engine's network as its inspect says: the bridge's interface name on the engine's host, and its gateway. */
export interface EngineBridge {
  network: string;
  /** The interface on the engine's host (docker0, br-1a2b3c4d5e6f, podman1); undefined when the engine does not say. */
  interfaceName?: string | undefined;
  gateway?: string | undefined;
}

/** This host's network interfaces, as podrun can see them. */
export interface HostInterfaces {
  /** Whether an interface of this name exists here (up or down). */
  exists(name: string): boolean;
  /** Whether an address is one of this host's own (on an interface up or down). */
  hasAddress(address: string): boolean;
}

/**
 * Whether the bridge is one of this host's interfaces: one of its name is here, and the gateway's
 * address is this host's (a bridge of the same name may be another engine's: docker0). A bridge
 * the engine makes with its network's first container (podman's netavark: `onDemand`) proves
 * nothing by its absence: a rootful podman that is its own engine (no endpoint: not a service
 * reached through a socket) runs in this host's network namespace, so the answer is yes then,
 * unless the engine runs rootless.
 */
export function bridgeIsHere(
  bridge: EngineBridge,
  host: HostInterfaces,
  engine: { onDemand: boolean; rootless: boolean },
): boolean {
  if (engine.rootless) return false;
  const name = bridge.interfaceName;
  if (name === undefined || !host.exists(name)) return engine.onDemand;
  return bridge.gateway === undefined || host.hasAddress(bridge.gateway);
}

/** The first address of an IPv4 subnet: the gateway docker and nerdctl give a network made without one. */
export function firstAddress(subnet: string): string | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(subnet);
  if (!match) return undefined;
  const prefix = Number(match[5]);
  const base = match.slice(1, 5).reduce((n, octet) => n * 256 + Number(octet), 0);
  const network = prefix === 0 ? 0 : base - (base % 2 ** (32 - prefix));
  const first = network + 1;
  return [24, 16, 8, 0].map((shift) => Math.floor(first / 2 ** shift) % 256).join(".");
}

/** The engine's place, from its endpoint and its bridge. */
export function locateEngine(
  endpoint: string,
  bridge: EngineBridge,
  host: HostInterfaces,
  engine: { onDemand: boolean; rootless: boolean },
): EngineLocation {
  const byEndpoint = placeOfEndpoint(endpoint);
  // A podman service reached through a socket may run anywhere: its bridges must be seen here.
  const ownEngine = { ...engine, onDemand: engine.onDemand && endpoint === "" };
  const routable = byEndpoint?.place !== "remote" && bridgeIsHere(bridge, host, ownEngine);
  const where = bridge.interfaceName ? `${bridge.interfaceName} (${bridge.gateway ?? "no gateway"})` : bridge.gateway;
  const bridgeReason = engine.rootless
    ? "the engine runs rootless: its networks are in a namespace of its own"
    : routable
      ? `network ${bridge.network}'s bridge ${where ?? ""} is on this host`
      : `network ${bridge.network}'s bridge ${where ?? "(none named)"} is not on this host`;
  if (byEndpoint?.place === "remote")
    return { place: "remote", podIPsRoutable: false, sharedDisk: false, endpoint, reason: byEndpoint.reason };
  const place: EnginePlace = byEndpoint?.place ?? (routable ? "local" : "vm");
  const reason = byEndpoint ? `${byEndpoint.reason}; ${bridgeReason}` : bridgeReason;
  return { place, podIPsRoutable: routable, sharedDisk: true, endpoint, reason };
}

/**
 * Whether the engine sees this host's files, from its endpoint alone: "shared" for the CLI's
 * default on Linux (the engine is this host's) and the usual local sockets, "unshared" for
 * another host, else "check": a VM's socket (Docker Desktop, Colima, podman machine share only
 * some directories), any other socket or loopback address, and every engine on macOS or Windows,
 * which run in a VM. A check is a mount of a directory of this host, read back through the engine.
 */
export function diskOfEndpoint(endpoint: string, platform: string, uid?: number): "shared" | "unshared" | "check" {
  if (placeOfEndpoint(endpoint)?.place === "remote") return "unshared";
  if (platform !== "linux") return "check";
  if (endpoint === "") return "shared";
  const socket = /^unix:\/\/(.+)$/.exec(endpoint)?.[1];
  if (socket === undefined) return "check";
  const runtimeDir = `/run/user/${uid ?? ""}`;
  const local = [
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/podman/podman.sock",
    "/run/containerd/containerd.sock",
    `${runtimeDir}/docker.sock`,
    `${runtimeDir}/podman/podman.sock`,
  ];
  return local.includes(socket) ? "shared" : "check";
}
