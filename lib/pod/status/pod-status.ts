import type { ContainerStatus, ContainerStateTerminated } from "kubernetes-types/core/v1.js";
import type { RuntimeName } from "../../runtime/detect.js";
import type { ContainerState } from "../../runtime/types.js";
import { currentContainers, isSidecarState, kubeContainerName, podLabels, type PodRecord } from "./find-pods.js";

// What a pod is, told the kubelet's way from what the engine says about its containers (pure):
// each container's core/v1 ContainerStatus (running / terminated / waiting), the pod's phase as
// the kubelet's getPhase computes it, and the STATUS word `kubectl get pods` prints (its printPod).
// The engine knows no readiness probe: a container counts as ready when it runs. `up --wait`
// evaluates readinessProbes; `ps` only reads the engine. Sidecars (init containers with
// `restartPolicy: Always`, told by their kind label) are init containers in the statuses, as the
// kubelet reports them, and count in READY beside the app containers, as kubectl counts them.

export type PodPhase = "Pending" | "Running" | "Succeeded" | "Failed";

/** One pod as `ps` shows it. */
export interface PodSummary {
  name: string;
  namespace: string;
  uid: string;
  /** The pod's own labels (find-pods.ts podLabels): what `-l` selects on. */
  labels: Record<string, string>;
  /** When the pod was made: its sandbox's creation, else its first container's (ISO, "" if unknown). */
  createdAt: string;
  phase: PodPhase;
  /** The STATUS column: Running, Pending, Completed, Error, CrashLoopBackOff, Init:0/2, Init:Error… */
  status: string;
  /** The pod's own reason and message, when the kubelet would set them (DeadlineExceeded: active-deadline.ts). */
  reason?: string;
  message?: string;
  /** App containers and started sidecars that run, out of all app containers and sidecars. */
  ready: number;
  total: number;
  restarts: number;
  /** When a container last stopped before being restarted (ISO), if one was. */
  lastRestartAt?: string;
  podIP?: string;
  initContainerStatuses: ContainerStatus[];
  containerStatuses: ContainerStatus[];
  /** The current container of each status, in the same order (init, then app). */
  initContainers: ContainerState[];
  appContainers: ContainerState[];
}

/** The scheme of a containerID, as a kubelet on that engine reports it (nerdctl runs on containerd). */
export function containerIdScheme(runtime: RuntimeName): string {
  return runtime === "nerdctl" ? "containerd" : runtime;
}

export function summarizePod(record: PodRecord, runtime: RuntimeName): PodSummary {
  const initContainers = currentContainers(record.initContainers);
  const appContainers = currentContainers(record.appContainers);
  const sidecars = new Set(initContainers.filter(isSidecarState).map(kubeContainerName));
  const initContainerStatuses = initContainers.map((state) =>
    toContainerStatus(state, runtime, { init: true, sidecar: isSidecarState(state) }),
  );
  const containerStatuses = appContainers.map((state) => toContainerStatus(state, runtime, { init: false }));
  const phase = podPhase(initContainerStatuses, containerStatuses, sidecars);
  const printed = printPodStatus({ phase, initContainerStatuses, containerStatuses, sidecars });
  const all = [record.infra, ...initContainers, ...appContainers].filter((c): c is ContainerState => c !== undefined);
  const lastRestartAt = latest(
    (printed.initializing ? initContainers : [...initContainers.filter(isSidecarState), ...appContainers])
      .filter((c) => c.restartCount > 0 && c.finishedAt !== "")
      .map((c) => c.finishedAt),
  );
  const sidecarStatuses = initContainerStatuses.filter((s) => sidecars.has(s.name));
  const podIP = record.infra?.ip || all.find((c) => c.ip)?.ip;
  return {
    name: record.name,
    labels: podLabels(record),
    namespace: record.namespace,
    uid: record.uid,
    createdAt: record.infra?.createdAt || earliest(all.map((c) => c.createdAt)) || "",
    phase,
    status: printed.status,
    ready: [...sidecarStatuses.filter((s) => s.started), ...containerStatuses].filter((s) => s.ready).length,
    total: sidecarStatuses.length + containerStatuses.length,
    restarts: printed.restarts,
    ...(lastRestartAt ? { lastRestartAt } : {}),
    ...(podIP ? { podIP } : {}),
    initContainerStatuses,
    containerStatuses,
    initContainers,
    appContainers,
  };
}

/**
 * A container's core/v1 status from its engine state. An exited container that the engine
 * restarted before (restart count > 0) and that failed is waiting to be restarted again:
 * CrashLoopBackOff, as is one the engine reports as `restarting` (docker's back-off). Init
 * containers never restart; sidecars (`sidecar`, an init container) restart as app containers
 * do. A container created but never started is waiting, with no reason.
 */
export function toContainerStatus(
  state: ContainerState,
  runtime: RuntimeName,
  options: { init: boolean; sidecar?: boolean },
): ContainerStatus {
  const restarts = !options.init || options.sidecar === true;
  const base = {
    name: kubeContainerName(state),
    image: state.image,
    imageID: "",
    containerID: `${containerIdScheme(runtime)}://${state.id}`,
    restartCount: state.restartCount,
  };
  const restarting =
    state.status === "restarting" || (restarts && !state.running && state.restartCount > 0 && state.exitCode !== 0);
  if (restarting) {
    return {
      ...base,
      state: { waiting: { reason: "CrashLoopBackOff", message: `back-off restarting failed container ${base.name}` } },
      lastState: { terminated: terminated(state) },
      ready: false,
      started: false,
    };
  }
  if (state.running) {
    return {
      ...base,
      state: { running: { startedAt: toKubeTime(state.startedAt) } },
      lastState: {},
      ready: state.status === "running",
      started: true,
    };
  }
  if (state.startedAt === "") return { ...base, state: { waiting: {} }, lastState: {}, ready: false, started: false };
  // A completed init container counts as ready, as the kubelet reports it; a sidecar that ended does not.
  return {
    ...base,
    state: { terminated: terminated(state) },
    lastState: {},
    ready: options.init && !options.sidecar && state.exitCode === 0,
    started: false,
  };
}

// The kubelet's reasons for a container that ended: Completed for exit 0, Error otherwise.
function terminated(state: ContainerState): ContainerStateTerminated {
  return {
    exitCode: state.exitCode,
    reason: state.exitCode === 0 ? "Completed" : "Error",
    ...(state.startedAt ? { startedAt: toKubeTime(state.startedAt) } : {}),
    ...(state.finishedAt ? { finishedAt: toKubeTime(state.finishedAt) } : {}),
  };
}

/**
 * The pod's phase, as the kubelet's getPhase computes it. podrun never retries a failed init
 * container, so one failed init container fails the pod; and the pod's restartPolicy is not
 * read back from the engine: a container in CrashLoopBackOff shows that the engine restarts it
 * (Running), and with every container stopped for good the pod Succeeded if they all exited 0.
 * A sidecar (named in `sidecars`) holds the pod in Pending until it has started; after that it
 * does not count: the kubelet stops sidecars once the app containers are done.
 */
export function podPhase(
  initStatuses: readonly ContainerStatus[],
  statuses: readonly ContainerStatus[],
  sidecars: ReadonlySet<string> = new Set(),
): PodPhase {
  let pendingInit = 0;
  for (const status of initStatuses) {
    if (sidecars.has(status.name)) {
      if (!status.started && !status.lastState?.terminated && !status.state?.terminated) pendingInit++;
      continue;
    }
    if (status.state?.terminated) {
      if (status.state.terminated.exitCode !== 0) return "Failed";
    } else pendingInit++;
  }
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  let restarting = 0;
  for (const status of statuses) {
    if (status.state?.running) running++;
    else if (status.state?.terminated) {
      stopped++;
      if (status.state.terminated.exitCode === 0) succeeded++;
    } else if (status.lastState?.terminated) {
      stopped++;
      restarting++;
    } else waiting++;
  }
  if (pendingInit > 0 || waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped === 0) return "Pending";
  if (restarting > 0) return "Running";
  return stopped === succeeded ? "Succeeded" : "Failed";
}

/**
 * The STATUS and RESTARTS of `kubectl get pods` (kubectl's printPod): the phase, overridden by
 * the first init container that is not done (`Init:1/2`, `Init:Error`, `Init:CrashLoopBackOff`),
 * else by the reasons of the app containers (the first container's wins: `CrashLoopBackOff`,
 * `Error`, `Completed`), and `Completed` turned back into `Running` (or `NotReady`) while another
 * container still runs. Restarts count the init containers while the pod initializes, else the
 * sidecars and the app containers. A sidecar that has started lets initialization go on (it
 * counts in READY: summarizePod), and the pod is Running only when its sidecars are ready too.
 */
export function printPodStatus(pod: {
  phase: PodPhase;
  initContainerStatuses: readonly ContainerStatus[];
  containerStatuses: readonly ContainerStatus[];
  /** Names of the init containers that are sidecars. */
  sidecars?: ReadonlySet<string>;
}): { status: string; restarts: number; initializing: boolean } {
  let reason: string = pod.phase;
  let restarts = 0;
  let initializing = false;
  const inits = pod.initContainerStatuses;
  const sidecars = pod.sidecars ?? new Set<string>();
  const sidecarStatuses = inits.filter((c) => sidecars.has(c.name));
  for (const [index, container] of inits.entries()) {
    restarts += container.restartCount;
    const { terminated, waiting } = container.state ?? {};
    if (terminated && terminated.exitCode === 0) continue;
    if (sidecars.has(container.name) && container.started) continue;
    if (terminated)
      reason = terminated.reason
        ? `Init:${terminated.reason}`
        : terminated.signal
          ? `Init:Signal:${terminated.signal}`
          : `Init:ExitCode:${terminated.exitCode}`;
    else if (waiting?.reason && waiting.reason !== "PodInitializing") reason = `Init:${waiting.reason}`;
    else reason = `Init:${index}/${inits.length}`;
    initializing = true;
    break;
  }
  // kubectl's PodInitialized condition: the app containers have started, whatever a sidecar does since.
  const initialized = pod.containerStatuses.some(
    (c) => c.state?.running || c.state?.terminated || c.lastState?.terminated,
  );
  if (initializing && !initialized) return { status: reason, restarts, initializing };
  initializing = false;

  restarts = sidecarStatuses.reduce((sum, c) => sum + c.restartCount, 0);
  let hasRunning = false;
  for (const container of [...pod.containerStatuses].reverse()) {
    restarts += container.restartCount;
    const { waiting, terminated, running } = container.state ?? {};
    if (waiting?.reason) reason = waiting.reason;
    else if (terminated?.reason) reason = terminated.reason;
    else if (terminated) reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`;
    else if (container.ready && running) hasRunning = true;
  }
  if (reason === "Completed" && hasRunning) {
    // The pod is Ready only when every container is.
    reason = [...sidecarStatuses, ...pod.containerStatuses].every((c) => c.ready) ? "Running" : "NotReady";
  }
  return { status: reason, restarts, initializing };
}

/** The RESTARTS column: `3`, or `3 (45s ago)` when the last restart's time is known. */
export function formatRestarts(
  summary: Pick<PodSummary, "restarts" | "lastRestartAt">,
  nowMs: number,
  human: (ms: number) => string,
): string {
  if (summary.restarts === 0 || !summary.lastRestartAt) return String(summary.restarts);
  return `${summary.restarts} (${human(nowMs - Date.parse(summary.lastRestartAt))} ago)`;
}

/** An engine time as the API server writes one: RFC 3339 in UTC, whole seconds. */
export function toKubeTime(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}

function earliest(times: readonly string[]): string | undefined {
  return extreme(times, (a, b) => a < b);
}

function latest(times: readonly string[]): string | undefined {
  return extreme(times, (a, b) => a > b);
}

function extreme(times: readonly string[], better: (a: number, b: number) => boolean): string | undefined {
  let best: string | undefined;
  for (const time of times) {
    const ms = Date.parse(time);
    if (Number.isNaN(ms)) continue;
    if (best === undefined || better(ms, Date.parse(best))) best = time;
  }
  return best;
}
