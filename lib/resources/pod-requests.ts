// A pod's requests as the API server sees them once pod-level resources (`spec.resources`) are
// set: the containers' aggregate (AggregateContainerRequests in
// k8s.io/component-helpers/resource/helpers.go) and the pod-level requests it defaults
// (defaultPodRequests in pkg/apis/core/v1/defaults.go). Read from the manifest as written or as
// defaulted alike: a container request the API server would default from its limit is taken from
// the limit here. Values that are not quantities are skipped (the structural checker reports them).
import { parseQuantity, type Quantity } from "./quantity.js";

/** The pod-level resources podrun's engines may act on; hugepages are accepted and left alone. */
export const POD_LEVEL_RESOURCES = ["cpu", "memory"] as const;
const HUGE_PAGES_PREFIX = "hugepages-";

/** resourcehelper.IsSupportedPodLevelResource: cpu, memory and hugepages-<size>. */
export function isSupportedPodLevelResource(name: string): boolean {
  return (POD_LEVEL_RESOURCES as readonly string[]).includes(name) || name.startsWith(HUGE_PAGES_PREFIX);
}

/** What can go over its request: every native resource but hugepages (helper.IsOvercommitAllowed). */
export function isOvercommitAllowed(name: string): boolean {
  const native = !name.includes("/") || name.includes("kubernetes.io/");
  return native && !name.startsWith(HUGE_PAGES_PREFIX);
}

export type QuantityMap = Map<string, Quantity>;

/** A limits or requests map's quantities, in written order. */
export function readQuantityMap(list: unknown): QuantityMap {
  const read: QuantityMap = new Map();
  if (typeof list !== "object" || list === null || Array.isArray(list)) return read;
  for (const [name, value] of Object.entries(list)) {
    if (typeof value !== "string" && typeof value !== "number") continue;
    const quantity = parseQuantity(value);
    if (quantity) read.set(name, quantity);
  }
  return read;
}

/**
 * The containers' aggregate requests: the app containers' and sidecars' sum, or the most any init
 * container needs while it runs (its own request plus the sidecars started before it), whichever
 * is more, resource by resource. An unset request is the container's limit, as defaulted.
 */
export function aggregateContainerRequests(spec: { containers?: unknown; initContainers?: unknown }): QuantityMap {
  const total: QuantityMap = new Map();
  for (const container of listObjects(spec.containers)) addInto(total, readContainerRequests(container));
  const sidecars: QuantityMap = new Map();
  const initPeak: QuantityMap = new Map();
  for (const container of listObjects(spec.initContainers)) {
    const requests = readContainerRequests(container);
    let running: QuantityMap;
    if (container.restartPolicy === "Always") {
      addInto(total, requests);
      addInto(sidecars, requests);
      running = sidecars;
    } else {
      running = new Map(requests);
      addInto(running, sidecars);
    }
    maxInto(initPeak, running);
  }
  maxInto(total, initPeak);
  return total;
}

/**
 * The pod-level requests after the API server's defaulting: with pod-level limits set, an absent
 * request of cpu or memory is the containers' aggregate when they request it, else the pod-level
 * limit (hugepages too, which cannot be overcommitted). Without pod-level limits, as written.
 */
export function defaultPodRequests(spec: {
  resources?: unknown;
  containers?: unknown;
  initContainers?: unknown;
}): QuantityMap {
  const resources = asObject(spec.resources);
  const requests = readQuantityMap(resources?.requests);
  const limits = readQuantityMap(resources?.limits);
  if (limits.size === 0) return requests;
  for (const [name, aggregate] of aggregateContainerRequests(spec)) {
    if (!requests.has(name) && isSupportedPodLevelResource(name) && isOvercommitAllowed(name))
      requests.set(name, aggregate);
  }
  for (const [name, limit] of limits) {
    if (!requests.has(name) && isSupportedPodLevelResource(name)) requests.set(name, limit);
  }
  return requests;
}

/** Sign of a − b, exactly (denominators are positive). */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  return left === right ? 0 : left > right ? 1 : -1;
}

export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return {
    numerator: a.numerator * b.denominator + b.numerator * a.denominator,
    denominator: a.denominator * b.denominator,
  };
}

const BINARY_SUFFIXES: [string, bigint][] = [
  ["Ei", 1n << 60n],
  ["Pi", 1n << 50n],
  ["Ti", 1n << 40n],
  ["Gi", 1n << 30n],
  ["Mi", 1n << 20n],
  ["Ki", 1n << 10n],
];
const DECIMAL_SUFFIXES: [string, bigint][] = [
  ["E", 10n ** 18n],
  ["P", 10n ** 15n],
  ["T", 10n ** 12n],
  ["G", 10n ** 9n],
  ["M", 10n ** 6n],
  ["k", 10n ** 3n],
];

/**
 * A computed quantity (a sum) close to the way the API server prints one: the largest binary
 * suffix that keeps a memory-like value whole, else the largest decimal one, `m` for thousandths
 * (`1500m`, `128Mi`, `2`).
 */
export function formatQuantity(quantity: Quantity, binary: boolean): string {
  const { numerator, denominator } = quantity;
  if (numerator % denominator === 0n) {
    const whole = numerator / denominator;
    if (whole === 0n) return "0";
    const suffixes = binary ? [...BINARY_SUFFIXES, ...DECIMAL_SUFFIXES] : DECIMAL_SUFFIXES;
    for (const [suffix, factor] of suffixes) if (whole % factor === 0n) return `${whole / factor}${suffix}`;
    return String(whole);
  }
  for (const [suffix, factor] of [
    ["m", 1_000n],
    ["u", 1_000_000n],
    ["n", 1_000_000_000n],
  ] as const) {
    if ((numerator * factor) % denominator === 0n) return `${(numerator * factor) / denominator}${suffix}`;
  }
  // Finer than a nanounit: the API server rounds up to nanounits.
  const nanos = numerator * 1_000_000_000n;
  return `${nanos / denominator + (nanos % denominator > 0n ? 1n : 0n)}n`;
}

function readContainerRequests(container: Record<string, unknown>): QuantityMap {
  const resources = asObject(container.resources);
  const requests = readQuantityMap(resources?.limits);
  for (const [name, quantity] of readQuantityMap(resources?.requests)) requests.set(name, quantity);
  return requests;
}

function addInto(target: QuantityMap, source: QuantityMap): void {
  for (const [name, quantity] of source) {
    const current = target.get(name);
    target.set(name, current ? addQuantities(current, quantity) : quantity);
  }
}

function maxInto(target: QuantityMap, source: QuantityMap): void {
  for (const [name, quantity] of source) {
    const current = target.get(name);
    if (!current || compareQuantities(quantity, current) > 0) target.set(name, quantity);
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function listObjects(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value)
    ? value.map(asObject).filter((item): item is Record<string, unknown> => item !== undefined)
    : [];
}
