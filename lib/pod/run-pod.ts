import type { ClusterNetwork } from "./cluster-network.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { AuthFileCredentials } from "./pull-credentials.js";
import { EngineError, PodrunError } from "../errors.js";
import type { EventRecorder } from "../events/recorder.js";
import { toInvolvedObject } from "../events/types.js";
import type { ImageManager } from "../images/manager.js";
import { findPodIP } from "./readiness/pod-address.js";
import type { ContainerProgress } from "./readiness/prober-types.js";
import { waitForPodReady } from "./readiness/wait-ready.js";
import { isAbortError, throwIfAborted } from "../process/abort.js";
import { LABEL_CONTAINER_NAME, type ContainerRuntime, type ImageInfo } from "../runtime/types.js";
import { failExpiredPod, failPodAtDeadline, findActiveDeadline } from "./active-deadline.js";
import { identifyPod, type PodIdentity } from "./identity.js";
import { reconcilePod, type ReconcileResult } from "./reconcile/apply-plan.js";
import { initContainerKind } from "./spec/container-spec.js";
import type { PodObjects } from "../manifest/pod-objects.js";
import { inspectPodImages, startPod, StartPodError, type StartedPod } from "./start/start-pod.js";
import { keptPodOf, planStart, type KeptPod } from "./start/start-plan.js";
import { UndoLog } from "./start/undo-log.js";
import { removeInterruptedPod, undoFailedStart, undoInterruptedStart } from "./undo-pod.js";
import type { UpSummary } from "./up-summary.js";
import { podDirectory } from "./volumes/pod-dir.js";
import type { Semaphore } from "../process/semaphore.js";

// One pod of `podrun up`, as the kubelet's SyncPod takes it: reconcile what the engine has with
// the manifest (keep, change in part, or recreate), start what the plan says, then, with --wait,
// wait for readiness. A pod that does not come up is undone as the flags say. The answer is an
// outcome for the command to print; nothing is printed here, and a pod's failure is not thrown.

export interface RunPodDeps {
  runtime: ContainerRuntime;
  recorder: Pick<EventRecorder, "event">;
  images: ImageManager;
}

export interface RunPodOptions {
  pod: Pod;
  /** The file the pod came from (`<stdin>` for `-`): what `podrun down` is told to take. */
  source: string;
  /** The ConfigMaps and Secrets of every file of the run. */
  objects: PodObjects;
  /** `--authfile` / `$REGISTRY_AUTH_FILE`, read once per run. */
  authFile?: AuthFileCredentials | undefined;
  infraImage: string;
  /** The cluster network the pod joins (lib/pod/spec/cluster-network.ts); undefined: the engine's default network. */
  cluster?: ClusterNetwork | undefined;
  /** podrun's state directory: volume files go in its pod directory. */
  stateDir: string;
  publishAll: boolean;
  /** Recreate the whole pod even when its containers match the manifest. */
  replace: boolean;
  /** A failed start leaves what it created. */
  keepOnFailure: boolean;
  /** Plan only: the engine is asked nothing, and the pod is planned as new. */
  dryRun: boolean;
  /**
   * `--wait`: readiness within `timeoutMs` (by `endsAtMs`, epoch ms, when the limit is the whole
   * run's); Ctrl-C removes the pod when `rmOnInterrupt`.
   */
  wait?: { timeoutMs: number; endsAtMs?: number | undefined; rmOnInterrupt: boolean } | undefined;
  /**
   * The slots the pods of one run share while they start (lib/apply/up.ts): the reconcile and
   * the start hold one, the wait for readiness none. Absent: no bound.
   */
  startSlots?: Semaphore | undefined;
  /** The pod's place among those waiting for a start slot: higher first (lib/process/semaphore.ts). */
  startPriority?: number | undefined;
  /** Ctrl-C: aborts pulls and the wait; what is under way is then undone (or left, during the wait). */
  signal?: AbortSignal | undefined;
  /** Told as the flow goes, for the terminal (these are not events: see PodProgress). */
  onProgress?: ((progress: PodProgress) => void) | undefined;
}

/** What the flow tells while it runs; the command decides what to show. */
export type PodProgress =
  /**
   * The pod is kept: `unchanged` are the containers left alone (the kubelet records no event for
   * them). Told before anything of the plan is carried out.
   */
  | { kind: "kept"; label: string; unchanged: readonly string[] }
  /** `--wait`: the containers are started and the wait for readiness begins. */
  | { kind: "waiting"; label: string; started: StartedPod; timeoutMs: number }
  /** `--wait`: each container's state, whenever one changes. */
  | { kind: "containers"; label: string; containers: readonly ContainerProgress[] }
  /** The pod will not come up (it failed, or Ctrl-C): told before what it made is undone. */
  | { kind: "ending"; label: string };

/** How one pod's run ended. `label` is `pod/<name>`. */
export type PodOutcome =
  /** `--dry-run`: the commands were recorded; nothing ran. */
  | { status: "planned"; label: string }
  /** Created, changed or kept, and started; `summary` is the data of the last line. */
  | { status: "started"; label: string; summary: UpSummary }
  /** `--wait`: every app container and sidecar is Ready. */
  | { status: "ready"; label: string; containers: number; seconds: number }
  /**
   * The pod did not come up. `notes` say what was undone or left (printed before the error);
   * an EngineError is an engine command that failed while reconciling.
   */
  | { status: "failed"; label: string; notes: string[]; error: PodrunError | EngineError }
  /** Ctrl-C: `notes` say what was removed or left running. */
  | { status: "interrupted"; label: string; notes: string[] };

/**
 * Brings one pod up and says how it went. Throws only what ends the whole run: an engine that
 * does not answer (EngineError unavailable) and bugs.
 */
export async function runPod(deps: RunPodDeps, options: RunPodOptions): Promise<PodOutcome> {
  const started = Date.now();
  // 1. Reconcile and start, in one of the run's start slots (when it has them).
  const slots = options.startSlots;
  const up = await (slots
    ? slots.run(() => reconcileAndStart(deps, options), options.startPriority)
    : reconcileAndStart(deps, options));
  if ("status" in up) return up; // failed or interrupted, and undone
  const { identity, reconciled, keptPod, created } = up;
  const label = `pod/${identity.name}`;
  if (options.dryRun) return { status: "planned", label };
  if (!options.wait)
    return {
      status: "started",
      label,
      summary: {
        label,
        plan: reconciled?.plan,
        started: created,
        seconds: (Date.now() - started) / 1000,
        runtime: deps.runtime.name,
      },
    };
  // 2. `--wait`: readiness, outside the slots (a pod waiting for its probes holds none).
  const startedPod = keptPod ? withKeptContainers(created, options.pod, reconciled!) : created;
  return waitUntilReady(deps, { ...options, wait: options.wait, identity, started: startedPod, since: started });
}

/** A pod reconciled and started: what the wait (or the summary) goes on with. */
interface StartedUp {
  identity: PodIdentity;
  reconciled: ReconcileResult | undefined;
  keptPod: KeptPod | undefined;
  created: StartedPod;
}

/** The reconcile, then the start plan carried out; a failure or Ctrl-C is the pod's outcome, undone. */
async function reconcileAndStart(deps: RunPodDeps, options: RunPodOptions): Promise<StartedUp | PodOutcome> {
  const { runtime } = deps;
  const { pod } = options;
  let identity = identifyPod(pod);
  const label = `pod/${identity.name}`;
  // A Ctrl-C while the pod waited for its slot: nothing of it is made.
  if (options.signal?.aborted) return { status: "interrupted", label, notes: [] };

  // Which images are local is asked while the pod is read back: a new pod needs the answer first.
  const presentImages = inspectPodImages(runtime, pod, options.infraImage);
  presentImages.catch(() => undefined); // startPod reports it, if it gets that far
  // A pod that is already there is reconciled with the manifest: kept, changed in part, or
  // recreated (reconcile-plan.ts). A dry run asks the engine nothing and plans a new pod.
  let reconciled: ReconcileResult | undefined;
  if (!options.dryRun) {
    try {
      // A pod past its activeDeadlineSeconds stays Failed, as on a node: not started again.
      const expired = await failExpiredPod({ runtime, recorder: deps.recorder }, { ...options, identity });
      if (expired)
        return {
          status: "failed",
          label,
          notes: [
            `podrun: ${label} left stopped (podrun down ${downTarget(options.source, identity)} removes it; up --replace runs it anew)`,
          ],
          error: expired,
        };
      reconciled = await reconcilePod(
        { runtime, recorder: deps.recorder },
        {
          pod,
          objects: options.objects,
          identity,
          infraImage: options.infraImage,
          publishAll: options.publishAll,
          cluster: options.cluster,
          replace: options.replace,
          onPlan: (plan) => {
            if (plan.action === "keep") options.onProgress?.({ kind: "kept", label, unchanged: plan.keep });
          },
        },
      );
    } catch (error) {
      // An engine that is down is thrown on (RuntimeUnavailable); an engine command that failed is this pod's failure.
      if (!(error instanceof PodrunError || isPodFailure(error))) throw error;
      return { status: "failed", label, notes: [], error };
    }
    identity = reconciled.identity;
  }
  const keptPod = keptPodOf(reconciled?.plan, reconciled?.infra?.id);
  const created = await startPlanned(deps, { ...options, identity, presentImages, keptPod });
  if ("status" in created) return created;
  return { identity, reconciled, keptPod, created };
}

/**
 * Carries out the start plan; a start that fails or is interrupted is undone by its undo log (as
 * the flags say) and answered as the pod's outcome.
 */
async function startPlanned(
  deps: RunPodDeps,
  options: RunPodOptions & {
    identity: PodIdentity;
    presentImages: Promise<Map<string, ImageInfo>>;
    keptPod: KeptPod | undefined;
  },
): Promise<StartedPod | PodOutcome> {
  const { runtime } = deps;
  const { pod, identity, dryRun } = options;
  const label = `pod/${identity.name}`;
  const undo = new UndoLog();
  try {
    // Even with every container unchanged, startPod runs: it rewrites the kept pod's volume files in
    // place (a ConfigMap that changed), as the kubelet updates them in a running pod.
    return await startPod(deps, {
      pod,
      objects: options.objects,
      authFile: options.authFile,
      identity,
      infraImage: options.infraImage,
      publishAll: options.publishAll,
      cluster: options.cluster,
      stateDir: options.stateDir,
      presentImages: options.presentImages,
      signal: options.signal,
      plan: planStart({ pod, kept: options.keptPod, dryRun, runHooks: !dryRun }),
      undo,
    });
  } catch (error) {
    if (!(isAbortError(error) || error instanceof StartPodError)) throw error;
    options.onProgress?.({ kind: "ending", label });
    // Ctrl-C: one path, from the signal's AbortError to the 'interrupted' outcome, whatever the flags say.
    if (!(error instanceof StartPodError))
      return { status: "interrupted", label, notes: [await undoInterruptedStart(runtime, undo.created())] };
    const notes = await undoFailedStart(runtime, error.created, { label, keep: options.keepOnFailure || dryRun });
    return { status: "failed", label, notes, error };
  }
}

/** An engine command that failed is the pod's failure; an engine that does not answer goes on up. */
function isPodFailure(error: unknown): error is EngineError {
  return error instanceof EngineError && error.kind !== "unavailable";
}

/**
 * A kept pod as StartedPod: the containers it kept (init containers that completed, sidecars,
 * unchanged app containers) with those this run created, in start order, so that `--wait` looks
 * at all of them (sidecars included: they count in the pod's readiness).
 */
function withKeptContainers(created: StartedPod | undefined, pod: Pod, reconciled: ReconcileResult): StartedPod {
  const ids = new Map(reconciled.existing.map((state) => [state.labels[LABEL_CONTAINER_NAME] ?? state.name, state.id]));
  const fresh = new Map((created?.containers ?? []).map((c) => [c.name, c.id]));
  const containers: StartedPod["containers"] = [];
  for (const c of pod.spec!.initContainers ?? []) {
    const id = ids.get(c.name);
    if (id !== undefined) containers.push({ name: c.name, id, kind: initContainerKind(c) });
  }
  for (const c of pod.spec!.containers) {
    const id = fresh.get(c.name) ?? ids.get(c.name);
    if (id !== undefined) containers.push({ name: c.name, id, kind: "app" });
  }
  return {
    sandboxId: reconciled.infra?.id,
    containerIds: created?.containerIds ?? [],
    containers,
    initContainers: created?.initContainers ?? 0,
    appContainers: created?.appContainers ?? 0,
    ...(created?.restartContainer ? { restartContainer: created.restartContainer } : {}),
  };
}

/** `--wait`: the pod's readiness; or why not (the pod is left for the user to look at), or what Ctrl-C left. */
async function waitUntilReady(
  deps: RunPodDeps,
  options: RunPodOptions & {
    wait: NonNullable<RunPodOptions["wait"]>;
    identity: PodIdentity;
    started: StartedPod;
    since: number;
  },
): Promise<PodOutcome> {
  const { runtime } = deps;
  const { pod, identity, started, signal } = options;
  const { timeoutMs } = options.wait;
  const label = `pod/${identity.name}`;
  try {
    // A Ctrl-C while the pod was starting is answered now, before any wait.
    throwIfAborted(signal);
    const podIP = await findPodIP(runtime, started, pod.spec!.hostNetwork === true);
    const activeDeadline = await findActiveDeadline(runtime, pod, started, Date.now, (message) =>
      deps.recorder.event(toInvolvedObject(identity), "Warning", "FailedSync", message),
    );
    options.onProgress?.({ kind: "waiting", label, started, timeoutMs });
    const ready = await waitForPodReady({
      runtime,
      recorder: deps.recorder,
      pod,
      identity,
      ...(started.restartContainer ? { liveness: { runtime, restartContainer: started.restartContainer } } : {}),
      containers: started.containers,
      podIP,
      timeoutMs,
      endsAtMs: options.wait.endsAtMs,
      signal,
      onProgress: (containers) => options.onProgress?.({ kind: "containers", label, containers }),
      activeDeadline,
      podDir: podDirectory(options.stateDir, runtime.name, identity),
    });
    return { status: "ready", label, containers: ready.containers, seconds: (Date.now() - options.since) / 1000 };
  } catch (error) {
    if (!(isAbortError(error) || error instanceof PodrunError)) throw error;
    options.onProgress?.({ kind: "ending", label });
    if (!(error instanceof PodrunError)) {
      // The AbortError of Ctrl-C (lib/process/abort.ts).
      const note = options.wait.rmOnInterrupt
        ? await removeInterruptedPod(runtime, { pod, identity, started, stateDir: options.stateDir })
        : `podrun: interrupted; ${label} left running (podrun down ${downTarget(options.source, identity)} removes it)`;
      return { status: "interrupted", label, notes: [note] };
    }
    if (error.reason === "DeadlineExceeded") {
      const failures = await failPodAtDeadline(deps, { pod, identity });
      return {
        status: "failed",
        label,
        notes: [
          ...failures,
          `podrun: ${label} left stopped (podrun down ${downTarget(options.source, identity)} removes it)`,
        ],
        error,
      };
    }
    // Left running on purpose: its logs and state are what the user needs to look at next.
    return {
      status: "failed",
      label,
      notes: [`podrun: ${label} left as it is (podrun down ${downTarget(options.source, identity)} removes it)`],
      error,
    };
  }
}

// What to give `podrun down`: the pod's file, unless it was standard input.
function downTarget(source: string, identity: PodIdentity): string {
  return source === "<stdin>" ? identity.name : source;
}
