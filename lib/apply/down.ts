import { stat } from "node:fs/promises";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { EventRecorder } from "../events/recorder.js";
import { toInvolvedObject } from "../events/types.js";
import { removeClusterNetworkIfUnused } from "../pod/cluster-network.js";
import { removeServices, type RemovedService } from "../services/remove-services.js";
import { findPods, selectByLabels, type PodRecord } from "../pod/status/find-pods.js";
import type { LabelSelector } from "../manifest/label-selector.js";
import { listPodDirectories, podDirectory } from "../pod/volumes/pod-dir.js";
import { stopPod, type StopPodResult } from "../pod/stop/stop-pod.js";
import { removeHalfMadeSandbox } from "../pod/stop/half-made-sandbox.js";
import {
  LABEL_MANAGED,
  LABEL_POD_NAME,
  LABEL_POD_NAMESPACE,
  LABEL_POD_UID,
  type ContainerRuntime,
  type VolumeInfo,
} from "../runtime/types.js";
import { listJobRecords, removeJobRecord } from "../workloads/job-state.js";
import { findWorkloadPods, type WorkloadToDown } from "./down-workloads.js";

// The run of `podrun down`, once the command has read its arguments: (1) the pods to bring down
// are read back from the engine by label (never from a cache), with the workloads' pods by their
// owner label and, with --all, what a killed run left; (2) the Jobs' records are removed; (3) the
// pods go down concurrently, as a node kills them (pod/stop/stop-pod.ts does one pod), each told
// as it ends (a DownOutcome, worded by output/down-lines.ts); (4) the cluster network goes when
// nothing is left on it. A pod that is not there is "NotFound": running `down` twice, or after a
// failed `up`, is fine.

/** A pod to bring down: its name, and its manifest when it came from a file. */
export interface DownTarget {
  name: string;
  namespace: string;
  manifest?: Pod;
  /** A bare name taken as a pod's that is also a directory here: said when no such pod exists. */
  alsoDirectory?: boolean;
}

/** What the command read from its arguments. */
export interface DownRequest {
  /** --all: every podrun pod (of `namespace` when given). */
  all: boolean;
  namespace?: string | undefined;
  targets: readonly DownTarget[];
  workloads: readonly WorkloadToDown[];
  /** `-l`: also the pods whose labels match, in `namespace` (default "default"). */
  selector?: LabelSelector | undefined;
  /** The Jobs named or in the manifests: their records go with their pods. */
  jobs: readonly { name: string; namespace: string }[];
  stateDir: string;
}

/** Step 1's answer: the pods to bring down and what the engine has of them. */
export interface DownFound {
  wanted: DownTarget[];
  pods: ReadonlyMap<string, PodRecord>;
  volumes: ReadonlyMap<string, VolumeInfo[]>;
  /** The workloads with no pod left; `recorded`: a Job of which only its record was left (removed in step 2). */
  gone: { workload: WorkloadToDown; recorded: boolean }[];
}

/** How one pod went down. */
export type DownOutcome =
  | { status: "NotFound"; target: DownTarget; durationMs: number }
  | { status: "Deleted" | "Failed"; target: DownTarget; durationMs: number; result: StopPodResult };

export const keyOf = (pod: { name: string; namespace: string }) => `${pod.namespace}/${pod.name}`;

/** Step 1: the pods wanted, found on the engine by label, and the workloads with none left. */
export async function findDownTargets(runtime: ContainerRuntime, request: DownRequest): Promise<DownFound> {
  const { stateDir } = request;
  const { pods, volumes } = await findEverything(runtime, request.namespace);
  const wanted: DownTarget[] = request.all
    ? pods.map((p) => ({ name: p.name, namespace: p.namespace }))
    : [...request.targets];
  const add = (target: DownTarget) => {
    if (!wanted.some((t) => keyOf(t) === keyOf(target))) wanted.push(target);
  };
  // A workload's pods, by its owner label (down-workloads.ts); one with none (a Job: nor a record) is "not found".
  const ofWorkloads = await findWorkloadPods(
    request.workloads,
    pods,
    async (pod) =>
      volumes.has(keyOf(pod)) ||
      // No pod directory (or none readable): nothing of the pod's is on disk.
      (await stat(podDirectory(stateDir, runtime.name, pod)).catch(() => undefined)) !== undefined,
  );
  for (const target of ofWorkloads.targets) add(target);
  if (request.selector) {
    const namespace = request.namespace ?? "default";
    const inNamespace = pods.filter((pod) => pod.namespace === namespace);
    for (const pod of selectByLabels(inNamespace, request.selector)) add({ name: pod.name, namespace });
  }
  const jobRecords = ofWorkloads.notFound.some((w) => w.ref.kind === "Job")
    ? await listJobRecords(stateDir, runtime.name)
    : [];
  // A Job whose pods its controller deleted (activeDeadlineSeconds) is still there as its record.
  const gone = ofWorkloads.notFound.map((workload) => ({
    workload,
    recorded:
      workload.ref.kind === "Job" &&
      jobRecords.some((r) => r.name === workload.ref.name && r.namespace === workload.namespace),
  }));
  // --all also finds a pod of which only volumes, or only its directory, are left (a run that was killed).
  if (request.all) {
    const leftDirs = (await listPodDirectories(stateDir, runtime.name)).filter(
      (p) => request.namespace === undefined || p.namespace === request.namespace,
    );
    for (const key of [...volumes.keys(), ...leftDirs.map(keyOf)]) add(fromKey(key));
  }
  return { wanted, pods: new Map(pods.map((p) => [keyOf(p), p])), volumes, gone };
}

/** Step 2: a Job's records go with its pods (found in step 1 by their owner, as any workload's). */
export async function removeJobRecords(engine: string, request: DownRequest): Promise<void> {
  const jobs = [...request.jobs];
  if (request.all)
    jobs.push(
      ...(await listJobRecords(request.stateDir, engine)).filter(
        (r) => request.namespace === undefined || r.namespace === request.namespace,
      ),
    );
  for (const job of jobs) await removeJobRecord(request.stateDir, engine, job);
}

/** Step 3: every pod wanted, down concurrently; each outcome reported as it ends. False when one failed. */
export async function bringAllDown(
  deps: { runtime: ContainerRuntime; recorder: Pick<EventRecorder, "event"> },
  found: DownFound,
  options: { stateDir: string; gracePeriod?: number | undefined; report: (outcome: DownOutcome) => void },
): Promise<boolean> {
  let ok = true;
  await Promise.all(
    found.wanted.map(async (target) => {
      const outcome = await bringDown(deps, target, found, options);
      options.report(outcome);
      if (outcome.status === "Failed") ok = false;
    }),
  );
  return ok;
}

/**
 * Step 4: the Services of the files (or all, with --all: lib/services/remove-services.ts), the
 * others' endpoints brought up to date; then, with --all and no namespace (everything podrun runs
 * on the engine), the cluster network once no container is on it. Any other `down` keeps the
 * network, as a cluster keeps its pod network: docker removes a network that a container created
 * but not yet started is on, so a `down` beside another run's `up` would take the network from
 * under that run's new sandbox between its create and its start (the suite met it). A network the
 * engine would not remove stays: the next `down --all` tries again.
 */
export async function removeServicesAndNetwork(
  runtime: ContainerRuntime,
  request: Parameters<typeof removeServices>[1],
): Promise<RemovedService[]> {
  const { removed, left } = await removeServices(runtime, request);
  if (request.all && request.namespace === undefined)
    await removeClusterNetworkIfUnused(runtime, left).catch(() => false);
  return removed;
}

/** Stops and removes one pod (stop-pod.ts); FailedKillPod when something could not be removed. */
async function bringDown(
  deps: { runtime: ContainerRuntime; recorder: Pick<EventRecorder, "event"> },
  target: DownTarget,
  found: DownFound,
  options: { stateDir: string; gracePeriod?: number | undefined },
): Promise<DownOutcome> {
  const { runtime, recorder } = deps;
  const started = Date.now();
  const pod = found.pods.get(keyOf(target));
  const podVolumes = found.volumes.get(keyOf(target)) ?? [];
  // Named by namespace and pod, so that a pod given by name, or already gone, finds it too.
  const podDir = podDirectory(options.stateDir, runtime.name, target);
  const hasPodDir = (await stat(podDir).catch(() => undefined)) !== undefined;
  // A podman pod a killed `up` left without its infra container: no container carries its labels.
  const halfMade = !pod?.infra && (await removeHalfMadeSandbox(runtime, target));
  if (!pod && podVolumes.length === 0 && !hasPodDir && !halfMade)
    return { status: "NotFound", target, durationMs: Date.now() - started };
  const record: PodRecord = pod ?? {
    name: target.name,
    namespace: target.namespace,
    uid: podVolumes[0]?.labels[LABEL_POD_UID] ?? "",
    initContainers: [],
    appContainers: [],
  };
  const result = await stopPod(
    { runtime, recorder },
    {
      pod: record,
      volumes: podVolumes,
      podDir: hasPodDir ? podDir : undefined,
      manifest: target.manifest,
      gracePeriodOverride: options.gracePeriod,
    },
  );
  const first = result.failures[0];
  if (first)
    recorder.event(
      toInvolvedObject(record),
      "Warning",
      "FailedKillPod",
      `error killing pod: ${first.object}: ${first.message}`,
    );
  return { status: first ? "Failed" : "Deleted", target, durationMs: Date.now() - started, result };
}

/** The pods (one listing) and the podrun volumes (one listing), volumes grouped by pod. */
async function findEverything(
  runtime: ContainerRuntime,
  namespace: string | undefined,
): Promise<{ pods: PodRecord[]; volumes: Map<string, VolumeInfo[]> }> {
  const volumeLabels: Record<string, string> = {
    [LABEL_MANAGED]: "true",
    ...(namespace !== undefined ? { [LABEL_POD_NAMESPACE]: namespace } : {}),
  };
  const [pods, volumeList] = await Promise.all([
    findPods(runtime, namespace !== undefined ? { namespace } : {}),
    runtime.listVolumes(volumeLabels),
  ]);
  const volumes = new Map<string, VolumeInfo[]>();
  for (const volume of volumeList) {
    const name = volume.labels[LABEL_POD_NAME];
    const podNamespace = volume.labels[LABEL_POD_NAMESPACE];
    if (!name || !podNamespace) continue;
    const key = keyOf({ name, namespace: podNamespace });
    volumes.set(key, [...(volumes.get(key) ?? []), volume]);
  }
  return { pods, volumes };
}

function fromKey(key: string): DownTarget {
  const slash = key.indexOf("/");
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
