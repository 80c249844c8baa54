import { EngineError, PodrunError } from "../errors.js";
import { toInvolvedObject } from "../events/types.js";
import { identifyPod } from "../pod/identity.js";
import { runPod, type PodOutcome, type PodProgress, type RunPodDeps } from "../pod/run-pod.js";
import { findUnschedulable, NO_FREE_PORTS_MESSAGE, type HostPort } from "../workloads/host-ports.js";
import { runJobs, type JobOutcome, type RunJobsOptions } from "../workloads/run-jobs.js";
import { ensureClusterNetwork, needsClusterNetwork } from "../pod/cluster-network.js";
import { applyServices, serviceAddressesOf, type ServiceOutcome } from "../services/apply-services.js";
import { syncServiceEndpoints } from "../services/endpoint-sync.js";
import { hasProxy } from "../services/service-proxy.js";
import { proxyFilesOf, waitForProxies, type ProxyFiles } from "../services/proxy-applied.js";
import { serviceEnvVars } from "../services/service-env.js";
import type { ObjectPlan, PodRun } from "./plan-objects.js";
import { removeStaleWorkloadPods, type StalePodOutcome } from "./stale-workload-pods.js";

// The run of `podrun up`, once the command has read its flags and opened its output: (1) the
// pods the workloads' specs no longer name are removed, (2) each pod of the plan is brought up
// (pod/run-pod.ts) one after the other, or left Pending when an earlier pod has its host port,
// (3) the run waits until the Services' proxies it wrote to relay by what it wrote, (4) the Jobs
// are handed to the Job controller (workloads/run-jobs.ts). Each step is told as it
// ends (an UpStep, worded by output/pod-outcome.ts, output/job-outcome.ts and output/up-lines.ts); the run returns how
// it ended. Ctrl-C has one path: the signal's AbortError, the pod's 'interrupted' outcome, then
// this run's 'interrupted' result (exit 130 in the command).

/** How long `up --wait` waits for readiness unless --timeout says otherwise. */
export const DEFAULT_WAIT_TIMEOUT_MS = 5 * 60_000;

/** What the run tells as it goes, in order. */
export type UpStep =
  /** Step 1: a workload pod its spec no longer names, removed (or not fully). */
  | { kind: "stale"; outcome: StalePodOutcome }
  /** Step 2: a pod of the plan about to be brought up (or found unschedulable). */
  | { kind: "begin"; run: PodRun }
  /** Step 2: an earlier pod of the set has this pod's host port: it stays Pending (FailedScheduling). */
  | { kind: "unschedulable"; run: PodRun; port: HostPort }
  /** Step 2: how the pod went; `last` when it is the plan's last pod. */
  | { kind: "pod"; run: PodRun; outcome: PodOutcome; last: boolean }
  /** Step 4: a step of a Job's run (worded by output/job-outcome.ts). */
  | { kind: "job"; outcome: JobOutcome }
  /** Step 2, first: a Service made or kept (worded by output/service-lines.ts). */
  | { kind: "service"; outcome: ServiceOutcome };

/** How the run ended. */
export type UpResult =
  /** Every step ran; `failed` names the pods and Jobs that did not come up (the summary line). */
  | { status: "done"; failed: string[] }
  /** One pod alone, or the Jobs alone, failed: already told by their outcome, no summary (exit 1). */
  | { status: "failed" }
  /** Ctrl-C: `done` are the pods already up, left running. */
  | { status: "interrupted"; done: { name: string; source: string }[] };

export interface UpRunOptions {
  plan: ObjectPlan;
  /** How the run's Services are made: their proxy image, and where their node ports are published. */
  services: { image: string; address: string };
  /** What every pod, bare or a Job's, is run with. */
  podOptions: RunJobsOptions["podOptions"];
  replace: boolean;
  keepOnFailure: boolean;
  /** `--wait`: `timeoutMs` only when --timeout was given. */
  wait?: { timeoutMs?: number | undefined; rmOnInterrupt: boolean } | undefined;
  report: (step: UpStep) => void;
  onProgress?: (run: PodRun, progress: PodProgress) => void;
}

/** What a run reads and writes while it goes. */
interface UpState {
  failed: string[];
  done: { name: string; source: string }[];
  /** The Service proxies the run made or wrote a config to: step 3 waits for them. */
  proxies: ProxyFiles[];
}

export async function applyUp(deps: RunPodDeps, options: UpRunOptions): Promise<UpResult> {
  const state: UpState = { failed: [], done: [], proxies: [] };
  if (!options.podOptions.dryRun) await removeStalePods(deps, options, state);
  const run = await makeServices(deps, await joinClusterNetwork(deps, options), state);
  const podsEnd = await runPods(deps, run, state);
  if (podsEnd) return podsEnd;
  // Step 3: once, after the last endpoint sync (a proxy polls its file: docs/services.md).
  if (state.proxies.length > 0) await waitForProxies(deps, state.proxies, { signal: options.podOptions.signal });
  if (options.podOptions.signal?.aborted) return { status: "interrupted", done: state.done };
  return runTheJobs(deps, run, state);
}

/** Step 2, first: the cluster network (lib/pod/cluster-network.ts), made before any pod or Service that joins it. */
async function joinClusterNetwork(deps: RunPodDeps, options: UpRunOptions): Promise<UpRunOptions> {
  const pods = [...options.plan.runs.map((run) => run.pod), ...options.plan.jobs.flatMap((job) => job.workload.pods)];
  if (!needsClusterNetwork(pods) && options.plan.services.length === 0) return options;
  const cluster = await ensureClusterNetwork(deps.runtime);
  return { ...options, podOptions: { ...options.podOptions, cluster } };
}

/**
 * Step 2, next: the Services (lib/services/apply-services.ts), before the pods: a pod starts with
 * the Service variables of its namespace, and a headless Service's pods are named by it.
 */
async function makeServices(deps: RunPodDeps, options: UpRunOptions, state: UpState): Promise<UpRunOptions> {
  const { cluster } = options.podOptions;
  if (options.plan.services.length === 0 || !cluster) return options;
  // Without the engine's DNS on the network no Service name resolves: said before anything is made.
  if (!cluster.dnsServer && !options.podOptions.dryRun)
    throw new PodrunError(
      "FailedServiceProxy",
      `${deps.runtime.name}'s network ${cluster.name} has no DNS, so Service names cannot resolve (podman: install netavark and aardvark-dns, or CNI's dnsname plugin; nerdctl has none: docs/services.md)`,
    );
  const outcomes = await applyServices(deps, {
    services: options.plan.services,
    cluster,
    image: options.services.image,
    address: options.services.address,
    stateDir: options.podOptions.stateDir,
    dryRun: options.podOptions.dryRun,
  });
  for (const outcome of outcomes) {
    options.report({ kind: "service", outcome });
    if (outcome.proxy) state.proxies.push(outcome.proxy);
  }
  const addresses = serviceAddressesOf(outcomes);
  const namespaces = new Set(options.plan.runs.map((run) => run.pod.metadata?.namespace ?? "default"));
  for (const job of options.plan.jobs) namespaces.add(job.workload.namespace);
  const serviceEnv = Object.fromEntries(
    [...namespaces].map((ns) => [
      ns,
      serviceEnvVars(addresses, ns).map((v) => ({ name: v.name, value: v.value ?? "" })),
    ]),
  );
  const headless = outcomes
    .filter((o) => o.action === "headless")
    .map(({ service }) => ({
      namespace: service.metadata?.namespace ?? "default",
      name: service.metadata?.name ?? "",
      selector: service.spec?.selector ?? {},
    }));
  return {
    ...options,
    podOptions: {
      ...options.podOptions,
      cluster: { ...cluster, headless },
      objects: { ...options.podOptions.objects, serviceEnv },
    },
  };
}

/** Step 1: the pods the workloads' specs no longer name (lib/workloads/stale-pods.ts): a template changed, fewer replicas. */
async function removeStalePods(deps: RunPodDeps, options: UpRunOptions, state: UpState): Promise<void> {
  const { stateDir } = options.podOptions;
  for (const owner of options.plan.controllers) {
    for (const outcome of await removeStaleWorkloadPods(deps, owner, { stateDir })) {
      options.report({ kind: "stale", outcome });
      if (outcome.failures.length > 0) state.failed.push(`pod/${outcome.name}`);
    }
  }
}

/** Step 2: the bare pods, then each workload's, in the plan's order; a result when the run ends here. */
async function runPods(deps: RunPodDeps, options: UpRunOptions, state: UpState): Promise<UpResult | undefined> {
  const { runs, jobs } = options.plan;
  const several = runs.length + jobs.length > 1;
  // The scheduler's verdict on one node: a pod whose host port an earlier pod has stays Pending.
  const unschedulable = findUnschedulable(runs.map((run) => run.pod));
  // The run's Services' proxies (other runs' get theirs at their next `up` or any `down`).
  const syncs = !options.podOptions.dryRun && options.plan.services.some(({ service }) => hasProxy(service));
  for (const run of runs) {
    const label = `pod/${run.pod.metadata!.name}`;
    // A Ctrl-C between two pods: the next one is not started.
    if (options.podOptions.signal?.aborted) return { status: "interrupted", done: state.done };
    options.report({ kind: "begin", run });
    const port = unschedulable.get(run.pod);
    if (port) {
      deps.recorder.event(toInvolvedObject(identifyPod(run.pod)), "Warning", "FailedScheduling", NO_FREE_PORTS_MESSAGE);
      options.report({ kind: "unschedulable", run, port });
      // With --wait the pod never becomes Ready: a failure. Without, it is left Pending, as a cluster leaves it.
      if (options.wait) state.failed.push(label);
      continue;
    }
    const outcome = await runOnePod(deps, options, run);
    // The Services' endpoints follow the pods: the next pod of the run may already call this one.
    if (syncs)
      for (const proxy of await syncServiceEndpoints(deps.runtime)) {
        const files = proxyFilesOf(proxy);
        if (files) state.proxies.push(files);
      }
    // One pod: an engine command that failed is reported as any command's (lib/cli.ts).
    if (outcome.status === "failed" && outcome.error instanceof EngineError && !several) throw outcome.error;
    options.report({ kind: "pod", run, outcome, last: run === runs.at(-1) });
    if (outcome.status === "interrupted") return { status: "interrupted", done: state.done };
    if (outcome.status !== "failed") state.done.push({ name: run.pod.metadata!.name!, source: run.source });
    else if (several) state.failed.push(label);
    else return { status: "failed" };
  }
  return undefined;
}

function runOnePod(deps: RunPodDeps, options: UpRunOptions, run: PodRun): Promise<PodOutcome> {
  const { wait } = options;
  return runPod(deps, {
    ...options.podOptions,
    pod: run.pod,
    source: run.source,
    replace: options.replace,
    keepOnFailure: options.keepOnFailure,
    wait: wait
      ? { timeoutMs: wait.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS, rmOnInterrupt: wait.rmOnInterrupt }
      : undefined,
    onProgress: (progress) => options.onProgress?.(run, progress),
  });
}

/** Step 4: the Jobs, after the pods, each run as the Job controller would (lib/workloads/run-jobs.ts). */
async function runTheJobs(deps: RunPodDeps, options: UpRunOptions, state: UpState): Promise<UpResult> {
  const jobRuns = await runJobs(deps, {
    jobs: options.plan.jobs,
    podOptions: options.podOptions,
    keepOnFailure: options.keepOnFailure,
    wait: options.wait,
    signal: options.podOptions.signal,
    report: (outcome) => options.report({ kind: "job", outcome }),
  });
  if (jobRuns.interrupted) return { status: "interrupted", done: state.done };
  if (jobRuns.failed.length > 0 && state.failed.length === 0) return { status: "failed" };
  return { status: "done", failed: [...state.failed, ...jobRuns.failed] };
}
