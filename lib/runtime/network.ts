// How a sandbox joins the cluster network, and the reading of `network inspect` on each CLI.
// docker and nerdctl print `{"Name", "Labels", "IPAM": {"Config": [{"Subnet", "Gateway"}]}}`;
// podman 4 (netavark, or CNI as podman converts it) prints `{"name", "labels", "subnets":
// [{"subnet", "gateway"}], "dns_enabled"}`. One reader takes both, as inspect.ts does for containers.
// dockerd 20.10 checks a new network's name against the others without a lock: two runs making
// the network at once may both succeed, and the name is then ambiguous: docker then refuses to
// start any container on either ("network x is ambiguous"), though a sandbox joins by ID. Its
// address allocator does lock: of two creates of one subnet, one fails ("Pool overlaps"). So the
// cluster network is made with a subnet of its own (CliRuntime.ensureNetwork): two runs at once
// make one network. One of an older podrun, made without, may still have a twin: the oldest is
// kept, the others removed.
import { EngineError } from "../errors.js";
import type { Dialect } from "./dialects.js";
import { ContainerNotStartedError } from "./types.js";
import { parseJsonObjects } from "./inspect.js";
import type { NetworkInfo, SandboxNetwork } from "./specs.js";

/** `--network NAME --network-alias A …` for the sandbox's create (the infra container, or podman's `pod create`). */
export function formatSandboxNetworkArgs(network: SandboxNetwork | undefined): string[] {
  if (!network) return [];
  return ["--network", network.id ?? network.name, ...network.aliases.flatMap((alias) => ["--network-alias", alias])];
}

/** `network ls` lines (`ID<TAB>NAME`): every network, by ID and name (docker may hold several of one name). */
export function parseNetworkList(stdout: string): { id: string; name: string }[] {
  return stdout.split("\n").flatMap((line) => {
    const [id, name] = line.trim().split("\t");
    return id && name ? [{ id, name }] : [];
  });
}

/** The networks in `network inspect`'s output, oldest first (ties by ID), as every run sorts them. */
export function parseNetworkInspect(dialect: Dialect, stdout: string): NetworkInfo[] {
  const networks = parseJsonObjects(stdout).flatMap((item) => {
    const name = item["Name"] ?? item["name"];
    const id = item["Id"] ?? item["id"];
    if (typeof name !== "string" || typeof id !== "string") return [];
    const labels = asStringMap(item["Labels"] ?? item["labels"]);
    const ipam = item["IPAM"] as { Config?: unknown } | undefined;
    const listed = Array.isArray(item["subnets"]) ? item["subnets"] : Array.isArray(ipam?.Config) ? ipam.Config : [];
    const subnets = (listed as Record<string, unknown>[]).flatMap((entry) => {
      const subnet = entry["subnet"] ?? entry["Subnet"];
      const gateway = entry["gateway"] ?? entry["Gateway"];
      if (typeof subnet !== "string" || subnet === "") return [];
      return [{ subnet, ...(typeof gateway === "string" && gateway !== "" ? { gateway } : {}) }];
    });
    // docker's user-defined bridges always have the embedded server; podman says per network.
    const dns = dialect.clusterDns === "embedded" ? true : item["dns_enabled"] === true;
    const created = item["Created"] ?? item["created"];
    const bridge = bridgeOf(item, id);
    return [
      {
        network: { id, name, labels, subnets, dns, ...(bridge ? { bridge } : {}) },
        created: (typeof created === "string" && Date.parse(created)) || 0,
      },
    ];
  });
  return networks
    .sort((a, b) => a.created - b.created || a.network.id.localeCompare(b.network.id))
    .map(({ network }) => network);
}

/**
 * The address a container on the network sends its DNS queries to: docker's embedded server
 * answers at 127.0.0.11 inside each container's own network namespace (and so in every
 * container joined to the sandbox's); podman's aardvark-dns (or CNI's dnsname plugin) listens on
 * the network's gateway. Undefined: the engine has no DNS on the network (nerdctl writes names
 * into /etc/hosts instead; podman under CNI without dnsname).
 */
export function clusterDnsServer(dialect: Dialect, network: NetworkInfo): string | undefined {
  if (!network.dns) return undefined;
  if (dialect.clusterDns === "embedded") return "127.0.0.11";
  if (dialect.clusterDns === "gateway")
    return network.subnets.find((s) => s.gateway && !s.gateway.includes(":"))?.gateway;
  return undefined;
}

/**
 * The bridge's interface on the engine's host: podman says it (`network_interface`); docker's is
 * its `com.docker.network.bridge.name` option, else `br-` and the first 12 characters of the
 * network's ID, as libnetwork names a bridge network's (nerdctl names its own the same way).
 */
function bridgeOf(item: Record<string, unknown>, id: string): string | undefined {
  if (typeof item["network_interface"] === "string") return item["network_interface"];
  const named = asStringMap(item["Options"])["com.docker.network.bridge.name"];
  if (named) return named;
  return item["Driver"] === "bridge" && id.length >= 12 ? `br-${id.slice(0, 12)}` : undefined;
}

function asStringMap(value: unknown): Record<string, string> {
  if (value === null || typeof value !== "object") return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/**
 * Whether a create (or a start) failed because of the network it joins, not the container: the
 * network is gone (docker "network x not found", podman "unable to find network with name or ID x:
 * network not found"), or its name is held by two networks for a moment (docker "network x is
 * ambiguous (2 matches found on name)": two runs made it at once). A container made but not started
 * is judged by its start's failure.
 */
export function isNetworkUnusable(error: unknown): boolean {
  const engine = error instanceof ContainerNotStartedError ? error.cause : error;
  if (!(engine instanceof EngineError)) return false;
  return (
    (engine.kind === "not-found" && /network/i.test(engine.message)) ||
    (engine.kind === "conflict" && AMBIGUOUS.test(engine.message))
  );
}

const AMBIGUOUS = /network \S+ is ambiguous/i;

/**
 * Whether a network create failed on its subnet: another network holds it, or is being made with
 * it right now (docker "Pool overlaps with other one on this address space"; podman "subnet x is
 * already used on the host or by another config").
 */
export function isSubnetTaken(stderr: string): boolean {
  return /pool overlaps|is already used/i.test(stderr);
}

/** Whether two IPv4 CIDRs share an address (false for anything else: IPv6 subnets are not compared). */
export function subnetsOverlap(a: string, b: string): boolean {
  const [x, y] = [parseCidr(a), parseCidr(b)];
  if (!x || !y) return false;
  const bits = Math.min(x.bits, y.bits);
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (x.address & mask) >>> 0 === (y.address & mask) >>> 0;
}

function parseCidr(cidr: string): { address: number; bits: number } | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!match) return undefined;
  const [octets, bits] = [match.slice(1, 5).map(Number), Number(match[5])];
  if (octets.some((o) => o > 255) || bits > 32) return undefined;
  return { address: octets.reduce((sum, o) => sum * 256 + o, 0), bits };
}
