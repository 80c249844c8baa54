import type { ClusterNetwork } from "../cluster-network.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { AuthFileCredentials } from "../pull-credentials.js";
import { isProgrammingError, PodrunError } from "../../errors.js";
import { applyDefaultImageTag } from "../../runtime/image-reference.js";
import type { EventRecorder } from "../../events/recorder.js";
import type { ImageManager } from "../../images/manager.js";
import { abortError, isAbortError } from "../../process/abort.js";
import type { ContainerRuntime, ImageInfo } from "../../runtime/types.js";
import { computePodHash, isSidecar, type ContainerKind } from "../spec/container-spec.js";
import type { PodIdentity } from "../identity.js";
import { describeError } from "../../runtime/engine-error.js";
import { startContainer, type ContainerStepContext, type PodImages } from "./start-container.js";
import { NO_OBJECTS, type PodObjects } from "../../manifest/pod-objects.js";
import type { RestartContainer } from "../readiness/liveness.js";
import { undoStart } from "../undo-pod.js";
import { copyFilesToEngine, copyHostsFileToEngine, createEmptyDirs, prepareDisk } from "./pod-disk.js";
import { runInitContainers } from "./init-containers.js";
import { ensureSandbox, type SandboxHandle } from "./sandbox.js";
import { planStart, type StartPlan } from "./start-plan.js";
import { UndoLog, type CreatedByRun } from "./undo-log.js";

// The kubelet's SyncPod (pkg/kubelet/kuberuntime/kuberuntime_manager.go), carrying out a start
// plan (start-plan.ts) in its numbered steps, in its order: the sandbox, then each init container
// to a zero exit, one at a time, then the app containers, each pull → create → start → postStart
// (start-container.ts). App containers are independent and go concurrently; the events of one
// container stay in order because its steps are sequential. Every step reads the plan and the one
// sandbox handle, and logs what it makes in one undo log: a failure anywhere, or Ctrl-C (`signal`,
// checked between steps, thrown on as an AbortError), leaves in the log exactly what this run made.

export interface StartPodDeps {
  runtime: ContainerRuntime;
  recorder: Pick<EventRecorder, "event">;
  images: ImageManager;
}

export interface StartPodOptions {
  pod: Pod;
  /** The ConfigMaps and Secrets the pod's env and volumes may read. */
  objects?: PodObjects;
  /** `--authfile` / `$REGISTRY_AUTH_FILE`, read once per run: credentials after the pod's pull secrets. */
  authFile?: AuthFileCredentials;
  identity: PodIdentity;
  infraImage: string;
  publishAll: boolean;
  /** The cluster network the pod joins (lib/pod/spec/cluster-network.ts); undefined: the engine's default network. */
  cluster?: ClusterNetwork | undefined;
  /** Lines of an init container's log shown when it fails. */
  logTail?: number;
  /** The pod's images as `inspectPodImages` found them, when the caller already asked. */
  presentImages?: Promise<Map<string, ImageInfo>>;
  /**
   * Ctrl-C: aborts pulls and init container waits, and stops the run between steps; startPod
   * then throws an AbortError, and `undo` holds what it had created.
   */
  signal?: AbortSignal;
  /** What to do (start-plan.ts); by default, start the pod anew, hooks included. */
  plan?: StartPlan;
  /** Where the run logs what it makes (by default, its own): the caller's, to undo an interrupted start. */
  undo?: UndoLog;
  /** podrun's state directory: the files of configMap, secret, downwardAPI and projected volumes go under it. */
  stateDir?: string;
}

export interface StartedPod {
  sandboxId?: string;
  /** Runtime IDs of everything this run created, in creation order (sandbox excluded). */
  containerIds: string[];
  /** The pod's containers in start order (init containers and sidecars first), by Kubernetes name, with their runtime IDs. */
  containers: StartedContainer[];
  /** Init containers that ran to completion (sidecars not counted). */
  initContainers: number;
  /** Sidecars started (and left running). */
  sidecars?: number;
  appContainers: number;
  /** Makes one of its app containers or sidecars anew with a restart count (a liveness failure, lib/pod/readiness/liveness.ts). */
  restartContainer?: RestartContainer;
}

/** A container this run started, by its Kubernetes name, with its runtime ID. */
export type StartedContainer = { name: string; id: string; kind: ContainerKind };

export type { CreatedByRun };

/** A failed start, carrying what its undo log holds, so that the caller can undo it. */
export class StartPodError extends PodrunError {
  constructor(
    cause: PodrunError,
    readonly created: CreatedByRun,
  ) {
    super(cause.reason, cause.message, { cause, details: cause.details });
  }
}

export async function startPod(deps: StartPodDeps, options: StartPodOptions): Promise<StartedPod> {
  const { pod, identity, signal } = options;
  const plan = options.plan ?? planStart({ pod });
  const undo = options.undo ?? new UndoLog();
  const objects = options.objects ?? NO_OBJECTS;
  const podHash = computePodHash({ ...options, objects: options.objects });
  // A volume still being made when the start fails would be made after the undo removed it.
  let volumesSettled: Promise<unknown> = Promise.resolve();
  try {
    // Step 1: every image of the pod, inspected in one engine call; if it fails, each policy that needs it reports it.
    const images = await findPresentImages(deps.runtime, options);
    // Step 2: claims, the volumes' files, the pod directory and /etc files; a failure here leaves nothing behind.
    const disk = await prepareDisk(
      deps,
      plan,
      { pod, identity, objects, stateDir: options.stateDir, cluster: options.cluster },
      undo,
    );
    // Step 3: emptyDir volumes, made while the sandbox starts (a kept pod's stay), then the pod's
    // files copied to an engine that does not see this host's; every create waits for them.
    const kept = plan.volumes === "keep";
    const ready = (
      kept ? Promise.resolve() : createEmptyDirs(deps, { pod, identity, sources: disk.sources }, undo)
    ).then(() => copyFilesToEngine(deps, { pod, identity, sources: disk.sources, kept }));
    volumesSettled = ready.catch(() => undefined); // awaited before each create; a failure must not go unhandled meanwhile
    // Step 4: the sandbox, made and starting (or kept, or none); each container's start waits for it.
    const etcFiles = disk.etcFiles && {
      ...disk.etcFiles,
      copied: () => copyHostsFileToEngine(deps, { identity, sources: disk.sources }),
    };
    const sandbox = await ensureSandbox(deps, plan, { ...options, podHash, images, etcFiles }, undo);
    const context: ContainerStepContext = {
      deps,
      pod: { pod, identity, objects, podHash },
      images,
      authFile: options.authFile,
      mounts: { ...disk, ready },
      sandbox,
      runHooks: plan.runHooks,
      dryRun: plan.dryRun,
      signal,
      undo,
    };
    // Step 5: init containers and sidecars, one at a time (init-containers.ts).
    const inits = await runInitContainers(context, plan.initContainers, { logTail: options.logTail });
    // Step 6: the app containers, concurrently.
    const apps = await startAppContainers(context, plan, sandbox);
    return describeStartedPod(context, plan, [...inits, ...apps], undo);
  } catch (error) {
    await volumesSettled;
    throw await endFailedStart(deps.runtime, error, { signal, undo });
  }
}

/** Every image of the pod (the infra image unless hostNetwork), inspected in one engine call. */
export function inspectPodImages(
  runtime: ContainerRuntime,
  pod: Pod,
  infraImage: string,
): Promise<Map<string, ImageInfo>> {
  const containers = [...(pod.spec!.initContainers ?? []), ...pod.spec!.containers];
  const images = [...(pod.spec!.hostNetwork ? [] : [infraImage]), ...containers.map((c) => c.image!)];
  return runtime.inspectImages(uniqueImages(images));
}

/** The images the caller asked for already, or asked now; an inspect that fails is kept for the policies that need it. */
async function findPresentImages(
  runtime: ContainerRuntime,
  options: Pick<StartPodOptions, "presentImages" | "pod" | "infraImage">,
): Promise<PodImages> {
  try {
    return {
      present: await (options.presentImages ?? inspectPodImages(runtime, options.pod, options.infraImage)),
      inspectError: undefined,
    };
  } catch (error) {
    return { present: new Map(), inspectError: error };
  }
}

/** App containers are independent: every one is attempted, then the first failure is reported. */
async function startAppContainers(
  context: ContainerStepContext,
  plan: Pick<StartPlan, "appContainers">,
  sandbox: SandboxHandle,
): Promise<StartedContainer[]> {
  const apps = plan.appContainers;
  const results = await Promise.allSettled(apps.map((container) => startContainer(context, container, "app")));
  await sandbox.started; // its own failure first: it explains every container's
  const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failure) throw failure.reason;
  return apps.map((container, index) => ({
    name: container.name,
    id: (results[index] as PromiseFulfilledResult<string>).value,
    kind: "app",
  }));
}

function describeStartedPod(
  context: ContainerStepContext,
  plan: Pick<StartPlan, "appContainers" | "restartable">,
  containers: StartedContainer[],
  undo: UndoLog,
): StartedPod {
  const inits = containers.filter((c) => c.kind === "init").length;
  const sidecars = containers.filter((c) => c.kind === "sidecar").length;
  const restartContainer: RestartContainer = (name, restartCount) => {
    const container = plan.restartable.find((c) => c.name === name)!;
    return startContainer({ ...context, restartCount }, container, isSidecar(container) ? "sidecar" : "app");
  };
  return {
    sandboxId: context.sandbox.id,
    containerIds: undo.containerIds, // the log's own: a liveness restart adds to it
    containers,
    initContainers: inits,
    ...(sidecars > 0 ? { sidecars } : {}),
    appContainers: plan.appContainers.length,
    restartContainer,
  };
}

/**
 * What a start that did not finish throws: after Ctrl-C, an AbortError (whatever failed then
 * failed because of it); a bug as it is, once what this run made is undone; else a StartPodError
 * with the undo log's account, for the caller to undo (or keep).
 */
async function endFailedStart(
  runtime: ContainerRuntime,
  error: unknown,
  options: { signal?: AbortSignal | undefined; undo: UndoLog },
): Promise<Error> {
  const { signal, undo } = options;
  if (signal?.aborted) return isAbortError(error) ? (error as Error) : abortError(signal, error);
  if (isProgrammingError(error)) {
    // A bug, not the pod's failure: what this run made goes, and the bug goes on to lib/cli.ts, which reports it as one.
    await undoStart(runtime, undo.created()).catch(() => undefined); // the bug is the story, not a failed removal
    return error as Error;
  }
  const cause =
    error instanceof PodrunError ? error : new PodrunError("RunContainerError", describeError(error), { cause: error });
  return new StartPodError(cause, undo.created());
}

// Presence is looked up by the defaulted ref (`busybox:latest`), which is what the manager asks.
function uniqueImages(images: readonly string[]): string[] {
  const refs = images.flatMap((image) => {
    try {
      return [applyDefaultImageTag(image)];
    } catch {
      return []; // the manager reports an unparsable name as InvalidImageName, with its event
    }
  });
  return [...new Set(refs)];
}
