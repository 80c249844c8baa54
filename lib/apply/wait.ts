import { PodrunError } from "../errors.js";
import type { EventRecorder } from "../events/recorder.js";
import { readPath, type WaitFor } from "../kinds/wait-for.js";
import { selectPods, type ResourceRef } from "../kinds/workload-ref.js";
import { readPodRecord } from "../pod/pod-record.js";
import { waitForPodReady } from "../pod/readiness/wait-ready.js";
import { systemClock, type Clock } from "../pod/readiness/wait-clock.js";
import type { StartedContainer } from "../pod/readiness/prober-types.js";
import {
  currentContainers,
  findPods,
  isSidecarState,
  kubeContainerName,
  type PodRecord,
} from "../pod/status/find-pods.js";
import { toPodObject } from "../pod/status/pod-object.js";
import { summarizePod } from "../pod/status/pod-status.js";
import { podDirectory } from "../pod/volumes/pod-dir.js";
import type { ContainerRuntime } from "../runtime/types.js";
import { readJobRecord } from "../workloads/job-state.js";

// `podrun wait`: each target until its condition holds, all at once within one time limit, as
// `kubectl wait` waits. With no API server and no kubelet running, the condition is read here:
// - a pod's Ready and ContainersReady (True): its readiness probes, run by this process through
//   the prober `up --wait` uses (pod/readiness/), the pod's spec read from its record
//   (pod-record.ts). A pod without a record (an older podrun) is Ready once its containers run;
// - a pod's other conditions, a JSONPath, and --for=delete: the pod as `ps -o json` shows it,
//   read from the engine every second;
// - a Deployment's Available: every one of its pods Ready, as above (podrun keeps no Deployment
//   object: the replicas it has are the pods the engine holds);
// - a Job's Complete or Failed: its record (job-state.ts), else, for Complete, its pods: one
//   succeeded and none left running or pending.

export interface WaitTarget {
  ref: ResourceRef;
  namespace: string;
}

export interface WaitRequest {
  targets: readonly WaitTarget[];
  for: WaitFor;
  timeoutMs: number;
  stateDir: string;
  signal?: AbortSignal | undefined;
  clock?: Clock;
}

export type WaitResult = "met" | "timeout" | "notFound" | "interrupted";

export interface WaitOutcome {
  target: WaitTarget;
  result: WaitResult;
}

export interface WaitDeps {
  runtime: ContainerRuntime;
  recorder: Pick<EventRecorder, "event">;
}

/** How often the engine is asked again. */
const POLL_MS = 1000;

/** Waits for every target at once; each outcome is reported as it comes, then all are returned in order. */
export async function waitForTargets(
  deps: WaitDeps,
  request: WaitRequest,
  report: (outcome: WaitOutcome) => void,
): Promise<WaitOutcome[]> {
  const clock = request.clock ?? systemClock;
  const endsAtMs = clock.now() + request.timeoutMs;
  return Promise.all(
    request.targets.map(async (target) => {
      const result = await waitForTarget(deps, { ...request, clock, endsAtMs }, target);
      const outcome = { target, result };
      report(outcome);
      return outcome;
    }),
  );
}

type TargetContext = WaitRequest & { clock: Clock; endsAtMs: number };

function waitForTarget(deps: WaitDeps, context: TargetContext, target: WaitTarget): Promise<WaitResult> {
  const wanted = context.for;
  if (target.ref.kind === "Job" && wanted.kind === "condition") return waitForJob(deps, context, target);
  if (
    wanted.kind === "condition" &&
    wanted.value === "True" &&
    /^(Ready|ContainersReady|Available)$/.test(wanted.condition)
  )
    return waitForReadyPods(deps, context, target);
  return pollPods(deps, context, target, (pods) => podsMeet(pods, wanted, deps.runtime.name));
}

/**
 * The target's pods, read every second until `meets` says the wait is over (true: met), the time
 * limit or the signal. `undefined` from `meets`: not there (a pod named that is not found at the
 * first look ends the wait as notFound).
 */
async function pollPods(
  deps: WaitDeps,
  context: TargetContext,
  target: WaitTarget,
  meets: (pods: PodRecord[]) => boolean | undefined | Promise<boolean | undefined>,
): Promise<WaitResult> {
  for (let first = true; ; first = false) {
    const pods = await findTargetPods(deps.runtime, target);
    const met = await meets(pods);
    if (met === true) return "met";
    if (met === undefined && first && context.for.kind !== "delete") return "notFound";
    const left = context.endsAtMs - context.clock.now();
    if (context.signal?.aborted) return "interrupted";
    if (left <= 0) return "timeout";
    await context.clock.sleep(Math.min(POLL_MS, left), context.signal);
  }
}

async function findTargetPods(runtime: ContainerRuntime, target: WaitTarget): Promise<PodRecord[]> {
  const filter =
    target.ref.kind === "Pod"
      ? { namespace: target.namespace, name: target.ref.name }
      : { namespace: target.namespace };
  return selectPods(await findPods(runtime, filter), target.ref);
}

/** Whether the pods meet a condition read from their object (true), not yet (false), or are not there (undefined). */
function podsMeet(pods: PodRecord[], wanted: WaitFor, engine: ContainerRuntime["name"]): boolean | undefined {
  if (wanted.kind === "delete") return pods.length === 0;
  if (pods.length === 0) return undefined;
  return pods.every((record) => {
    const object = toPodObject(summarizePod(record, engine));
    if (wanted.kind === "jsonpath") {
      const value = readPath(object, wanted.path);
      return wanted.value === undefined ? value !== undefined : value === wanted.value;
    }
    // The pod is there: it was scheduled (to this machine).
    if (wanted.condition === "PodScheduled") return wanted.value === "True";
    const status = object.status?.conditions?.find((c) => c.type === wanted.condition)?.status ?? "False";
    return status === wanted.value;
  });
}

/** Ready pods: the pod's (or each of the workload's) readiness probes, run here, until all pass. */
async function waitForReadyPods(deps: WaitDeps, context: TargetContext, target: WaitTarget): Promise<WaitResult> {
  // A workload whose pods are not made yet (a StatefulSet's next one): wait for one to be there.
  let pods: PodRecord[] = [];
  const found = await pollPods(deps, context, target, (records) => ((pods = records), records.length > 0 || undefined));
  if (found !== "met") return found;
  const results = await Promise.all(pods.map((record) => waitForReadyPod(deps, context, record)));
  return results.find((result) => result !== "met") ?? "met";
}

/** One pod until it is Ready (its probes), the time limit or the signal: `rollout status` counts its pods so. */
export function waitForPodReadiness(
  deps: WaitDeps,
  limits: { stateDir: string; endsAtMs: number; clock?: Clock; signal?: AbortSignal | undefined },
  record: PodRecord,
): Promise<WaitResult> {
  const ready: WaitFor = { kind: "condition", condition: "Ready", value: "True" };
  const context = { ...limits, clock: limits.clock ?? systemClock, targets: [], for: ready, timeoutMs: 0 };
  return waitForReadyPod(deps, context, record);
}

async function waitForReadyPod(deps: WaitDeps, context: TargetContext, record: PodRecord): Promise<WaitResult> {
  const spec = await readPodRecord(context.stateDir, deps.runtime.name, record);
  if (!spec) {
    const target = { ref: { kind: "Pod", name: record.name }, namespace: record.namespace };
    const ready = { kind: "condition", condition: "Ready", value: "True" } as const;
    return pollPods(deps, context, target, (pods) => podsMeet(pods, ready, deps.runtime.name));
  }
  try {
    await waitForPodReady({
      runtime: deps.runtime,
      recorder: deps.recorder,
      pod: spec,
      identity: { name: record.name, namespace: record.namespace, uid: record.uid },
      containers: startedContainers(record),
      podIP: spec.spec?.hostNetwork ? "127.0.0.1" : (record.infra?.ip ?? ""),
      timeoutMs: Math.max(0, context.endsAtMs - context.clock.now()),
      signal: context.signal,
      clock: context.clock,
      podDir: podDirectory(context.stateDir, deps.runtime.name, record),
    });
    return "met";
  } catch (error) {
    if (context.signal?.aborted) return "interrupted";
    // Not ready in time, or never to be (an exit for good): kubectl's wait only says it timed out.
    if (error instanceof PodrunError) return "timeout";
    throw error;
  }
}

/** The pod's sidecars and app containers as the prober takes them: the newest of each name. */
function startedContainers(record: PodRecord): StartedContainer[] {
  const of = (state: PodRecord["appContainers"][number], kind: StartedContainer["kind"]) => ({
    name: kubeContainerName(state),
    id: state.id,
    kind,
  });
  return [
    ...currentContainers(record.initContainers)
      .filter(isSidecarState)
      .map((state) => of(state, "sidecar")),
    ...currentContainers(record.appContainers).map((state) => of(state, "app")),
  ];
}

/** A Job's Complete or Failed: its record, else (Complete) its pods. */
async function waitForJob(deps: WaitDeps, context: TargetContext, target: WaitTarget): Promise<WaitResult> {
  const wanted = context.for as Extract<WaitFor, { kind: "condition" }>;
  const job = { name: target.ref.name, namespace: target.namespace };
  const engine = deps.runtime.name;
  return pollPods(deps, context, target, async (pods) => {
    // Read each round: the Job's controller (`up --wait`) may write it meanwhile.
    const record = await readJobRecord(context.stateDir, engine, job);
    if (!record && pods.length === 0) return undefined;
    const phases = pods.map((pod) => summarizePod(pod, engine).phase);
    const succeeded = phases.includes("Succeeded") && !phases.some((p) => p === "Running" || p === "Pending");
    const has = record?.finished?.type === wanted.condition || (wanted.condition === "Complete" && succeeded);
    return has === (wanted.value === "True");
  });
}
