import { readFileSync, statfsSync } from "node:fs";
import { cpus, hostname, networkInterfaces, totalmem } from "node:os";
import type { Container, Pod, ResourceRequirements } from "kubernetes-types/core/v1.js";
import {
  divideRoundingUp,
  isZeroQuantity,
  parseQuantity,
  quantityMilliValue,
  quantityValue,
  type Quantity,
} from "../../resources/quantity.js";
import type { PodIdentity } from "../identity.js";

// The values of fieldRef and resourceFieldRef, for env (lib/pod/spec/container-env.ts) and for
// downwardAPI volumes, as the kubelet computes them: kubernetes/kubernetes
// pkg/kubelet/kubelet_pods.go podFieldSelectorRuntimeValue, pkg/fieldpath/fieldpath.go and
// pkg/api/v1/resource/helpers.go. What a cluster takes from its node, podrun takes from this machine:
// - nodeName: `spec.nodeName` when the manifest pins one, else this host's name lower-cased, the
//   name a kubelet registers its node under by default;
// - hostIP: the IPv4 address of the interface that holds the default route, the address a
//   kubelet picks for its node without --node-ip. The pod reaches it from a bridge network (the
//   engine routes to the host) and from the host's network alike, as pods reach their node;
// - capacity: this machine's CPUs, memory and root filesystem, with nothing reserved, as a
//   node's allocatable is when the kubelet reserves nothing.

export interface PodFieldContext {
  pod: Pod;
  identity: PodIdentity;
  nodeName: string;
  hostIPs: readonly string[];
  podIPs: readonly string[];
}

/**
 * fieldPath value: metadata.name/namespace/uid, metadata.labels and metadata.annotations (whole
 * map, volume form `k="v"` lines sorted), labels['k'], annotations['k'], spec.nodeName,
 * spec.serviceAccountName, status.hostIP(s), status.podIP(s). Throws on another path (validation
 * rejects them first).
 */
export function resolvePodField(fieldPath: string, ctx: PodFieldContext): string {
  const subscripted = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(fieldPath);
  if (subscripted) {
    const [, path, key = ""] = subscripted;
    const map = path === "metadata.labels" ? ctx.pod.metadata?.labels : ctx.pod.metadata?.annotations;
    return map?.[key] ?? "";
  }
  switch (fieldPath) {
    case "metadata.name":
      return ctx.identity.name;
    case "metadata.namespace":
      return ctx.identity.namespace;
    case "metadata.uid":
      return ctx.identity.uid;
    case "metadata.labels":
      return formatMap(ctx.pod.metadata?.labels ?? {});
    case "metadata.annotations":
      return formatMap(ctx.pod.metadata?.annotations ?? {});
    case "spec.nodeName":
      return ctx.nodeName;
    case "spec.serviceAccountName":
      // The ServiceAccount admission plugin gives a pod without one the namespace's "default".
      return ctx.pod.spec?.serviceAccountName || ctx.pod.spec?.serviceAccount || "default";
    case "status.hostIP":
      return ctx.hostIPs[0] ?? "";
    case "status.hostIPs":
      return ctx.hostIPs.join(",");
    case "status.podIP":
      return ctx.podIPs[0] ?? "";
    case "status.podIPs":
      return ctx.podIPs.join(",");
  }
  throw new Error(`unsupported fieldPath: ${fieldPath}`);
}

/** Which fieldPaths need the sandbox's IP, known only once it runs. */
export function needsPodIP(fieldPath: string): boolean {
  return fieldPath === "status.podIP" || fieldPath === "status.podIPs";
}

/** fieldpath.FormatMap: `key="value"` lines in key order, values quoted as Go's %q quotes them. */
export function formatMap(map: Record<string, string>): string {
  return Object.keys(map)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((key) => `${key}=${quoteGo(map[key]!)}`)
    .join("\n");
}

const GO_ESCAPES: Record<string, string> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  '"': '\\"',
  "\\": "\\\\",
};

// strconv.Quote: printable characters as they are (unicode.IsPrint: letters, marks, numbers,
// punctuation, symbols and the ASCII space), the rest escaped.
function quoteGo(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (GO_ESCAPES[char]) out += GO_ESCAPES[char];
    else if (char === " " || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(char)) out += char;
    else if (code < 0x80) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

export interface NodeCapacity {
  cpuCores: number;
  memoryBytes: number;
  ephemeralStorageBytes: number;
}

/** This machine's, as a kubelet's node allocatable would be. */
export function readNodeCapacity(): NodeCapacity {
  let ephemeralStorageBytes = 0;
  try {
    const stats = statfsSync("/");
    ephemeralStorageBytes = stats.blocks * stats.bsize;
  } catch {
    // No statfs (an unusual platform): a zero capacity leaves the limit as unset as it is.
  }
  return { cpuCores: cpus().length, memoryBytes: totalmem(), ephemeralStorageBytes };
}

/** The node name podrun gives a pod: the pinned `spec.nodeName`, else this host's name lower-cased. */
export function readNodeName(pod: Pod): string {
  return pod.spec?.nodeName || hostname().toLowerCase();
}

/**
 * This machine's address as `status.hostIP(s)`: the IPv4 address of the default route's
 * interface, else the first external IPv4 address, else 127.0.0.1.
 */
export function readHostIPs(): string[] {
  const interfaces = networkInterfaces();
  const ipv4 = (name: string) => interfaces[name]?.find((a) => a.family === "IPv4" && !a.internal)?.address;
  const routed = readDefaultRouteInterface();
  const address =
    (routed && ipv4(routed)) ??
    Object.keys(interfaces)
      .map(ipv4)
      .find((a) => a !== undefined);
  return [address ?? "127.0.0.1"];
}

function readDefaultRouteInterface(): string | undefined {
  try {
    // /proc/net/route: Iface, Destination (hex), … ; the default route's destination is 00000000.
    const rows = readFileSync("/proc/net/route", "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/));
    return rows.find((row) => row[1] === "00000000")?.[0];
  } catch {
    // No /proc/net/route (not Linux, or not readable): the caller falls back on 127.0.0.1.
    return undefined;
  }
}

/**
 * resource (limits/requests cpu, memory, ephemeral-storage) of `container`, divided by `divisor`
 * and rounded up as the kubelet does; an unset limit is the pod-level one (`pod`'s
 * spec.resources), else the node's capacity.
 */
export function resolveResourceField(
  ref: { resource: string; divisor?: string | number },
  container: Container,
  node: NodeCapacity,
  pod?: Pod,
): string {
  const divisor = ref.divisor === undefined ? undefined : parseQuantity(ref.divisor);
  // An unset or zero divisor is 1 (ExtractContainerResourceValue).
  const by = divisor && !isZeroQuantity(divisor) ? divisor : ONE;
  const [kind, name = ""] = ref.resource.split(/\.(.*)/s) as [string, string?];
  const value =
    kind === "limits"
      ? limitOf(
          container,
          name,
          node,
          (pod?.spec as { resources?: ResourceRequirements } | undefined)?.resources?.limits,
        )
      : kind === "requests"
        ? requestOf(container, name)
        : undefined;
  if (value === undefined || !RESOURCES.has(name)) throw new Error(`unsupported container resource : ${ref.resource}`);
  // convertResourceCPUToString divides milli-values, the others whole values; both round up.
  const result =
    name === "cpu"
      ? divideRoundingUp(quantityMilliValue(value), quantityMilliValue(by))
      : divideRoundingUp(quantityValue(value), quantityValue(by));
  return result.toString();
}

const ONE: Quantity = { numerator: 1n, denominator: 1n };
const RESOURCES = new Set(["cpu", "memory", "ephemeral-storage"]);

// MergeContainerResourceLimits: a limit that is unset or zero becomes the node's allocatable, or
// the pod-level limit of cpu or memory where one is set and not zero (the kubelet's
// defaultPodLimitsForDownwardAPI in pkg/kubelet/kubelet_resources.go).
function limitOf(
  container: Container,
  name: string,
  node: NodeCapacity,
  podLimits: Record<string, string | number> = {},
): Quantity | undefined {
  const limit = readQuantity(container.resources?.limits?.[name]);
  if (limit && !isZeroQuantity(limit)) return limit;
  const podLimit = name === "cpu" || name === "memory" ? readQuantity(podLimits[name]) : undefined;
  if (podLimit && !isZeroQuantity(podLimit)) return podLimit;
  const capacity = { cpu: node.cpuCores, memory: node.memoryBytes, "ephemeral-storage": node.ephemeralStorageBytes }[
    name
  ];
  return capacity === undefined ? undefined : { numerator: BigInt(Math.round(capacity)), denominator: 1n };
}

// The API server defaults an unset request to the container's limit of the same resource; with
// neither, the request is zero.
function requestOf(container: Container, name: string): Quantity | undefined {
  const request =
    readQuantity(container.resources?.requests?.[name]) ?? readQuantity(container.resources?.limits?.[name]);
  return request ?? (RESOURCES.has(name) ? { numerator: 0n, denominator: 1n } : undefined);
}

function readQuantity(value: string | number | undefined): Quantity | undefined {
  return value === undefined ? undefined : parseQuantity(value);
}
