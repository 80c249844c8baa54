import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../errors.js";
import { applyDefaultImageTag } from "../image/reference.js";
import { CommandError } from "../runtime/exec.js";
import { reduceErrorLine } from "../runtime/pull-errors.js";
import type { EventRecorder } from "../events/recorder.js";
import { toInvolvedObject, type InvolvedObject } from "../events/types.js";
import type { ImageManager } from "../images/manager.js";
import type { PullPolicy } from "../images/policy.js";
import type { ContainerRuntime, ImageInfo } from "../runtime/types.js";
import { buildContainerSpec, buildSandboxSpec, type ContainerKind } from "./container-spec.js";
import { HookError, runLifecycleHandler } from "./hooks.js";
import type { PodIdentity } from "./identity.js";

// The kubelet's SyncPod for a new pod, in its order (kubelet.md §7, §10): the sandbox, then each
// init container to a zero exit, one at a time, then the app containers, each pull → create →
// start → postStart. App containers are independent and go concurrently; the events of one
// container stay in order because its steps are sequential. A failure anywhere undoes this run.

export interface StartPodDeps {
  runtime: ContainerRuntime;
  recorder: Pick<EventRecorder, "event">;
  images: ImageManager;
}

export interface StartPodOptions {
  pod: Pod;
  identity: PodIdentity;
  infraImage: string;
  publishAll: boolean;
  /** Lines of an init container's log shown when it fails. */
  logTail?: number;
  /** False in dry-run mode: an httpGet or sleep hook is an action, not an engine command. */
  runHooks?: boolean;
  /** The pod's images as `inspectPodImages` found them, when the caller already asked. */
  presentImages?: Promise<Map<string, ImageInfo>>;
}

/** Every image of the pod (the infra image unless hostNetwork), inspected in one engine call. */
export function inspectPodImages(runtime: ContainerRuntime, pod: Pod, infraImage: string): Promise<Map<string, ImageInfo>> {
  const containers = [...(pod.spec!.initContainers ?? []), ...pod.spec!.containers];
  const images = [...(pod.spec!.hostNetwork ? [] : [infraImage]), ...containers.map((c) => c.image!)];
  return runtime.inspectImages(uniqueImages(images));
}

export interface StartedPod {
  sandboxId?: string;
  /** Runtime IDs of everything this run created, in creation order (sandbox excluded). */
  containerIds: string[];
  /** The pod's containers in start order (init first), by Kubernetes name, with their runtime IDs. */
  containers: { name: string; id: string; kind: ContainerKind }[];
  initContainers: number;
  appContainers: number;
}

/** A failed start, carrying what was created so that the caller can undo it. */
export class StartPodError extends PodrunError {
  constructor(
    cause: PodrunError,
    readonly created: { sandbox?: string; containerIds: string[] },
  ) {
    super(cause.reason, cause.message, { cause, ...(cause.details ? { details: cause.details } : {}) });
  }
}

export async function startPod(deps: StartPodDeps, options: StartPodOptions): Promise<StartedPod> {
  const { pod, identity } = options;
  const spec = pod.spec!;
  const created: { sandbox?: string; containerIds: string[] } = { containerIds: [] };
  const podObject = toInvolvedObject(identity);
  const emit = (object: InvolvedObject, type: "Normal" | "Warning", reason: string, message: string) =>
    deps.recorder.event(object, type, reason, message);
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

    let sandboxId: string | undefined;
    // The sandbox starts (network setup: the slowest step) while containers are pulled and
    // created in it; each container's start waits for it, so the kubelet's order holds.
    let sandboxStarted: Promise<void> = Promise.resolve();
    if (!hostNetwork) {
      const sandbox = buildSandboxSpec({ pod, identity, infraImage: options.infraImage, publishAll: options.publishAll });
      const infraRef = await deps.images.ensureImageExists({ object: podObject, image: options.infraImage, pullPolicy: "IfNotPresent", present, inspectError });
      const sandboxFailed = (error: unknown): never => {
        const message = `Failed to create pod sandbox: ${describe(error)}`;
        emit(podObject, "Warning", "FailedCreatePodSandBox", message);
        throw new PodrunError("FailedCreatePodSandBox", message, { cause: error });
      };
      sandboxId = await deps.runtime.createSandbox({ ...sandbox, image: infraRef }).catch(sandboxFailed);
      created.sandbox = sandbox.name;
      sandboxStarted = deps.runtime.startSandbox(sandbox.name).catch(sandboxFailed);
      sandboxStarted.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    }
    // Only an httpGet hook needs the pod's address: ask the engine once, and only then.
    let podIP: Promise<string> | undefined;
    const resolvePodIP = () =>
      (podIP ??= sandboxId === undefined
        ? Promise.resolve("127.0.0.1")
        : deps.runtime.inspectContainers([sandboxId]).then((states) => states[0]?.ip || "127.0.0.1"));

    const startOne = async (container: Container, kind: ContainerKind): Promise<string> => {
      const target = toInvolvedObject(identity, { name: container.name, init: kind === "init" });
      const fail = (reason: PodrunError["reason"], message: string, cause?: unknown): never => {
        throw new PodrunError(reason, `container ${container.name}: ${message}`, { cause });
      };

      let imageRef: string;
      try {
        imageRef = await deps.images.ensureImageExists({ object: target, image: container.image!, pullPolicy: container.imagePullPolicy as PullPolicy, present, inspectError });
      } catch (error) {
        if (!(error instanceof PodrunError)) throw error;
        emit(target, "Warning", "Failed", `Error: ${error.reason}`);
        return fail(error.reason, error.message, error);
      }

      let id: string;
      try {
        id = await deps.runtime.createContainer(buildContainerSpec({ pod, identity, container, kind, imageRef }));
      } catch (error) {
        if (error instanceof PodrunError) {
          emit(target, "Warning", "Failed", `Error: ${error.reason}`);
          return fail(error.reason, error.message, error);
        }
        emit(target, "Warning", "Failed", `Error: ${describe(error)}`);
        return fail("CreateContainerError", describe(error), error);
      }
      created.containerIds.push(id);
      emit(target, "Normal", "Created", `Created container: ${container.name}`);

      await sandboxStarted;
      try {
        await deps.runtime.startContainer(id);
      } catch (error) {
        emit(target, "Warning", "Failed", `Error: ${describe(error)}`);
        return fail("RunContainerError", describe(error), error);
      }
      emit(target, "Normal", "Started", `Started container ${container.name}`);

      const postStart = container.lifecycle?.postStart;
      if (postStart && options.runHooks !== false) {
        try {
          const address = postStart.httpGet && !postStart.httpGet.host ? await resolvePodIP() : "127.0.0.1";
          await runLifecycleHandler(postStart, { runtime: deps.runtime, containerId: id, container, podIP: address, timeoutMs: hookTimeoutMs(pod) });
        } catch (error) {
          // The kubelet's fixed text: the hook's own output may hold secrets.
          emit(target, "Warning", "FailedPostStartHook", "PostStartHook failed");
          emit(target, "Normal", "Killing", "FailedPostStartHook");
          await deps.runtime.stopContainer(id, 0).catch(() => undefined);
          return fail("PostStartHookError", `postStart hook failed: ${error instanceof HookError ? error.message : describe(error)}`, error);
        }
      }
      return id;
    };

    const containers: StartedPod["containers"] = [];
    // Init containers: one at a time, each to a zero exit before the next (kubelet.md §10).
    for (const container of spec.initContainers ?? []) {
      const id = await startOne(container, "init");
      containers.push({ name: container.name, id, kind: "init" });
      const exitCode = await deps.runtime.waitContainer(id);
      if (exitCode !== 0) {
        const tail = (await deps.runtime.logs(id, { tail: options.logTail ?? 10 }).catch(() => "")).trimEnd();
        const details = tail ? `last log lines of init container ${container.name}:\n${indent(tail)}` : undefined;
        throw new PodrunError("InitContainerFailed", `init container ${container.name} exited with code ${exitCode}`, { details });
      }
    }

    // App containers are independent: every one is attempted, then the first failure is reported.
    const results = await Promise.allSettled(spec.containers.map((container) => startOne(container, "app")));
    await sandboxStarted; // its own failure first: it explains every container's
    const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failure) throw failure.reason;
    spec.containers.forEach((container, index) => containers.push({ name: container.name, id: (results[index] as PromiseFulfilledResult<string>).value, kind: "app" }));

    return { sandboxId, containerIds: created.containerIds, containers, initContainers: spec.initContainers?.length ?? 0, appContainers: spec.containers.length };
  } catch (error) {
    const cause = error instanceof PodrunError ? error : new PodrunError("RunContainerError", describe(error), { cause: error });
    throw new StartPodError(cause, created);
  }
}

/** Removes what a failed run created: containers (newest first), then the sandbox. */
export async function undoStart(runtime: ContainerRuntime, created: StartPodError["created"]): Promise<void> {
  if (created.containerIds.length > 0) await runtime.removeContainers([...created.containerIds].reverse());
  if (created.sandbox) await runtime.removeSandbox(created.sandbox);
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

function hookTimeoutMs(pod: Pod): number {
  const grace = pod.spec!.terminationGracePeriodSeconds ?? 30;
  return Math.max(1, grace) * 1000;
}

function describe(error: unknown): string {
  if (error instanceof CommandError) return reduceErrorLine(error.stderr.trim().split("\n")[0] ?? "") || error.shortMessage;
  return error instanceof Error ? error.message : String(error);
}

function indent(text: string): string {
  return text.split("\n").map((line) => `    ${line}`).join("\n");
}
