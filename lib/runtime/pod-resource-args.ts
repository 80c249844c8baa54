// Pod-level resources (spec.resources) as the pod's own cgroup, computed as the kubelet computes
// the pod cgroup's settings: ResourceConfigForPod in pkg/kubelet/cm/helpers_linux.go, on the pod
// as the API server defaulted it. Only podman has a pod cgroup a CLI can set (`pod create`);
// docker and nerdctl have no cgroup above the containers of a pod, and the Warning says so
// (lib/kinds/support/pod-resources-support.ts). Pure: nothing here runs a process.
import type { PodSpec, ResourceRequirements } from "kubernetes-types/core/v1.js";
import { defaultPodRequests } from "../resources/pod-requests.js";
import { parseQuantity, quantityMilliValue, quantityValue, type Quantity } from "../resources/quantity.js";
import type { Dialect } from "./dialects.js";
import { milliCpuToQuota, milliCpuToShares, QUOTA_PERIOD } from "./resource-args.js";
import type { PodResourceArgs } from "./specs.js";

/** kubernetes-types predates spec.resources (1.32). */
export type PodSpecWithResources = PodSpec & { resources?: ResourceRequirements };

/** The pod cgroup's settings from spec.resources; undefined when it sets neither cpu nor memory. */
export function planPodResources(spec: PodSpecWithResources): PodResourceArgs | undefined {
  if (!spec.resources) return undefined;
  const limits = spec.resources.limits ?? {};
  const planned: PodResourceArgs = {};
  const memoryLimit = readPositive(
    limits.memory === undefined ? undefined : parseQuantity(limits.memory),
    quantityValue,
  );
  if (memoryLimit !== undefined) planned.memoryLimitBytes = memoryLimit;
  const cpuLimit = readPositive(limits.cpu === undefined ? undefined : parseQuantity(limits.cpu), quantityMilliValue);
  if (cpuLimit !== undefined) planned.cpuQuota = milliCpuToQuota(cpuLimit);
  const cpuRequest = readPositive(defaultPodRequests(spec).get("cpu"), quantityMilliValue);
  if (cpuRequest !== undefined) planned.cpuShares = milliCpuToShares(cpuRequest);
  return Object.keys(planned).length > 0 ? planned : undefined;
}

/**
 * `pod create` flags (podman); none for an infra container, which holds no other container's
 * cgroup. podman 4.3's `pod create` has `--cpus` but no `--cpu-quota`/`--cpu-period`: it sets
 * the period to 100000 µs and the quota to cpus × 100000, truncated.
 */
export function formatPodResourceArgs(dialect: Dialect, resources: PodResourceArgs | undefined): string[] {
  if (!resources || dialect.sandbox !== "pod") return [];
  const args: string[] = [];
  // No swap beyond the limit, as for a container (resource-args.ts).
  if (resources.memoryLimitBytes !== undefined)
    args.push("--memory", String(resources.memoryLimitBytes), "--memory-swap", String(resources.memoryLimitBytes));
  if (resources.cpuQuota !== undefined) args.push("--cpus", formatCpus(resources.cpuQuota));
  if (resources.cpuShares !== undefined) args.push("--cpu-shares", String(resources.cpuShares));
  return args;
}

/**
 * `--cpus` for a quota over QUOTA_PERIOD µs: the shortest decimal whose product with the period
 * truncates to the quota. `0.29` × 100000 is 28999.999… in binary floating point (podman would
 * set 28999): half a microsecond more (`0.290005`) keeps the product above the quota, and below
 * the next one.
 */
export function formatCpus(quota: number): string {
  const plain = String(quota / QUOTA_PERIOD);
  if (Math.trunc(Number(plain) * QUOTA_PERIOD) === quota) return plain;
  return String((quota + 0.5) / QUOTA_PERIOD);
}

function readPositive(quantity: Quantity | undefined, read: (quantity: Quantity) => bigint): number | undefined {
  if (!quantity) return undefined;
  const amount = read(quantity);
  return amount > 0n && amount <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(amount) : undefined;
}
