// How a sandbox joins the cluster network, and the reading of `network inspect` on each CLI.
// docker and nerdctl print `{"Name", "Labels", "IPAM": {"Config": [{"Subnet", "Gateway"}]}}`;
// podman 4 (netavark, or CNI as podman converts it) prints `{"name", "labels", "subnets":
// [{"subnet", "gateway"}], "dns_enabled"}`. One reader takes both, as inspect.ts does for containers.
// dockerd 20.10 checks a new network's name against the others without a lock: two runs making
// the network at once may both succeed, and the name is then ambiguous. Every run then keeps the
// oldest of the networks so named and removes the others (CliRuntime.ensureNetwork), and a
// sandbox joins the network by ID.
import type { Dialect } from "./dialects.js";
import { parseJsonObjects } from "./inspect.js";
import type { NetworkInfo, SandboxNetwork } from "./specs.js";

/** `--network NAME --network-alias A …` for the sandbox's create (the infra container, or podman's `pod create`). */
export function formatSandboxNetworkArgs(network: SandboxNetwork | undefined): string[] {
  if (!network) return [];
  return ["--network", network.id ?? network.name, ...network.aliases.flatMap((alias) => ["--network-alias", alias])];
}

/** `network ls` lines (`ID<TAB>NAME`): the IDs of the networks named exactly `name` (docker may hold several). */
export function parseNetworkIds(stdout: string, name: string): string[] {
  return stdout
    .split("\n")
    .map((line) => line.trim().split("\t"))
    .filter(([id, named]) => id && named === name)
    .map(([id]) => id!);
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
    return [
      {
        network: { id, name, labels, subnets, dns },
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

function asStringMap(value: unknown): Record<string, string> {
  if (value === null || typeof value !== "object") return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}
