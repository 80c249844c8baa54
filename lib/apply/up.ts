import { EngineError, PodrunError } from "../errors.js";
import { reachPods } from "./reach-pods.js";
import { reachFiles } from "./reach-files.js";
import { toInvolvedObject } from "../events/types.js";
import { identifyPod } from "../pod/identity.js";
import { runPod, type PodOutcome, type PodProgress, type RunPodDeps } from "../pod/run-pod.js";
import { findUnschedulable, NO_FREE_PORTS_MESSAGE, type HostPort } from "../workloads/host-ports.js";
import { runJobs, type JobOutcome, type RunJobsOptions, type RunJobsResult } from "../workloads/run-jobs.js";
import { createSemaphore, type Semaphore } from "../process/semaphore.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { ensureClusterNetwork, needsClusterNetwork } from "../pod/cluster-network.js";
import { applyServices, serviceAddressesOf, type ServiceOutcome } from "../services/apply-services.js";
import { syncServiceEndpoints } from "../services/endpoint-sync.js";
import { hasProxy } from "../services/service-proxy.js";
import { proxyFilesOf, waitForProxies, type ProxyFiles } from "../services/proxy-applied.js";
import { serviceEnvVars } from "../services/service-env.js";
import { inSequence, type ObjectPlan, type PodRun } from "./plan-objects.js";
import { removeStaleWorkloadPods, type StalePodOutcome } from "./stale-workload-pods.js";

// The run of `podrun up`, once the command has read its flags and opened its output: (1) the
// pods the workloads' specs no longer name are removed, (2) every pod of the plan is brought up
// (pod/run-pod.ts) at once, MAX_PARALLEL_STARTS starting at a time, but a StatefulSet's next pod
// of OrderedReady, which waits for the one before it; a pod whose host port an earlier pod has is
// left Pending; (3) the run waits until the Services' proxies it wrote to relay by what it wrote;
// (4) beside steps 2 and 3, the Jobs are handed to the Job controller (workloads/run-jobs.ts). A
// dry run goes one pod after the other. With --wait every pod has the run's one deadline. Each
// step is told as it ends (an UpStep, worded by output/pod-outcome.ts, output/job-outcome.ts and
// output/up-lines.ts); the run returns how it ended. Ctrl-C has one path: the signal's
// AbortError, each pod's 'interrupted' outcome (a pod not yet begun is not started), then this
// run's 'interrupted' result (exit 130 in the command).

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
  /** Step 2: the pod it comes after (OrderedReady) did not come up, so it is not created. */
  | { kind: "held"; run: PodRun; after: PodRun }
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
  /** How many pods start at once (default MAX_PARALLEL_STARTS; a dry run's one at a time). */
  parallelStarts?: number | undefined;
  /**
   * `--wait`: `timeoutMs` only when --timeout was given; the run sets `endsAtMs`, the one
   * deadline of all its pods.
   */
  wait?: { timeoutMs?: number | undefined; endsAtMs?: number | undefined; rmOnInterrupt: boolean } | undefined;
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
  const { dryRun, signal } = options.podOptions;
  // Step 0: where this host cannot reach the pods, their probes and hooks go through the engine (reach-pods.ts).
  const probed = [...options.plan.runs.map((r) => r.pod), ...options.plan.jobs.flatMap((j) => j.workload.pods)];
  if (!dryRun) await reachPods(deps.runtime, probed, options.services.image);
  // …and where the engine does not see this host's files, the pods' files are copied to it (reach-files.ts).
  if (!dryRun) await reachFiles(deps.runtime, options.podOptions.stateDir, options.services.image);
  if (!dryRun) await removeStalePods(deps, options, state);
  // A dry run goes pod by pod, in one start slot: its commands are printed as each pod's would run.
  const planned = dryRun ? { ...options, plan: inSequence(options.plan) } : options;
  const services = await makeServices(deps, await joinClusterNetwork(deps, planned), state);
  const run = withOneDeadline(services, createSemaphore(dryRun ? 1 : (options.parallelStarts ?? MAX_PARALLEL_STARTS)));
  const pods = async (): Promise<UpResult | undefined> => {
    const podsEnd = await runPods(deps, run, state);
    // Step 3: once, after the last endpoint sync (a proxy polls its file: docs/services.md).
    if (!podsEnd && state.proxies.length > 0) await waitForProxies(deps, state.proxies, { signal });
    return podsEnd;
  };
  // Steps 2 and 4 together, as a cluster runs a Job's pods beside the others; both end before
  // anything is thrown on, so that nothing is left starting behind the error.
  const [podsEnd, jobsEnd] = dryRun
    ? [await pods(), await runTheJobs(deps, run)]
    : await bothSettled(pods(), runTheJobs(deps, run));
  if (podsEnd?.status === "interrupted" || jobsEnd.interrupted || signal?.aborted)
    return { status: "interrupted", done: state.done };
  // One pod alone, or the Jobs alone, that failed: already told by its outcome (no summary).
  if (podsEnd?.status === "failed" && jobsEnd.failed.length === 0) return { status: "failed" };
  if (jobsEnd.failed.length > 0 && state.failed.length === 0) return { status: "failed" };
  return { status: "done", failed: [...state.failed, ...jobsEnd.failed] };
}

/** Both answers once both have ended; the first thrown, if any, is thrown then. */
async function bothSettled<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [x, y] = await Promise.allSettled([a, b]);
  if (x.status === "rejected") throw x.reason;
  if (y.status === "rejected") throw y.reason;
  return [x.value, y.value];
}

/** `--wait`'s one deadline for every pod of the run, from now; and the run's start slots. */
function withOneDeadline(options: UpRunOptions, startSlots: Semaphore): UpRunOptions {
  const { wait } = options;
  return {
    ...options,
    podOptions: { ...options.podOptions, startSlots },
    wait: wait && { ...wait, endsAtMs: Date.now() + (wait.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS) },
  };
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

/**
 * How many pods of one run reconcile and start at once, unless $PODRUN_PARALLEL_LIMIT says
 * otherwise (as $COMPOSE_PARALLEL_LIMIT bounds docker compose). Their engine commands are the cost
 * (the wait for readiness holds no slot); on two cores, more engine processes at once than that
 * only share the same CPUs. Measured (bench/RESULTS.md, "Stack bench", the bound): 1 and 2 are
 * slower on both engines, 4 and 8 alike within the noise; the pods that others wait for (an
 * OrderedReady StatefulSet's first) take a free slot first (PodRun.waitedOnBy).
 */
export const MAX_PARALLEL_STARTS = 4;

/** What step 2 shares between the pods of the run while they go together. */
interface PodsRun {
  deps: RunPodDeps;
  options: UpRunOptions;
  state: UpState;
  /** Whether each pod came up (started, Ready with --wait, or planned): a pod `after` it waits for the answer. */
  turns: Map<PodRun, Promise<boolean>>;
  unschedulable: Map<Pod, HostPort>;
  several: boolean;
  /** The pods not yet ended: the one that ends last is told as `last`. */
  left: number;
  interrupted: boolean;
  /** The Services' endpoints brought up to date, once more after any call while one runs. */
  syncEndpoints: () => Promise<void>;
}

/**
 * Step 2: every pod of the plan at once (MAX_PARALLEL_STARTS starting at a time), but a pod
 * `after` another, which waits until that one is up; a result when the run ends here.
 */
async function runPods(deps: RunPodDeps, options: UpRunOptions, state: UpState): Promise<UpResult | undefined> {
  const { runs, jobs } = options.plan;
  const run: PodsRun = {
    deps,
    options,
    state,
    turns: new Map(),
    // The scheduler's verdict on one node: a pod whose host port an earlier pod has stays Pending.
    unschedulable: findUnschedulable(runs.map((r) => r.pod)),
    several: runs.length + jobs.length > 1,
    left: runs.length,
    interrupted: false,
    syncEndpoints: endpointSyncOf(deps, options, state),
  };
  // In plan order: a pod's `after` is earlier in the plan, so its turn is already there.
  for (const podRun of runs) run.turns.set(podRun, runInTurn(run, podRun));
  const ends = await Promise.allSettled(run.turns.values());
  const thrown = ends.find((end) => end.status === "rejected");
  if (thrown) throw thrown.reason; // an engine that does not answer, or a bug: the whole run ends
  if (run.interrupted) return { status: "interrupted", done: state.done };
  if (!run.several && state.failed.length > 0) return { status: "failed" };
  return undefined;
}

/**
 * One pod of step 2: (a) its turn, once the pod it comes after is up, (b) the scheduler's
 * verdict on its host ports, (c) the pod itself, (d) the Services' endpoints, which follow it
 * (a pod of the run may already call it). Answers whether it came up.
 */
async function runInTurn(run: PodsRun, podRun: PodRun): Promise<boolean> {
  const { options, state } = run;
  const label = `pod/${podRun.pod.metadata!.name}`;
  const end = (up: boolean): boolean => (run.left--, up);
  // (a) A StatefulSet's next pod is not created while the one before it is not up.
  if (podRun.after && !(await run.turns.get(podRun.after))) {
    if (!options.podOptions.signal?.aborted) {
      options.report({ kind: "held", run: podRun, after: podRun.after });
      state.failed.push(label);
    }
    return end(false);
  }
  // A Ctrl-C before its turn: it is not started.
  if (options.podOptions.signal?.aborted) {
    run.interrupted = true;
    return end(false);
  }
  options.report({ kind: "begin", run: podRun });
  // (b)
  const port = run.unschedulable.get(podRun.pod);
  if (port) {
    run.deps.recorder.event(
      toInvolvedObject(identifyPod(podRun.pod)),
      "Warning",
      "FailedScheduling",
      NO_FREE_PORTS_MESSAGE,
    );
    options.report({ kind: "unschedulable", run: podRun, port });
    // With --wait the pod never becomes Ready: a failure. Without, it is left Pending, as a cluster leaves it.
    if (options.wait) state.failed.push(label);
    return end(false);
  }
  // (c)
  const outcome = await runOnePod(run.deps, options, podRun);
  // (d)
  if (outcome.status === "started" || outcome.status === "ready") await run.syncEndpoints();
  // One pod: an engine command that failed is reported as any command's (lib/cli.ts).
  if (outcome.status === "failed" && outcome.error instanceof EngineError && !run.several) throw outcome.error;
  options.report({ kind: "pod", run: podRun, outcome, last: run.left === 1 });
  if (outcome.status === "interrupted") run.interrupted = true;
  else if (outcome.status !== "failed") state.done.push({ name: podRun.pod.metadata!.name!, source: podRun.source });
  else state.failed.push(label);
  return end(outcome.status !== "failed" && outcome.status !== "interrupted");
}

/**
 * Step 2 (d): the run's Services' proxies get the endpoints of what is on the engine now (other
 * runs' get theirs at their next `up` or any `down`). Calls while a sync runs are answered by
 * one more sync after it, so the last pod up is always in the last config written.
 */
function endpointSyncOf(deps: RunPodDeps, options: UpRunOptions, state: UpState): () => Promise<void> {
  if (options.podOptions.dryRun || !options.plan.services.some(({ service }) => hasProxy(service)))
    return () => Promise.resolve();
  const once = async (): Promise<void> => {
    for (const proxy of await syncServiceEndpoints(deps.runtime)) {
      const files = proxyFilesOf(proxy);
      if (files) state.proxies.push(files);
    }
  };
  let dirty = false;
  let loop: Promise<void> | undefined;
  return () => {
    dirty = true;
    loop ??= (async () => {
      while (dirty) {
        dirty = false;
        await once();
      }
    })().finally(() => (loop = undefined));
    return loop;
  };
}

function runOnePod(deps: RunPodDeps, options: UpRunOptions, run: PodRun): Promise<PodOutcome> {
  const { wait } = options;
  return runPod(deps, {
    ...options.podOptions,
    pod: run.pod,
    source: run.source,
    startPriority: run.waitedOnBy,
    replace: options.replace,
    keepOnFailure: options.keepOnFailure,
    wait: wait
      ? {
          timeoutMs: wait.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS,
          endsAtMs: wait.endsAtMs,
          rmOnInterrupt: wait.rmOnInterrupt,
        }
      : undefined,
    onProgress: (progress) => options.onProgress?.(run, progress),
  });
}

/** Step 4: the Jobs, beside the pods, each run as the Job controller would (lib/workloads/run-jobs.ts). */
function runTheJobs(deps: RunPodDeps, options: UpRunOptions): Promise<RunJobsResult> {
  // Run even without a Job in the files: the TTL of a finished Job is enforced by any `up`.
  return runJobs(deps, {
    jobs: options.plan.jobs,
    podOptions: options.podOptions,
    keepOnFailure: options.keepOnFailure,
    wait: options.wait,
    signal: options.podOptions.signal,
    report: (outcome) => options.report({ kind: "job", outcome }),
  });
}
