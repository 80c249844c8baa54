import type { Pod } from "kubernetes-types/core/v1.js";
import type { PodRecord } from "../pod/status/find-pods.js";
import { isSidecarState, kubeContainerName } from "../pod/status/find-pods.js";
import type { ContainerState } from "../runtime/types.js";
import { ownerLabelsOf, stableSuffix, SUFFIX_CHARACTER, type Workload } from "./expand.js";
import type { JobObservation, PodToCreate } from "./job-controller.js";
import type { ContainerExit } from "./pod-failure-policy.js";

// The pure half of running a Job's pods on an engine: the pod made from the template for one
// PodToCreate, the names new pods get, which of the engine's pods belong to the Job, and what a
// pod read back from the engine tells the controller. The engine half is job-pod-engine.ts.

/** The annotation and label of an Indexed Job's pod (batch/v1 JobCompletionIndexAnnotation). */
export const COMPLETION_INDEX_KEY = "batch.kubernetes.io/job-completion-index";

/**
 * The pod the Job controller creates for `request`: the template as expand.ts made it, under the
 * new name; an Indexed Job's pod also gets its index as annotation, label, `JOB_COMPLETION_INDEX`
 * in every container and the hostname `<job>-<index>`, as the controller's addCompletionIndex*
 * functions do (https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/controller/job/indexed_job_utils.go).
 */
export function jobPod(workload: Workload, request: PodToCreate): Pod {
  const template = workload.pods[0];
  if (!template) throw new TypeError(`Job ${workload.name} has no pod template`);
  const pod = structuredClone(template);
  pod.metadata = { ...pod.metadata, name: request.name };
  if (request.index === undefined) return pod;
  const index = String(request.index);
  pod.metadata.annotations = { ...pod.metadata.annotations, [COMPLETION_INDEX_KEY]: index };
  pod.metadata.labels = { ...pod.metadata.labels, [COMPLETION_INDEX_KEY]: index };
  const spec = pod.spec!;
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    if (!(container.env ?? []).some((e) => e.name === "JOB_COMPLETION_INDEX")) {
      container.env = [
        ...(container.env ?? []),
        {
          name: "JOB_COMPLETION_INDEX",
          valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX_KEY}']` } },
        },
      ];
    }
  }
  spec.hostname ??= `${workload.name}-${index}`;
  return pod;
}

/**
 * A name for the Job's next pod: `<job>-<5 chars>` (`<job>-<index>-<5 chars>` when Indexed), the
 * first of the Job's stable sequence not `taken`. The controller draws the 5 characters at random;
 * a sequence keeps the first pod's name what `validate` shows, and never reuses a pod's name while
 * that pod (a failed one, kept Exited) is still there.
 */
export function nextJobPodName(workload: Workload, taken: ReadonlySet<string>, index?: number): string {
  const owner = `Job/${workload.name}`;
  const stem = index === undefined ? workload.name : `${workload.name}-${index}`;
  for (let n = 0; ; n++) {
    const name = `${stem}-${stableSuffix(workload.namespace, owner, index === undefined ? "" : String(index), n)}`;
    if (!taken.has(name)) return name;
  }
}

/**
 * Whether a pod on the engine is one of the Job's: by the owner label its containers carry
 * (workload-ref.ts); a pod without one and without a sandbox, by the name the controller gives
 * (`<job>-<5 chars>`, `<job>-<index>-<5 chars>`).
 */
export function isJobPod(record: PodRecord, workload: Pick<Workload, "name" | "namespace">): boolean {
  if (record.namespace !== workload.namespace) return false;
  const owners = ownerLabelsOf(record);
  if (owners.length > 0) return owners[0] === `Job/${workload.name}`;
  return (
    !record.infra &&
    record.name.startsWith(`${workload.name}-`) &&
    new RegExp(`^(?:${JOB_POD_NAME_SUFFIX})$`).test(record.name.slice(workload.name.length + 1))
  );
}

/** What follows `<job>-` in the name of a Job's pod: `<5 chars>`, or `<index>-<5 chars>` when Indexed. */
export const JOB_POD_NAME_SUFFIX = String.raw`(?:\d+-)?` + `${SUFFIX_CHARACTER}{5}`;

/** The completion index of a pod of an Indexed Job, from its sandbox's label or its name. */
export function podIndexOf(record: PodRecord, workload: Pick<Workload, "name">): number | undefined {
  const label = record.infra?.labels[COMPLETION_INDEX_KEY];
  if (label !== undefined && /^\d+$/.test(label)) return Number(label);
  const match = new RegExp(`^${workload.name.replace(/[.]/g, "\\.")}-(\\d+)-[a-z0-9]{5}$`).exec(record.name);
  return match ? Number(match[1]) : undefined;
}

/** What the controller is told about a pod as the engine has it now, and the restarts seen. */
export interface PodReading {
  /** "running": not finished; "exited": every app container finished for good (or an init container failed). */
  state: "running" | "exited";
  containers: ContainerExit[];
  /** The engine's restarts of the app containers (restartPolicy OnFailure), summed. */
  restartCount: number;
  /** The last finish time, ms (exited only). */
  finishedAt?: number;
}

/**
 * Reads a pod: finished when an init container failed (startPod never went on to the apps), or
 * when every app container has stopped for good. With restartPolicy OnFailure, a container that
 * exited non-zero is restarted by the engine (`--restart on-failure`), so only a zero exit is final;
 * sidecars are not waited for (the kubelet ends them once the app containers are done).
 */
export function readJobPod(record: PodRecord, restartPolicy: string): PodReading {
  const inits = record.initContainers.filter((c) => !isSidecarState(c));
  const exits = (states: ContainerState[], init: boolean): ContainerExit[] =>
    states.map((c) => ({ name: kubeContainerName(c), exitCode: c.exitCode, ...(init ? { init: true } : {}) }));
  const containers = [...exits(record.appContainers, false), ...exits(inits, true)];
  const restartCount = record.appContainers.reduce((sum, c) => sum + c.restartCount, 0);
  const stopped = (c: ContainerState) =>
    !c.running && c.status !== "restarting" && c.status !== "created" && c.finishedAt !== "";
  const finish = (states: ContainerState[]) =>
    Math.max(0, ...states.map((c) => Date.parse(c.finishedAt)).filter((ms) => !Number.isNaN(ms)));
  const failedInit = inits.find((c) => stopped(c) && c.exitCode !== 0);
  if (failedInit) return { state: "exited", containers, restartCount, finishedAt: finish([failedInit]) };
  const final = (c: ContainerState) => stopped(c) && (restartPolicy !== "OnFailure" || c.exitCode === 0);
  if (record.appContainers.length > 0 && record.appContainers.every(final)) {
    return { state: "exited", containers, restartCount, finishedAt: finish(record.appContainers) };
  }
  return { state: "running", containers, restartCount };
}

/** The observations a reading adds to what the controller was last told (`told`: restarts, started). */
export function observationsOf(
  pod: string,
  reading: PodReading,
  told: { started: boolean; restartCount: number },
  now: number,
): JobObservation[] {
  const out: JobObservation[] = [];
  if (!told.started) out.push({ kind: "started", pod, at: now });
  if (reading.restartCount > told.restartCount)
    out.push({ kind: "restarted", pod, restartCount: reading.restartCount, at: now });
  if (reading.state === "exited")
    out.push({ kind: "exited", pod, containers: reading.containers, at: reading.finishedAt || now });
  return out;
}
