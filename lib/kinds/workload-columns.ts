import type { WorkloadKind } from "../manifest/kinds.js";
import { formatLabels } from "../text/labels.js";
import { formatHumanDuration } from "../text/human-duration.js";
import type { KindColumns } from "./types.js";
import type { WorkloadObject } from "./workload-objects.js";

// `kubectl get deploy|rs|sts|ds|job`'s columns, from the object (pure): kubectl's printers
// (https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/printers/internalversion/printers.go,
// printDeployment, printReplicaSet, printStatefulSet, printDaemonSet, printJob). -o wide adds
// CONTAINERS and IMAGES; kubectl's SELECTOR column is left out, as podrun keeps no workload's
// selector (workload-objects.ts).

type Spec = {
  replicas?: number;
  completions?: number;
  parallelism?: number;
  template?: { spec?: { containers?: { name: string; image?: string }[]; nodeSelector?: Record<string, string> } };
};
type Status = Record<string, unknown> & { conditions?: { type: string; status: string }[] };

const n = (value: unknown): string => String(typeof value === "number" ? value : 0);

const age = (object: WorkloadObject, nowMs: number): string => {
  const created = object.metadata.creationTimestamp;
  return created ? formatHumanDuration(nowMs - Date.parse(created)) : "<unknown>";
};

const wideRow = (object: WorkloadObject): string[] => {
  const containers = (object.spec as Spec).template?.spec?.containers ?? [];
  const list = (values: string[]) => (values.length > 0 ? values.join(",") : "<none>");
  return [list(containers.map((c) => c.name)), list(containers.map((c) => c.image ?? ""))];
};

function columns(
  headers: readonly string[],
  cells: (spec: Spec, status: Status, object: WorkloadObject, nowMs: number) => string[],
): KindColumns {
  return {
    headers: ["NAME", ...headers, "AGE"],
    wideHeaders: ["CONTAINERS", "IMAGES"],
    row: (object, nowMs) => {
      const o = object as unknown as WorkloadObject;
      return [o.metadata.name, ...cells(o.spec, o.status, o, nowMs), age(o, nowMs)];
    },
    wideRow: (object) => wideRow(object as unknown as WorkloadObject),
  };
}

/** printJob's STATUS: the terminal condition, else Running. */
function jobStatus(status: Status): string {
  const holds = (type: string) => (status.conditions ?? []).some((c) => c.type === type && c.status === "True");
  for (const type of ["Complete", "Failed", "SuccessCriteriaMet", "FailureTarget", "Suspended"])
    if (holds(type)) return type;
  return "Running";
}

/** printJob's COMPLETIONS: `1/3`, or for a work queue `0/1 of 3`. */
function jobCompletions(spec: Spec, status: Status): string {
  const succeeded = n(status.succeeded);
  if (spec.completions !== undefined) return `${succeeded}/${spec.completions}`;
  return (spec.parallelism ?? 1) > 1 ? `${succeeded}/1 of ${spec.parallelism}` : `${succeeded}/1`;
}

/** printJob's DURATION: from the start to the completion, or to now while it runs. */
function jobDuration(status: Status, nowMs: number): string {
  if (typeof status.startTime !== "string") return "";
  const end = typeof status.completionTime === "string" ? Date.parse(status.completionTime) : nowMs;
  return formatHumanDuration(end - Date.parse(status.startTime));
}

export const WORKLOAD_COLUMNS: Record<WorkloadKind, KindColumns> = {
  Deployment: columns(["READY", "UP-TO-DATE", "AVAILABLE"], (spec, status) => [
    `${n(status.readyReplicas)}/${n(spec.replicas)}`,
    n(status.updatedReplicas),
    n(status.availableReplicas),
  ]),
  ReplicaSet: columns(["DESIRED", "CURRENT", "READY"], (spec, status) => [
    n(spec.replicas),
    n(status.replicas),
    n(status.readyReplicas),
  ]),
  StatefulSet: columns(["READY"], (spec, status) => [`${n(status.readyReplicas)}/${n(spec.replicas)}`]),
  DaemonSet: columns(["DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR"], (spec, status) => [
    n(status.desiredNumberScheduled),
    n(status.currentNumberScheduled),
    n(status.numberReady),
    n(status.updatedNumberScheduled),
    n(status.numberAvailable),
    formatLabels(spec.template?.spec?.nodeSelector),
  ]),
  Job: columns(["STATUS", "COMPLETIONS", "DURATION"], (spec, status, _object, nowMs) => [
    jobStatus(status),
    jobCompletions(spec, status),
    jobDuration(status, nowMs),
  ]),
};
