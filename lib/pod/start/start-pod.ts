import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { findPullCredentials, type AuthFileCredentials } from "../../credentials/pod-credentials.js";
import { isProgrammingError, PodrunError } from "../../errors.js";
import { applyDefaultImageTag } from "../../images/reference.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject, type InvolvedObject } from "../../events/types.js";
import type { ImageManager } from "../../images/manager.js";
import { throwIfAborted } from "../../process/abort.js";
import type { ContainerRuntime, ImageInfo } from "../../runtime/types.js";
import { buildSandboxSpec, computePodHash, isSidecar, type ContainerKind } from "../spec/container-spec.js";
import type { PodIdentity } from "../identity.js";
import { describeError } from "../../runtime/engine-error.js";
import { isRequestTimeout } from "../../runtime/request-timeout.js";
import { startContainer, type ContainerStepContext } from "./start-container.js";
import { planPodVolumes } from "../volumes/volume-plan.js";
import { NO_OBJECTS, type PodObjects } from "../spec/pod-objects.js";
import { waitForPodReady } from "../../readiness/wait-ready.js";
import type { RestartContainer } from "../../readiness/liveness.js";
import { prepareVolumes } from "../volumes/prepare-volumes.js";
import { setUpEmptyDirs } from "../volumes/empty-dir-setup.js";
import { ensureClaimVolumes } from "../volumes/claim-volumes.js";
import { removePodDirectory } from "../volumes/pod-dir.js";
import type { MountSourceContext } from "../volumes/mount-sources.js";
import { choosePodDirectory } from "../volumes/termination-log.js";
import { describeTerminationMessage } from "../termination-message.js";
import { completeHostsFile, preparePodEtcFiles } from "../etc/etc-files.js";
import { describeNameClashes, findPodNameClash } from "../reconcile/name-clash.js";
import { removeHalfMadeSandbox } from "../stop/half-made-sandbox.js";

// The kubelet's SyncPod for a new pod, in its order (pkg/kubelet/kuberuntime/kuberuntime_manager.go): the sandbox, then each
// init container to a zero exit, one at a time, then the app containers, each pull → create →
// start → postStart (start-container.ts). A sidecar (an init container with `restartPolicy:
// Always`) is started in its place among the init containers and left running; the next one
// goes once it has started and passed its startup probe, if it has one. App containers are
// independent and go concurrently; the events of one container stay in order because its steps
// are sequential. A failure anywhere undoes this run; so does Ctrl-C (`signal`), checked between steps.

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
  /** Lines of an init container's log shown when it fails. */
  logTail?: number;
  /**
   * False in dry-run mode: an httpGet or sleep hook is an action, not an engine command; so is a
   * sidecar's startup probe, which is then not waited for.
   */
  runHooks?: boolean;
  /** The pod's images as `inspectPodImages` found them, when the caller already asked. */
  presentImages?: Promise<Map<string, ImageInfo>>;
  /**
   * Ctrl-C: aborts pulls and init container waits, and stops the run between steps; startPod
   * then throws StartPodInterrupted with what it had created.
   */
  signal?: AbortSignal;
  /**
   * A pod that is kept (reconcile-plan.ts): its sandbox runs, its volumes exist and its init containers
   * completed. Only the app containers named in `create` are created, in that sandbox.
   */
  keptPod?: { sandboxId?: string; create: readonly string[] };
  /** podrun's state directory: the files of configMap, secret, downwardAPI and projected volumes go under it. */
  stateDir?: string;
  /** Plan only: no volume file is written, no hostPath created. */
  dryRun?: boolean;
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

export interface StartedPod {
  sandboxId?: string;
  /** Runtime IDs of everything this run created, in creation order (sandbox excluded). */
  containerIds: string[];
  /** The pod's containers in start order (init containers and sidecars first), by Kubernetes name, with their runtime IDs. */
  containers: { name: string; id: string; kind: ContainerKind }[];
  /** Init containers that ran to completion (sidecars not counted). */
  initContainers: number;
  /** Sidecars started (and left running). */
  sidecars?: number;
  appContainers: number;
  /** Makes one of its app containers or sidecars anew with a restart count (a liveness failure, lib/readiness/liveness.ts). */
  restartContainer?: RestartContainer;
}

/** What a run created, for undoStart. */
export type CreatedByRun = { sandbox?: string; containerIds: string[]; volumes?: string[]; podDir?: string };

/** A failed start, carrying what was created so that the caller can undo it. */
export class StartPodError extends PodrunError {
  constructor(
    cause: PodrunError,
    readonly created: CreatedByRun,
  ) {
    super(cause.reason, cause.message, { cause, details: cause.details });
  }
}

/** Ctrl-C during startPod: nothing failed, the run stopped; `created` is what it had made, to undo. */
export class StartPodInterrupted extends Error {
  override readonly name = "StartPodInterrupted";
  constructor(readonly created: CreatedByRun) {
    super("interrupted");
  }
}

export async function startPod(deps: StartPodDeps, options: StartPodOptions): Promise<StartedPod> {
  const { pod, identity, signal, keptPod } = options;
  const spec = pod.spec!;
  const created: StartPodError["created"] = { containerIds: [] };
  // Containers whose `create` was under way: an interrupt may have cut the CLI off after the engine made them.
  const creating = new Set<string>();
  let sandboxCreating: string | undefined;
  // A volume still being made when the start fails would be made after the undo removed it.
  let volumesSettled: Promise<unknown> = Promise.resolve();
  const podObject = toInvolvedObject(identity);
  const emit = (object: InvolvedObject, type: "Normal" | "Warning", reason: string, message: string) =>
    deps.recorder.event(object, type, reason, message);
  const podHash = computePodHash({
    pod,
    identity,
    infraImage: options.infraImage,
    publishAll: options.publishAll,
    objects: options.objects,
  });
  try {
    const hostNetwork = spec.hostNetwork === true;
    // One inspect for every image of the pod; if it fails, each policy that needs it reports it.
    let present: ReadonlyMap<string, ImageInfo> = new Map();
    let inspectError: unknown;
    try {
      present = await (options.presentImages ?? inspectPodImages(deps.runtime, pod, options.infraImage));
    } catch (error) {
      inspectError = error;
    }

    // hostPath checks and the volumes' files come first: a failure there leaves nothing behind.
    await ensureClaimVolumes(deps, {
      pod,
      identity,
      objects: options.objects ?? NO_OBJECTS,
      dryRun: options.dryRun === true,
    });
    const volumes = await prepareVolumes(deps.recorder, {
      pod,
      identity,
      objects: options.objects ?? NO_OBJECTS,
      stateDir: options.stateDir,
      engine: deps.runtime.name,
      dryRun: options.dryRun === true,
      kept: keptPod !== undefined,
    });
    // Every container's termination message file goes there too (termination-log.ts).
    const podDir = await choosePodDirectory({
      podDir: volumes.podDir,
      stateDir: options.stateDir,
      engine: deps.runtime.name,
      identity,
      dryRun: options.dryRun === true,
    });
    // A kept pod's directory is in use by its kept containers: a failure now must not remove it.
    if (podDir !== undefined && !keptPod && !options.dryRun) created.podDir = podDir;
    // The pod's /etc/hosts and resolv.conf (lib/pod/etc/etc-files.ts), in the same directory.
    const etcFiles =
      options.stateDir === undefined
        ? undefined
        : await preparePodEtcFiles(deps.recorder, {
            pod,
            identity,
            stateDir: options.stateDir,
            engine: deps.runtime.name,
            kept: keptPod !== undefined,
            dryRun: options.dryRun === true,
          });
    const mountpoints = new Map<string, Promise<string>>();
    const mountSources: MountSourceContext = {
      podDir,
      mountpoint: (name) => {
        let found = mountpoints.get(name);
        if (!found) mountpoints.set(name, (found = deps.runtime.inspectVolumeMountpoint(name)));
        return found;
      },
      touchDisk: options.dryRun !== true,
    };

    // emptyDir volumes are made while the sandbox starts; every container's create waits for them.
    // A kept pod's volumes are in use by its kept containers: they stay.
    const volumesReady = keptPod
      ? Promise.resolve()
      : createPodVolumes(deps, pod, identity, created).then(() =>
          setUpEmptyDirs({
            spec,
            identity,
            engine: deps.runtime,
            mountpoint: mountSources.mountpoint,
            touchDisk: mountSources.touchDisk,
            recorder: deps.recorder,
          }),
        );
    volumesSettled = volumesReady.catch(() => undefined); // awaited before each create; a failure must not go unhandled meanwhile

    let sandboxId: string | undefined = keptPod?.sandboxId;
    // The sandbox starts (network setup: the slowest step) while containers are pulled and
    // created in it; each container's start waits for it, so the kubelet's order holds.
    let sandboxStarted: Promise<void> = Promise.resolve();
    if (!hostNetwork && !keptPod) {
      const sandbox = buildSandboxSpec({
        pod,
        identity,
        infraImage: options.infraImage,
        publishAll: options.publishAll,
        podHash,
      });
      // The sandbox image is the node's business, not the pod's: its pull secrets are not used for
      // it (the kubelet's runtime pulls it with the node's own credentials), only the auth file.
      const infraRef = await deps.images.ensureImageExists({
        object: podObject,
        image: options.infraImage,
        pullPolicy: "IfNotPresent",
        present,
        inspectError,
        pullCredentials: () => findPullCredentials({ authFile: options.authFile, image: options.infraImage }),
      });
      throwIfAborted(signal);
      sandboxCreating = sandbox.name;
      const sandboxFailed = (error: unknown): never => {
        const clash = findPodNameClash(describeError(error), sandbox.name);
        if (clash)
          throw new PodrunError("NameConflict", describeNameClashes([clash], deps.runtime.binary), { cause: error });
        const message = `Failed to create pod sandbox: ${describeError(error)}`;
        emit(podObject, "Warning", "FailedCreatePodSandBox", message);
        throw new PodrunError("FailedCreatePodSandBox", message, { cause: error });
      };
      const createSandbox = () => deps.runtime.createSandbox({ ...sandbox, image: infraRef });
      sandboxId = await createSandbox()
        .catch(async (error: unknown) => {
          // The pod's own, half made by a killed run (half-made-sandbox.ts): removed, and made anew.
          if (
            findPodNameClash(describeError(error), sandbox.name) &&
            (await removeHalfMadeSandbox(deps.runtime, identity))
          )
            return createSandbox();
          throw error;
        })
        .catch(sandboxFailed);
      created.sandbox = sandbox.name;
      sandboxStarted = deps.runtime.startSandbox(sandbox.name).catch(sandboxFailed);
      sandboxStarted.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    }
    // An httpGet hook and the hosts file need the pod's address: ask the engine once, and only then.
    let sandboxIP: Promise<string | undefined> | undefined;
    const findSandboxIP = () =>
      (sandboxIP ??=
        sandboxId === undefined
          ? Promise.resolve(undefined)
          : deps.runtime.inspectContainers([sandboxId]).then((states) => states[0]?.ip || undefined));
    const resolvePodIP = () => findSandboxIP().then((ip) => ip ?? "127.0.0.1");
    // The kubelet writes the pod's line in /etc/hosts once the pod has its IP: before any container starts.
    if (etcFiles && !hostNetwork && !options.dryRun) {
      sandboxStarted = sandboxStarted.then(async () =>
        completeHostsFile(etcFiles, pod, identity, await findSandboxIP().catch(() => undefined)),
      );
      sandboxStarted.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    }

    // Known once the sandbox (and its hosts file) is ready; a pod without a sandbox of its own is ready at once.
    let sandboxRunning = hostNetwork || keptPod !== undefined;
    sandboxStarted.then(
      () => (sandboxRunning = true),
      () => undefined,
    );

    const context: ContainerStepContext = {
      ...deps,
      pod,
      objects: options.objects ?? NO_OBJECTS,
      authFile: options.authFile,
      identity,
      podHash,
      present,
      inspectError,
      volumesReady,
      mountSources,
      etcFiles,
      sandboxStarted,
      sandboxRunning: () => sandboxRunning,
      resolvePodIP,
      runHooks: options.runHooks !== false,
      signal,
      created: { containerIds: created.containerIds, creating },
    };
    const startOne = (container: Container, kind: ContainerKind) => startContainer(context, container, kind);

    const containers: StartedPod["containers"] = [];
    // The pod's address, for a sidecar's startup probe: the sandbox's, asked once (see findSandboxIP).
    const resolveProbeIP = async () =>
      hostNetwork ? "127.0.0.1" : ((await findSandboxIP().catch(() => undefined)) ?? "");
    // Init containers: one at a time, each to a zero exit before the next (computePodActions). A
    // kept pod's completed already, and are not run again; its sidecars run (or the engine
    // restarts them).
    for (const container of keptPod ? [] : (spec.initContainers ?? [])) {
      if (isSidecar(container)) {
        const id = await startOne(container, "sidecar");
        containers.push({ name: container.name, id, kind: "sidecar" });
        // The kubelet's computeInitContainerActions: the next init container waits for the
        // sidecar's startup probe. A sidecar that exits first, or fails it, fails the pod here:
        // on a node it would restart in back-off and the pod would never initialize.
        if (container.startupProbe && options.runHooks !== false) {
          await waitForPodReady({
            runtime: deps.runtime,
            recorder: deps.recorder,
            pod,
            identity,
            containers: [{ name: container.name, id, kind: "sidecar" }],
            podIP: await resolveProbeIP(),
            timeoutMs: Infinity,
            untilStarted: true,
            signal,
            logTail: options.logTail,
          });
        }
        continue;
      }
      const id = await startOne(container, "init");
      containers.push({ name: container.name, id, kind: "init" });
      const exitCode = await deps.runtime.waitContainer(id, signal ? { signal } : {});
      if (exitCode !== 0) {
        const tail = (await deps.runtime.logs(id, { tail: options.logTail ?? 10 }).catch(() => "")).trimEnd();
        const details = tail ? `last log lines of init container ${container.name}:\n${indent(tail)}` : undefined;
        const message = await describeTerminationMessage(deps.runtime, { podDir, container, id, exitCode, details });
        throw new PodrunError(
          "InitContainerFailed",
          `init container ${container.name} exited with code ${exitCode}${message.line}`,
          { details: message.details },
        );
      }
    }

    // App containers are independent: every one is attempted, then the first failure is reported.
    const apps = keptPod ? spec.containers.filter((c) => keptPod.create.includes(c.name)) : spec.containers;
    const results = await Promise.allSettled(apps.map((container) => startOne(container, "app")));
    await sandboxStarted; // its own failure first: it explains every container's
    const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failure) throw failure.reason;
    apps.forEach((container, index) =>
      containers.push({
        name: container.name,
        id: (results[index] as PromiseFulfilledResult<string>).value,
        kind: "app",
      }),
    );

    const inits = containers.filter((c) => c.kind === "init").length;
    const sidecars = containers.filter((c) => c.kind === "sidecar").length;
    const restartContainer: RestartContainer = (name, restartCount) => {
      const container = [...(spec.initContainers ?? []).filter(isSidecar), ...spec.containers].find(
        (c) => c.name === name,
      )!;
      return startContainer({ ...context, restartCount }, container, isSidecar(container) ? "sidecar" : "app");
    };
    return {
      sandboxId,
      containerIds: created.containerIds,
      containers,
      initContainers: inits,
      ...(sidecars > 0 ? { sidecars } : {}),
      appContainers: apps.length,
      restartContainer,
    };
  } catch (error) {
    await volumesSettled;
    if (signal?.aborted) {
      // Whatever failed after Ctrl-C failed because of it: undo, including what was being made.
      const containerIds = [...created.containerIds, ...creating];
      throw new StartPodInterrupted({
        ...created,
        containerIds,
        ...(sandboxCreating ? { sandbox: sandboxCreating } : {}),
      });
    }
    // A create that did not answer in time may yet be carried out by the engine: its container
    // (still in `creating`), or the sandbox, is removed by name.
    const undo = {
      ...created,
      containerIds: [...created.containerIds, ...creating],
      ...(sandboxCreating && isRequestTimeout(error) ? { sandbox: sandboxCreating } : {}),
    };
    if (isProgrammingError(error)) {
      // A bug, not the pod's failure: what this run made goes, and the bug goes on to lib/cli.ts, which reports it as one.
      await undoStart(deps.runtime, undo).catch(() => undefined);
      throw error;
    }
    const cause =
      error instanceof PodrunError
        ? error
        : new PodrunError("RunContainerError", describeError(error), { cause: error });
    throw new StartPodError(cause, undo);
  }
}

/** Removes what a failed run created: containers (newest first), then the sandbox, then the volumes and the pod directory. */
export async function undoStart(runtime: ContainerRuntime, created: StartPodError["created"]): Promise<void> {
  if (created.containerIds.length > 0) await runtime.removeContainers([...created.containerIds].reverse());
  if (created.sandbox) await runtime.removeSandbox(created.sandbox);
  if (created.volumes && created.volumes.length > 0) await runtime.removeVolumes(created.volumes);
  if (created.podDir !== undefined) await removePodDirectory(created.podDir);
}

/**
 * The pod's emptyDir volumes, empty as the kubelet makes them: one left by a run that was killed
 * (the pod itself is gone: `up` removes a pod it recreates, volumes included, before this) is
 * removed first, since docker would hand it back with its files and podman would refuse the name.
 */
async function createPodVolumes(
  deps: StartPodDeps,
  pod: Pod,
  identity: PodIdentity,
  created: StartPodError["created"],
): Promise<void> {
  const volumes = planPodVolumes(pod.spec!, identity);
  if (volumes.length === 0) return;
  created.volumes = volumes.map((v) => v.name);
  const failed =
    (volume: string) =>
    (error: unknown): never => {
      const message = `MountVolume.SetUp failed for volume "${volume}" : ${describeError(error)}`;
      deps.recorder.event(toInvolvedObject(identity), "Warning", "FailedMount", message);
      throw new PodrunError("FailedMount", message, { cause: error });
    };
  await deps.runtime.removeVolumes(created.volumes).catch(failed(volumes[0]!.volume));
  await Promise.all(
    volumes.map((v) =>
      deps.runtime
        .createVolume(v.name, v.labels, v.group !== undefined ? { group: v.group } : undefined)
        .catch(failed(v.volume)),
    ),
  );
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

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}
