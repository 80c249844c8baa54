// The file podrun writes for a Service's proxy container (images/service-proxy, which documents
// the same contract in config.go and README.md). The proxy listens on each port that has
// endpoints and relays to them; it resolves nothing itself, so each endpoint's port is the
// targetPort already resolved for that pod (a named container port may have a different number
// in each pod). podrun bind-mounts a directory at SERVICE_PROXY_CONFIG_DIR and replaces
// SERVICE_PROXY_CONFIG_FILE in it by an atomic rename; the proxy notices within 200 ms, and says so
// in SERVICE_PROXY_STATUS_DIR.

/** podrun's default Service proxy image (scripts/test-env.sh builds it offline). */
export const SERVICE_PROXY_IMAGE = "ghcr.io/podrun/service-proxy:0.1.0";

/** The proxy's image (also podrun's relay's: runtime/relay.ts): `--service-proxy-image`, else $PODRUN_SERVICE_PROXY_IMAGE, else podrun's. */
export function resolveProxyImage(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag || env["PODRUN_SERVICE_PROXY_IMAGE"] || SERVICE_PROXY_IMAGE;
}
/** Where the proxy container reads its config: mount a directory here, not the file. */
export const SERVICE_PROXY_CONFIG_DIR = "/podrun/service";
export const SERVICE_PROXY_CONFIG_FILE = "service.json";
/**
 * Where the proxy reports what it applied: a writable directory mounted here gets
 * SERVICE_PROXY_APPLIED_FILE, the SHA-256 (hex) of the config file's bytes, once the proxy relays
 * by them (proxy-applied.ts waits for it).
 */
export const SERVICE_PROXY_STATUS_DIR = "/podrun/status";
export const SERVICE_PROXY_APPLIED_FILE = "applied";
/** The API server's default of sessionAffinityConfig.clientIP.timeoutSeconds. */
export const DEFAULT_AFFINITY_TIMEOUT_SECONDS = 10800;

export type ProxyProtocol = "TCP" | "UDP";

/** A pod's address, or a name the proxy resolves at each connection (an ExternalName's target). */
export type ProxyEndpoint =
  | {
      ip: string;
      /** The targetPort, resolved for this endpoint's pod. */
      port: number;
      /** The pod's name, for the proxy's log lines. */
      pod: string;
    }
  | { host: string; port: number };

export interface ProxyPort {
  /** The Service port's name ("" when it has none). */
  name: string;
  protocol: ProxyProtocol;
  /** The Service port. */
  port: number;
  /** The ready endpoints; none closes the port, so that clients are refused at once. */
  endpoints: ProxyEndpoint[];
}

export interface ProxyConfig {
  /** `<namespace>/<name>`. */
  service: string;
  /** Default "None". */
  sessionAffinity?: "None" | "ClientIP";
  /** Default DEFAULT_AFFINITY_TIMEOUT_SECONDS; read only with ClientIP. */
  affinityTimeoutSeconds?: number;
  ports: ProxyPort[];
}

/**
 * The text of service.json for `config`: keys in a fixed order, defaults filled in, endpoints
 * sorted by address, a trailing newline. The same Service and endpoints give the same bytes
 * whatever order the pods were listed in, so a caller can compare texts to skip a rewrite.
 */
export function renderProxyConfig(config: ProxyConfig): string {
  const ordered = {
    service: config.service,
    sessionAffinity: config.sessionAffinity ?? "None",
    affinityTimeoutSeconds: config.affinityTimeoutSeconds ?? DEFAULT_AFFINITY_TIMEOUT_SECONDS,
    ports: config.ports.map((p) => ({
      name: p.name,
      protocol: p.protocol,
      port: p.port,
      endpoints: [...p.endpoints]
        .sort(compareEndpoints)
        .map((e) => ("host" in e ? { host: e.host, port: e.port } : { ip: e.ip, port: e.port, pod: e.pod })),
    })),
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

function compareEndpoints(a: ProxyEndpoint, b: ProxyEndpoint): number {
  return compareText(endpointKey(a), endpointKey(b)) || a.port - b.port || compareText(podOf(a), podOf(b));
}

const endpointKey = (e: ProxyEndpoint) => ("host" in e ? `~~${e.host}` : addressKey(e.ip));
const podOf = (e: ProxyEndpoint) => ("pod" in e ? e.pod : "");

// By code unit, not localeCompare: the order must not depend on the machine's locale.
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// 10.88.0.9 before 10.88.0.10: IPv4 octets compared as numbers; IPv6 after IPv4, as text.
function addressKey(ip: string): string {
  const octets = ip.split(".");
  if (octets.length === 4 && octets.every((o) => /^\d{1,3}$/.test(o)))
    return octets.map((o) => o.padStart(3, "0")).join(".");
  return `~${ip}`;
}
