import type { ChalkInstance } from "chalk";
import type { DownOutcome, DownTarget } from "../apply/down.js";
import type { WorkloadToDown } from "../apply/down-workloads.js";
import type { StopPodResult } from "../pod/stop/stop-pod.js";
import { formatRef } from "../kinds/workload-ref.js";
import { formatErrorLine } from "./error-line.js";
import { plural } from "../text/plural.js";

// What `podrun down` prints of each pod it brought down (apply/down.ts), and of each workload
// with no pod left (pure).

/** One line of `--json` output per pod. */
export interface DownResult {
  pod: string;
  namespace: string;
  status: DownOutcome["status"];
  containers: number;
  volumes: number;
  durationSeconds: number;
  failures: StopPodResult["failures"];
  hookFailures: StopPodResult["hookFailures"];
}

/** The lines of one pod gone down: its preStop hooks that failed, what could not be removed, then how it went. */
export function formatDownOutcome(
  outcome: DownOutcome,
  options: { color: ChalkInstance; json: boolean },
): { stdout: string[]; stderr: string[] } {
  const { color } = options;
  const label = formatPodLabel(outcome.target);
  const result = outcome.status === "NotFound" ? undefined : outcome.result;
  const stderr = [
    ...(result?.hookFailures ?? []).map((hook) =>
      color.yellow(`Warning: ${label}: container ${hook.container}: preStop hook failed: ${hook.message}`),
    ),
    ...(result?.failures ?? []).map((failure) => {
      const what =
        failure.object === "sandbox" || failure.object === "pod directory" || failure.object.startsWith("volume ")
          ? failure.object
          : `container ${failure.object}`;
      const message = `${what}: could not ${failure.step} it: ${failure.message}`;
      return color.red(formatErrorLine({ reason: "FailedKillPod", message }, label));
    }),
  ];
  if (options.json) return { stdout: [JSON.stringify(downResultOf(outcome))], stderr };
  const line = formatDownLine(outcome, label, color);
  return outcome.status === "Failed" ? { stdout: [], stderr: [...stderr, line] } : { stdout: [line], stderr };
}

function formatDownLine(outcome: DownOutcome, label: string, color: ChalkInstance): string {
  if (outcome.status === "NotFound") {
    const { target } = outcome;
    const hint = target.alsoDirectory
      ? ` (${target.name} is also a directory here: podrun down ./${target.name} brings down its manifests' pods)`
      : "";
    return `${label} not found${hint}`;
  }
  const seconds = (outcome.durationMs / 1000).toFixed(1);
  const counts = `${plural(outcome.result.containers, "container")}, ${plural(outcome.result.volumes, "volume")}, ${seconds}s`;
  return outcome.status === "Deleted"
    ? color.green(`${label} deleted (${counts})`)
    : `${label} not fully deleted (${counts} removed)`;
}

function downResultOf(outcome: DownOutcome): DownResult {
  const result = outcome.status === "NotFound" ? undefined : outcome.result;
  return {
    pod: outcome.target.name,
    namespace: outcome.target.namespace,
    status: outcome.status,
    containers: result?.containers ?? 0,
    volumes: result?.volumes ?? 0,
    durationSeconds: Math.round(outcome.durationMs / 100) / 10,
    failures: result?.failures ?? [],
    hookFailures: result?.hookFailures ?? [],
  };
}

/**
 * A workload with no pod left: `deployment/web not found`, or, for a Job of which its record alone
 * was left, `job/x deleted (no pod left)`.
 */
export function formatWorkloadGone(
  gone: { workload: WorkloadToDown; recorded: boolean },
  options: { json: boolean },
): string {
  const { workload, recorded } = gone;
  if (options.json)
    return JSON.stringify({
      workload: `${workload.ref.kind}/${workload.ref.name}`,
      namespace: workload.namespace,
      status: recorded ? "Deleted" : "NotFound",
    });
  const notFound = formatWorkloadNotFound(workload);
  return recorded ? notFound.replace(/ not found$/, " deleted (no pod left)") : notFound;
}

export function formatPodLabel(target: DownTarget): string {
  return target.namespace === "default" ? `pod/${target.name}` : `pod/${target.name} (namespace ${target.namespace})`;
}

/** `deployment/web not found`, with the namespace when not the default one. */
export function formatWorkloadNotFound(workload: WorkloadToDown): string {
  return workload.namespace === "default"
    ? `${formatRef(workload.ref)} not found`
    : `${formatRef(workload.ref)} (namespace ${workload.namespace}) not found`;
}
