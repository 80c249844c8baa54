import { stat } from "node:fs/promises";
import { readStopLabels } from "../pod/spec/stop-labels.js";
import { reachPods } from "../apply/reach-pods.js";
import { resolveProxyImage } from "../services/proxy-config.js";
import { ExitCode, ExitError, UsageError } from "../errors.js";
import { createConsoleSink } from "../output/console-sink.js";
import { openEventLog } from "../events/event-log.js";
import { createRecorder } from "../events/recorder.js";
import { loadManifests } from "../kinds/read-manifests.js";
import { parseImageOverrides, type ImageOverride } from "../manifest/image-overrides.js";
import { planObjects } from "../apply/plan-objects.js";
import {
  bringAllDown,
  findDownTargets,
  keyOf,
  removeJobRecords,
  removeServicesAndNetwork,
  type DownFound,
  type DownOutcome,
  type DownRequest,
  type DownTarget,
} from "../apply/down.js";
import type { WorkloadToDown } from "../apply/down-workloads.js";
import { findDns1123LabelErrors, findObjectNameErrors } from "../manifest/rules/names.js";
import { configureColor } from "../output/color.js";
import { parseLabelSelector } from "../manifest/label-selector.js";
import { formatDownOutcome, formatWorkloadGone } from "../output/down-lines.js";
import { formatServiceRemoved } from "../output/service-lines.js";
import { kubeContainerName } from "../pod/status/find-pods.js";
import { identifyPod } from "../pod/identity.js";
import { removeClaimsOf, type Claim } from "./down-claims.js";
import type { ServiceToRemove } from "../services/remove-services.js";
import { readResourceArgument } from "./down-workloads.js";
import { isWorkloadRef } from "../kinds/workload-ref.js";
import { createRuntime, type RuntimeFactory } from "../runtime/cli-runtime.js";
import { chooseRuntime } from "../runtime/choose-runtime.js";
import { resolveRequestTimeout } from "../runtime/request-timeout.js";
import type { RuntimeName } from "../runtime/detect.js";
import { resolveStateDir } from "../state/paths.js";

// `podrun down FILE|POD... | --all`: the pods are read back from the engine by label (never from
// a cache), so `down` removes what is there, and a pod that is not there is "not found", exit 0:
// running it twice, or after a failed `up`, is fine. This file reads the arguments into a request;
// apply/down.ts runs it and output/down-lines.ts words each outcome.

export interface DownOptions {
  /** The engine to talk to; a fake in engine-free tests. Default: the container CLI. */
  createRuntime?: RuntimeFactory;
  /** Manifest files and directories (`-` for standard input) and pod names, in any mix. */
  targets: string[];
  /** Manifest files, directories or `-` given with -f: never pod names. */
  filenames?: string[];
  /** Read the subdirectories of the directories given (-R). */
  recursive?: boolean;
  /** `-k DIR`: the pods of the kustomization of DIR (lib/manifest/kustomize.ts). */
  kustomize?: string;
  all: boolean;
  /** `-l`: the pods whose labels match this selector (kubectl's grammar), in the namespace of -n. */
  selector?: string;
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
  /** `--image NAME=REF`, as given to `up`: a workload's pod names hash its template, images included. */
  images?: readonly string[];
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream;
}

export type { DownResult } from "../output/down-lines.js";

export async function down(options: DownOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr } = options;
  const color = configureColor(env);
  checkDownArguments(options);
  // Every argument is checked before any container is touched: a typo is exit 2 with nothing done.
  const { targets, claims, workloads, jobs, services } = await readDownArguments(options, env);

  const requestTimeoutMs = resolveRequestTimeout(options.runtimeRequestTimeout, env);
  const runtime = (options.createRuntime ?? createRuntime)(await chooseRuntime(options.runtime, env), {
    requestTimeoutMs,
  });
  const stateDir = options.stateDir ?? resolveStateDir(env);
  const request: DownRequest = { all: options.all, namespace: options.namespace, targets, workloads, jobs, stateDir };
  request.selector = options.selector === undefined ? undefined : parseLabelSelector(options.selector);
  const found = await findDownTargets(runtime, request);
  if (request.selector && found.wanted.length === 0 && targets.length === 0 && workloads.length === 0) {
    if (!options.json) stderr.write(`No resources found in ${options.namespace ?? "default"} namespace.\n`);
    return;
  }
  for (const gone of found.gone) stdout.write(`${formatWorkloadGone(gone, { json: options.json })}\n`);
  // httpGet preStop hooks are run here: where this host cannot reach the pods, through the engine (reach-pods.ts).
  const httpPreStop = [...found.pods.values()].some((pod) =>
    pod.appContainers.some((container) => readStopLabels(container.labels).preStop?.httpGet),
  );
  if (options.gracePeriod !== 0 && httpPreStop) await reachPods(runtime, undefined, resolveProxyImage(undefined, env));
  await removeJobRecords(runtime.name, request);
  // After the pods: the Services of the files (or all, with --all); then the endpoints of the
  // Services that stay, and (--all) the cluster network once nothing is on it.
  const downServices = async () => {
    const request = { services, all: options.all, namespace: options.namespace, stateDir };
    const removed = await removeServicesAndNetwork(runtime, request);
    for (const service of removed) if (!options.json) stdout.write(`${formatServiceRemoved(service)}\n`);
    return removed.length;
  };
  if (options.all && found.wanted.length === 0 && !options.volumes) {
    if ((await downServices()) > 0 || options.json) return;
    stdout.write(`no podrun pods${options.namespace ? ` in namespace ${options.namespace}` : ""} (${runtime.name})\n`);
    return;
  }

  const log = await openEventLog(stateDir);
  const recorder = createRecorder({
    sinks: options.json ? [] : [createConsoleSink({ stream: stdout, env, objects: objectLabelsOf(found) })],
    log,
  });
  const report = (outcome: DownOutcome) => {
    const lines = formatDownOutcome(outcome, { color, json: options.json });
    for (const line of lines.stderr) stderr.write(`${line}\n`);
    for (const line of lines.stdout) stdout.write(`${line}\n`);
  };
  let failed = false;
  try {
    if (!(await bringAllDown({ runtime, recorder }, found, { stateDir, gracePeriod: options.gracePeriod, report })))
      failed = true;
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
    await downServices();
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

/** The pods, workloads, Jobs, Services and claims the arguments name (none with --all). */
async function readDownArguments(options: DownOptions, env: NodeJS.ProcessEnv) {
  const claims: Claim[] = [];
  const workloads: WorkloadToDown[] = [];
  const jobs: { name: string; namespace: string }[] = [];
  const services: ServiceToRemove[] = [];
  const targets = options.all
    ? []
    : await resolveTargets({
        args: options.targets,
        filenames: options.filenames ?? [],
        recursive: options.recursive === true,
        kustomize: options.kustomize,
        images: parseImageOverrides(options.images ?? [], env["PODRUN_IMAGES"]),
        namespace: options.namespace,
        claims: options.volumes ? claims : undefined,
        jobs,
        workloads,
        services,
      });
  return { targets, claims, workloads, jobs, services };
}

function checkDownArguments(options: DownOptions): void {
  if (options.namespace !== undefined) {
    const problems = findDns1123LabelErrors(options.namespace);
    if (problems.length > 0) throw new UsageError(`invalid namespace "${options.namespace}": ${problems[0]}`);
  }
  const given = options.targets.length + (options.filenames ?? []).length + (options.kustomize !== undefined ? 1 : 0);
  if (options.all && given > 0) throw new UsageError("--all takes no FILE or POD argument: give one or the other");
  if (options.selector !== undefined) {
    if (options.all) throw new UsageError("cannot set --all and --selector at the same time");
    if (given > 0) throw new UsageError("name cannot be provided when a selector is specified");
    parseLabelSelector(options.selector);
    return;
  }
  if (!options.all && given === 0)
    throw new UsageError("nothing to bring down: give a manifest FILE or DIR, a POD name, -l SELECTOR, or --all");
}

/** Every object label known up front keeps the event columns aligned from the first line. */
function objectLabelsOf(found: DownFound): string[] {
  return found.wanted.flatMap((t) => {
    const pod = found.pods.get(keyOf(t));
    return [
      `pod/${t.name}`,
      ...(pod
        ? [...pod.initContainers, ...pod.appContainers].map((c) => `pod/${t.name}[${kubeContainerName(c)}]`)
        : []),
    ];
  });
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
  kustomize?: string | undefined;
  images: readonly ImageOverride[];
  namespace: string | undefined;
  claims?: Claim[];
  jobs?: { name: string; namespace: string }[];
  workloads: WorkloadToDown[];
  services: ServiceToRemove[];
}): Promise<DownTarget[]> {
  const { namespace } = input;
  const targets = new Map<string, DownTarget>();
  const manifestPaths: string[] = [];
  const names: DownTarget[] = [];
  for (const arg of input.args) {
    const ref = await readResourceArgument(arg);
    if (ref && isWorkloadRef(ref)) input.workloads.push({ ref, namespace: namespace ?? "default" });
    if (ref?.kind === "Job") input.jobs?.push({ name: ref.name, namespace: namespace ?? "default" });
    if (ref?.kind === "Service") {
      input.services.push({ name: ref.name, namespace: namespace ?? "default" });
      continue;
    }
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
    // Not on disk: a pod name only.
    const isDirectory = (await stat(arg).catch(() => undefined))?.isDirectory() === true;
    names.push({ name: arg, namespace: namespace ?? "default", alsoDirectory: isDirectory });
  }
  manifestPaths.push(...input.filenames);
  if (manifestPaths.length > 0 || input.kustomize !== undefined)
    await addManifestTargets(manifestPaths, input, targets);
  for (const target of names) if (!targets.has(keyOf(target))) targets.set(keyOf(target), target);
  return [...targets.values()];
}

/** What the manifests given hold: their pods as targets, their workloads, Jobs, Services and claims. */
async function addManifestTargets(
  paths: readonly string[],
  input: Parameters<typeof resolveTargets>[0],
  targets: Map<string, DownTarget>,
): Promise<void> {
  const { namespace } = input;
  const manifest = await loadManifests(paths, {
    recursive: input.recursive,
    kustomize: input.kustomize,
    checkReferences: false,
    // `down` needs the names; an image name a kubelet would refuse does not stop a cleanup.
    kubeletChecks: "warn",
    images: input.images,
  });
  const plan = planObjects(manifest.items);
  for (const claim of manifest.persistentVolumeClaims ?? [])
    input.claims?.push({ name: claim.metadata!.name!, namespace: claim.metadata!.namespace || "default" });
  for (const { workload } of plan.jobs) input.jobs?.push({ name: workload.name, namespace: workload.namespace });
  for (const { service } of plan.services)
    input.services.push({ name: service.metadata!.name!, namespace: service.metadata!.namespace || "default" });
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
  if (
    plan.pods.length === 0 &&
    (input.claims ?? []).length === 0 &&
    plan.owners.length === 0 &&
    plan.services.length === 0
  ) {
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

async function isManifestArgument(arg: string): Promise<boolean> {
  if (arg === "-") return true;
  // Not on disk: judged by its spelling alone.
  const info = await stat(arg).catch(() => undefined);
  if (info) return !info.isDirectory() || arg.includes("/");
  return arg.includes("/") || /\.(?:ya?ml|json)$/i.test(arg);
}
