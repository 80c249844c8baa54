// A container's compute resources (limits and requests of cpu and memory) as `create` flags,
// computed as the kubelet computes the container's cgroup settings: `generateLinuxContainerResources`
// in pkg/kubelet/kuberuntime/kuberuntime_container_linux.go, with the arithmetic of
// pkg/kubelet/cm/helpers_linux.go. Pure: nothing here runs a process.
import type { ResourceRequirements } from "kubernetes-types/core/v1.js";
import { parseQuantity, quantityMilliValue, quantityValue } from "../resources/quantity.js";
import type { ResourceArgs } from "./specs.js";

/** The kubelet's CFS period (µs) when the CPUCFSQuotaPeriod feature gate is off, as it is by default. */
export const QUOTA_PERIOD = 100_000;
/** The smallest CFS quota (µs) the kubelet sets: the kernel refuses less than 1 ms. */
export const MIN_QUOTA_PERIOD = 1_000;
/** cpu.shares bounds and scale (cgroup v1 units; the engines convert them to cpu.weight on v2). */
export const MIN_SHARES = 2;
export const MAX_SHARES = 262_144;
const SHARES_PER_CPU = 1_024;
const MILLI_CPU_TO_CPU = 1_000;

/** The kubelet's MilliCPUToQuota: the CFS quota for `milliCPU` over `period` µs; 0 for none. */
export function milliCpuToQuota(milliCPU: number, period: number = QUOTA_PERIOD): number {
  if (milliCPU === 0) return 0;
  const quota = Math.floor((milliCPU * period) / MILLI_CPU_TO_CPU);
  return Math.max(quota, MIN_QUOTA_PERIOD);
}

/** The kubelet's MilliCPUToShares: cpu.shares for `milliCPU`, within [MIN_SHARES, MAX_SHARES]. */
export function milliCpuToShares(milliCPU: number): number {
  if (milliCPU === 0) return MIN_SHARES;
  const shares = Math.floor((milliCPU * SHARES_PER_CPU) / MILLI_CPU_TO_CPU);
  return Math.min(Math.max(shares, MIN_SHARES), MAX_SHARES);
}

/**
 * The cgroup settings of a container's `resources`; undefined when it sets none of cpu and
 * memory. Quantities are already validated; one that does not parse, or is zero or negative,
 * is treated as unset (zero means "no limit" to the kubelet as well).
 *
 * Where podrun departs from the kubelet: a container without a cpu request gets the engine's
 * default weight rather than the kubelet's 2 shares, since on one machine there is no
 * Burstable/BestEffort hierarchy for that weight to be relative to.
 */
export function planResources(resources: ResourceRequirements | undefined): ResourceArgs | undefined {
  const limits = resources?.limits ?? {};
  const requests = resources?.requests ?? {};
  const planned: ResourceArgs = {};
  const memoryLimit = readPositive(limits.memory, quantityValue);
  if (memoryLimit !== undefined) planned.memoryLimitBytes = memoryLimit;
  const memoryRequest = readPositive(requests.memory, quantityValue);
  if (memoryRequest !== undefined) planned.memoryReservationBytes = memoryRequest;
  const cpuLimit = readPositive(limits.cpu, quantityMilliValue);
  if (cpuLimit !== undefined) {
    planned.cpuPeriod = QUOTA_PERIOD;
    planned.cpuQuota = milliCpuToQuota(cpuLimit);
  }
  // The kubelet repeats the API server's default: with a limit and no request, the request is
  // the limit (lib/manifest/defaults.ts has already done so for a loaded manifest).
  const cpuRequest = readPositive(requests.cpu, quantityMilliValue) ?? cpuLimit;
  if (cpuRequest !== undefined) planned.cpuShares = milliCpuToShares(cpuRequest);
  return Object.keys(planned).length > 0 ? planned : undefined;
}

/** `create` flags for `resources` (the same on docker, podman and nerdctl). */
export function formatResourceArgs(resources: ResourceArgs | undefined): string[] {
  if (!resources) return [];
  const args: string[] = [];
  // No swap beyond the limit: the kubelet's default (swapBehavior NoSwap, ConfigureNoSwap in
  // kuberuntime_container_linux.go) where the engines would otherwise allow as much swap again.
  if (resources.memoryLimitBytes !== undefined)
    args.push("--memory", String(resources.memoryLimitBytes), "--memory-swap", String(resources.memoryLimitBytes));
  if (resources.memoryReservationBytes !== undefined)
    args.push("--memory-reservation", String(resources.memoryReservationBytes));
  if (resources.cpuPeriod !== undefined) args.push("--cpu-period", String(resources.cpuPeriod));
  if (resources.cpuQuota !== undefined) args.push("--cpu-quota", String(resources.cpuQuota));
  if (resources.cpuShares !== undefined) args.push("--cpu-shares", String(resources.cpuShares));
  return args;
}

function readPositive(value: string | number | undefined, read: typeof quantityValue): number | undefined {
  if (value === undefined) return undefined;
  const parsed = parseQuantity(value);
  if (!parsed) return undefined;
  const amount = read(parsed);
  return amount > 0n && amount <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(amount) : undefined;
}
