import { stat } from "node:fs/promises";
import type { Pod } from "kubernetes-types/core/v1.js";
import { ExitCode, ExitError, UsageError } from "../errors.js";
import { createConsoleSink } from "../output/console-sink.js";
import { openEventLog } from "../events/event-log.js";
import type { ChalkInstance } from "chalk";
import { createRecorder, type EventRecorder } from "../events/recorder.js";
import { toInvolvedObject } from "../events/types.js";
import { loadManifests } from "../kinds/read-manifests.js";
import { planObjects } from "../apply/plan-objects.js";
import { findDns1123LabelErrors, findObjectNameErrors } from "../manifest/rules/names.js";
import { configureColor } from "../output/color.js";
import { findPods, kubeContainerName, type PodRecord } from "../pod/status/find-pods.js";
import { identifyPod } from "../pod/identity.js";
import { listPodDirectories, podDirectory } from "../pod/volumes/pod-dir.js";
import { stopPod, type StopPodResult } from "../pod/stop/stop-pod.js";
import { removeHalfMadeSandbox } from "../pod/stop/half-made-sandbox.js";
import { removeClaimsOf, type Claim } from "./down-claims.js";
import {
  findWorkloadPods,
  formatWorkloadNotFound,
  readResourceArgument,
  type WorkloadToDown,
} from "./down-workloads.js";
import { isWorkloadRef } from "../pod/status/workload-ref.js";
import { createRuntime, type RuntimeFactory } from "../runtime/cli-runtime.js";
import { chooseRuntime } from "../runtime/choose-runtime.js";
import { resolveRequestTimeout } from "../runtime/request-timeout.js";
import type { RuntimeName } from "../runtime/detect.js";
import {
  LABEL_MANAGED,
  LABEL_POD_NAME,
  LABEL_POD_NAMESPACE,
  LABEL_POD_UID,
  type ContainerRuntime,
  type VolumeInfo,
} from "../runtime/types.js";
import { resolveStateDir } from "../state/paths.js";
import { listJobRecords, removeJobRecord } from "../workloads/job-state.js";
import { plural } from "../text/plural.js";
import { formatErrorLine } from "../output/error-line.js";

// `podrun down FILE|POD... | --all`: the pods are read back from the engine by label (never from
// a cache), so `down` removes what is there, and a pod that is not there is "not found", exit 0:
// running it twice, or after a failed `up`, is fine. Pods go down concurrently, as a node kills
// them; stop-pod.ts does one pod.

export interface DownOptions {
  /** The engine to talk to; a fake in engine-free tests. Default: the container CLI. */
  createRuntime?: RuntimeFactory;
  /** Manifest files and directories (`-` for standard input) and pod names, in any mix. */
  targets: string[];
  /** Manifest files, directories or `-` given with -f: never pod names. */
  filenames?: string[];
  /** Read the subdirectories of the directories given (-R). */
  recursive?: boolean;
  all: boolean;
  /** Also remove the engine volumes of the PersistentVolumeClaims of the manifests given (of every claim with --all). */
  volumes?: boolean;
  /** Namespace of the pods named (default "default"); with --all, only that namespace. */
  namespace?: string;
  /** Replaces every pod's terminationGracePeriodSeconds. */
  gracePeriod?: number;
  runtime?: RuntimeName;
  /** `--runtime-request-timeout`: each engine command's deadline (default $PODRUN_RUNTIME_REQUEST_TIMEOUT, else 2m). */
  runtimeRequestTimeout?: string;
  json: boolean;
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream;
}

/** A pod to bring down: its name, and its manifest when it came from a file. */
interface Target {
  name: string;
  namespace: string;
  manifest?: Pod;
  /** A bare name taken as a pod's that is also a directory here: said when no such pod exists. */
  alsoDirectory?: boolean;
}

/** One line of `--json` output per pod. */
export interface DownResult {
  pod: string;
  namespace: string;
  status: "Deleted" | "NotFound" | "Failed";
  containers: number;
  volumes: number;
  durationSeconds: number;
  failures: StopPodResult["failures"];
  hookFailures: StopPodResult["hookFailures"];
}

export async function down(options: DownOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr } = options;
  const color = configureColor(env);
  if (options.namespace !== undefined) {
    const problems = findDns1123LabelErrors(options.namespace);
    if (problems.length > 0) throw new UsageError(`invalid namespace "${options.namespace}": ${problems[0]}`);
  }
  const filenames = options.filenames ?? [];
  const given = options.targets.length + filenames.length;
  if (options.all && given > 0) throw new UsageError("--all takes no FILE or POD argument: give one or the other");
  if (!options.all && given === 0)
    throw new UsageError("nothing to bring down: give a manifest FILE or DIR, a POD name, or --all");
  // Every argument is checked before any container is touched: a typo is exit 2 with nothing done.
  const claims: Claim[] = [];
  const workloads: WorkloadToDown[] = [];
  const jobs: { name: string; namespace: string }[] = [];
  const targets = options.all
    ? []
    : await resolveTargets({
        args: options.targets,
        filenames,
        recursive: options.recursive === true,
        namespace: options.namespace,
        claims: options.volumes ? claims : undefined,
        jobs,
        workloads,
      });

  const requestTimeoutMs = resolveRequestTimeout(options.runtimeRequestTimeout, env);
  const runtime = (options.createRuntime ?? createRuntime)(await chooseRuntime(options.runtime, env), {
    requestTimeoutMs,
  });
  const { pods, volumes } = await findEverything(runtime, options);
  const stateDir = options.stateDir ?? resolveStateDir(env);
  const wanted: Target[] = options.all ? pods.map((p) => ({ name: p.name, namespace: p.namespace })) : targets;
  // A workload's pods, by its owner label (down-workloads.ts); one with none (a Job: nor a record) is "not found", exit 0 as for a pod.
  const ofWorkloads = await findWorkloadPods(
    workloads,
    pods,
    async (pod) =>
      volumes.has(keyOf(pod)) ||
      (await stat(podDirectory(stateDir, runtime.name, pod)).catch(() => undefined)) !== undefined,
  );
  for (const target of ofWorkloads.targets) if (!wanted.some((t) => keyOf(t) === keyOf(target))) wanted.push(target);
  const jobRecords = ofWorkloads.notFound.some((w) => w.ref.kind === "Job")
    ? await listJobRecords(stateDir, runtime.name)
    : [];
  for (const workload of ofWorkloads.notFound) {
    // A Job whose pods its controller deleted (activeDeadlineSeconds) is still there as its record: removed below.
    const recorded =
      workload.ref.kind === "Job" &&
      jobRecords.some((r) => r.name === workload.ref.name && r.namespace === workload.namespace);
    const line = recorded
      ? formatWorkloadNotFound(workload).replace(/ not found$/, " deleted (no pod left)")
      : formatWorkloadNotFound(workload);
    stdout.write(
      options.json
        ? `${JSON.stringify({ workload: `${workload.ref.kind}/${workload.ref.name}`, namespace: workload.namespace, status: recorded ? "Deleted" : "NotFound" })}\n`
        : `${line}\n`,
    );
  }
  // A Job's pods are found above by their owner, as any workload's; its record goes with them.
  if (options.all)
    jobs.push(
      ...(await listJobRecords(stateDir, runtime.name)).filter(
        (r) => options.namespace === undefined || r.namespace === options.namespace,
      ),
    );
  for (const job of jobs) await removeJobRecord(stateDir, runtime.name, job);
  // --all also finds a pod of which only volumes, or only its directory, are left (a run that was killed).
  if (options.all) {
    const leftDirs = (await listPodDirectories(stateDir, runtime.name)).filter(
      (p) => options.namespace === undefined || p.namespace === options.namespace,
    );
    for (const key of [...volumes.keys(), ...leftDirs.map(keyOf)])
      if (!wanted.some((t) => keyOf(t) === key)) wanted.push(fromKey(key));
  }
  if (options.all && wanted.length === 0 && !options.volumes) {
    if (options.json) return;
    stdout.write(`no podrun pods${options.namespace ? ` in namespace ${options.namespace}` : ""} (${runtime.name})\n`);
    return;
  }

  const found = new Map(pods.map((p) => [keyOf(p), p]));
  const objects = wanted.flatMap((t) => {
    const pod = found.get(keyOf(t));
    return [
      `pod/${t.name}`,
      ...(pod
        ? [...pod.initContainers, ...pod.appContainers].map((c) => `pod/${t.name}[${kubeContainerName(c)}]`)
        : []),
    ];
  });
  const log = await openEventLog(stateDir);
  const recorder = createRecorder({
    sinks: options.json ? [] : [createConsoleSink({ stream: stdout, env, objects })],
    log,
  });

  let failed = false;
  try {
    await Promise.all(
      wanted.map(async (target) => {
        if (!(await bringDown(target, { runtime, recorder, stateDir, found, volumes, options, stdout, stderr, color })))
          failed = true;
      }),
    );
    // After the pods: a claim's volume is in use until the last pod mounting it is gone.
    if (
      options.volumes &&
      !(await removeClaimsOf(runtime, {
        claims,
        all: options.all,
        namespace: options.namespace,
        json: options.json,
        stdout,
        stderr,
        color,
      }))
    )
      failed = true;
  } finally {
    await recorder
      .flush()
      .catch((error: unknown) =>
        stderr.write(`${color.yellow(`Warning: event log not written: ${(error as Error).message}`)}\n`),
      );
    await log.close();
  }
  if (failed) throw new ExitError(ExitCode.Failed);
}

/** What bringing one pod down reads. */
interface DownContext {
  runtime: ContainerRuntime;
  recorder: EventRecorder;
  stateDir: string;
  found: ReadonlyMap<string, PodRecord>;
  volumes: ReadonlyMap<string, VolumeInfo[]>;
  options: DownOptions;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  color: ChalkInstance;
}

/** Stops and removes one pod (stop-pod.ts) and reports it; false when something could not be removed. */
async function bringDown(target: Target, io: DownContext): Promise<boolean> {
  const { runtime, recorder, stateDir, found, volumes, options, stderr, color } = io;
  const started = Date.now();
  const pod = found.get(keyOf(target));
  const podVolumes = volumes.get(keyOf(target)) ?? [];
  const label = formatPodLabel(target);
  // Named by namespace and pod, so that a pod given by name, or already gone, finds it too.
  const podDir = podDirectory(stateDir, runtime.name, target);
  const hasPodDir = (await stat(podDir).catch(() => undefined)) !== undefined;
  // A podman pod a killed `up` left without its infra container: no container carries its labels.
  const halfMade = !pod?.infra && (await removeHalfMadeSandbox(runtime, target));
  if (!pod && podVolumes.length === 0 && !hasPodDir && !halfMade) {
    const hint = target.alsoDirectory
      ? ` (${target.name} is also a directory here: podrun down ./${target.name} brings down its manifests' pods)`
      : "";
    report(io, { target, status: "NotFound", started }, `${label} not found${hint}`);
    return true;
  }
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
  for (const hook of result.hookFailures)
    stderr.write(
      `${color.yellow(`Warning: ${label}: container ${hook.container}: preStop hook failed: ${hook.message}`)}\n`,
    );
  if (result.failures.length > 0) {
    const first = result.failures[0]!;
    recorder.event(
      toInvolvedObject(record),
      "Warning",
      "FailedKillPod",
      `error killing pod: ${first.object}: ${first.message}`,
    );
    for (const failure of result.failures) {
      const what =
        failure.object === "sandbox" || failure.object === "pod directory" || failure.object.startsWith("volume ")
          ? failure.object
          : `container ${failure.object}`;
      stderr.write(
        `${color.red(formatErrorLine({ reason: "FailedKillPod", message: `${what}: could not ${failure.step} it: ${failure.message}` }, label))}\n`,
      );
    }
  }
  const status = result.failures.length > 0 ? "Failed" : "Deleted";
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const counts = `${plural(result.containers, "container")}, ${plural(result.volumes, "volume")}, ${seconds}s`;
  report(
    io,
    { target, status, started, result },
    status === "Deleted"
      ? color.green(`${label} deleted (${counts})`)
      : `${label} not fully deleted (${counts} removed)`,
  );
  return result.failures.length === 0;
}

function report(
  io: Pick<DownContext, "options" | "stdout" | "stderr">,
  entry: { target: Target; status: DownResult["status"]; started: number; result?: StopPodResult },
  line: string,
): void {
  if (!io.options.json) {
    (entry.status === "Failed" ? io.stderr : io.stdout).write(`${line}\n`);
    return;
  }
  const result: DownResult = {
    pod: entry.target.name,
    namespace: entry.target.namespace,
    status: entry.status,
    containers: entry.result?.containers ?? 0,
    volumes: entry.result?.volumes ?? 0,
    durationSeconds: Math.round((Date.now() - entry.started) / 100) / 10,
    failures: entry.result?.failures ?? [],
    hookFailures: entry.result?.hookFailures ?? [],
  };
  io.stdout.write(`${JSON.stringify(result)}\n`);
}

/**
 * Each argument is a manifest when it is `-`, an existing file, or looks like a path (a `/`, or a
 * .yaml/.yml/.json name: loading it then says "no such file", exit 2); else a pod name. So a
 * directory is read when written as a path (`k8s/`, `./k8s`) or given with -f; a bare name is a
 * pod's, as `podrun down web` must stay a pod name in a project with a web/ folder. The manifests
 * are read as one set, without resolving references: a pod goes down without its ConfigMaps.
 */
async function resolveTargets(input: {
  args: readonly string[];
  filenames: readonly string[];
  recursive: boolean;
  namespace: string | undefined;
  claims?: Claim[];
  jobs?: { name: string; namespace: string }[];
  workloads: WorkloadToDown[];
}): Promise<Target[]> {
  const { namespace } = input;
  const targets = new Map<string, Target>();
  const manifestPaths: string[] = [];
  const names: Target[] = [];
  for (const arg of input.args) {
    const ref = await readResourceArgument(arg);
    if (ref && isWorkloadRef(ref)) input.workloads.push({ ref, namespace: namespace ?? "default" });
    if (ref?.kind === "Job") input.jobs?.push({ name: ref.name, namespace: namespace ?? "default" });
    if (ref) {
      if (!isWorkloadRef(ref)) names.push({ name: ref.name, namespace: namespace ?? "default" });
      continue;
    }
    if (await isManifestArgument(arg)) {
      manifestPaths.push(arg);
      continue;
    }
    const problems = findObjectNameErrors(arg);
    if (problems.length > 0)
      throw new UsageError(`"${arg}" is neither a manifest file nor a valid pod name: ${problems[0]}`);
    const isDirectory = (await stat(arg).catch(() => undefined))?.isDirectory() === true;
    names.push({ name: arg, namespace: namespace ?? "default", alsoDirectory: isDirectory });
  }
  manifestPaths.push(...input.filenames);
  if (manifestPaths.length > 0) {
    const manifest = await loadManifests(manifestPaths, { recursive: input.recursive, checkReferences: false });
    const plan = planObjects(manifest.items);
    for (const claim of manifest.persistentVolumeClaims ?? [])
      input.claims?.push({ name: claim.metadata!.name!, namespace: claim.metadata!.namespace || "default" });
    for (const { workload } of plan.jobs) input.jobs?.push({ name: workload.name, namespace: workload.namespace });
    for (const owner of plan.owners) {
      if (namespace !== undefined && namespace !== owner.namespace) {
        throw new UsageError(
          `${manifest.source}: ${owner.kind} ${owner.name} is in namespace "${owner.namespace}", which does not match -n ${namespace}`,
        );
      }
      input.workloads.push({
        ref: { kind: owner.kind, name: owner.name },
        namespace: owner.namespace,
        pods: owner.pods,
      });
    }
    if (plan.pods.length === 0 && (input.claims ?? []).length === 0 && plan.owners.length === 0) {
      const what = manifest.sources.length === 1 ? "this file" : "these files";
      throw new UsageError(`${manifest.source}: no Pod in ${what} (only ConfigMaps or Secrets)`);
    }
    for (const { pod, source } of plan.pods) {
      const { name, namespace: podNamespace } = identifyPod(pod);
      // As kubectl: -n does not move a manifest's pod to another namespace.
      if (namespace !== undefined && namespace !== podNamespace) {
        throw new UsageError(
          `${source}: pod ${name} is in namespace "${podNamespace}", which does not match -n ${namespace}`,
        );
      }
      targets.set(`${podNamespace}/${name}`, { name, namespace: podNamespace, manifest: pod });
    }
  }
  for (const target of names) if (!targets.has(keyOf(target))) targets.set(keyOf(target), target);
  return [...targets.values()];
}

async function isManifestArgument(arg: string): Promise<boolean> {
  if (arg === "-") return true;
  const info = await stat(arg).catch(() => undefined);
  if (info) return !info.isDirectory() || arg.includes("/");
  return arg.includes("/") || /\.(?:ya?ml|json)$/i.test(arg);
}

/** The pods (one listing) and the podrun volumes (one listing), volumes grouped by pod. */
async function findEverything(
  runtime: ContainerRuntime,
  options: DownOptions,
): Promise<{ pods: PodRecord[]; volumes: Map<string, VolumeInfo[]> }> {
  const volumeLabels: Record<string, string> = {
    [LABEL_MANAGED]: "true",
    ...(options.namespace !== undefined ? { [LABEL_POD_NAMESPACE]: options.namespace } : {}),
  };
  const [pods, volumeList] = await Promise.all([
    findPods(runtime, options.namespace !== undefined ? { namespace: options.namespace } : {}),
    runtime.listVolumes(volumeLabels),
  ]);
  const volumes = new Map<string, VolumeInfo[]>();
  for (const volume of volumeList) {
    const name = volume.labels[LABEL_POD_NAME];
    const namespace = volume.labels[LABEL_POD_NAMESPACE];
    if (!name || !namespace) continue;
    const key = keyOf({ name, namespace });
    volumes.set(key, [...(volumes.get(key) ?? []), volume]);
  }
  return { pods, volumes };
}

const keyOf = (pod: { name: string; namespace: string }) => `${pod.namespace}/${pod.name}`;

function fromKey(key: string): Target {
  const slash = key.indexOf("/");
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

function formatPodLabel(target: Target): string {
  return target.namespace === "default" ? `pod/${target.name}` : `pod/${target.name} (namespace ${target.namespace})`;
}
