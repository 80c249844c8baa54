import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { findPullCredentials, type AuthFileCredentials } from "../../credentials/pod-credentials.js";
import { isProgrammingError, PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import type { ImageManager } from "../../images/manager.js";
import type { PullPolicy } from "../../images/policy.js";
import { throwIfAborted } from "../../process/abort.js";
import {
  ContainerNotStartedError,
  LABEL_RESTART_COUNT,
  type ContainerRuntime,
  type ImageInfo,
} from "../../runtime/types.js";
import { buildContainerSpec, type ContainerKind } from "../spec/container-spec.js";
import { DEFAULT_HOOK_TIMEOUT_MS, HookError, runLifecycleHandler } from "../hooks.js";
import type { PodIdentity } from "../identity.js";
import type { PodObjects } from "../spec/pod-objects.js";
import { resolveMountSources, type MountSourceContext } from "../volumes/mount-sources.js";
import { withTerminationLog } from "../volumes/termination-log.js";
import {
  NO_CAPACITY,
  resolveContainerEnv,
  usesPodFields,
  usesPodIP,
  usesResources,
  type ContainerEnv,
} from "../spec/container-env.js";
import { readHostIPs, readNodeCapacity, readNodeName, type PodFieldContext } from "../spec/field-ref.js";
import { describeError } from "../../runtime/engine-error.js";
import { isRequestTimeout } from "../../runtime/request-timeout.js";
import { needsImageUser, verifyRunAsNonRoot } from "../spec/security-context.js";
import { withEtcFileMounts, type PodEtcFiles } from "../etc/etc-files.js";

// One container of a pod, the kubelet's startContainer (pkg/kubelet/kuberuntime/kuberuntime_container.go): image → create → start →
// postStart, each step one event, a failure one PodrunError named after the kubelet's reason.
// start-pod.ts decides when each container goes; this module only does one.

/** What every container of one startPod shares. */
export interface ContainerStepContext {
  runtime: ContainerRuntime;
  recorder: Pick<EventRecorder, "event">;
  images: ImageManager;
  pod: Pod;
  /** The ConfigMaps and Secrets the pod's env and volumes may read. */
  objects: PodObjects;
  /** `--authfile` / `$REGISTRY_AUTH_FILE`, read once per run: credentials after the pod's pull secrets. */
  authFile?: AuthFileCredentials;
  identity: PodIdentity;
  /** The pod hash label every container carries (container-spec.ts computePodHash). */
  podHash: string;
  /** Local images, from one inspect for the whole pod, or the error that inspect gave. */
  present: ReadonlyMap<string, ImageInfo>;
  inspectError: unknown;
  /** Settles when the pod's volumes exist: a create waits for it. */
  volumesReady: Promise<void>;
  /** Where bind mounts find their host paths (mount-sources.ts); absent: the pod has no bind mount to resolve. */
  mountSources?: MountSourceContext;
  /** The pod's /etc/hosts and resolv.conf (lib/pod/etc/etc-files.ts), mounted into every container; absent without a state directory. */
  etcFiles?: PodEtcFiles;
  /** Settles when the sandbox runs: a start waits for it. */
  sandboxStarted: Promise<void>;
  /** Whether sandboxStarted has resolved: a container can then be created and started in one call. */
  sandboxRunning: () => boolean;
  /** The pod's IP, for an httpGet hook without a host (asked once, lazily). */
  resolvePodIP: () => Promise<string>;
  runHooks: boolean;
  signal?: AbortSignal;
  /** What this run made, for undoing: IDs once created, runtime names while `create` runs. */
  created: { containerIds: string[]; creating: Set<string> };
  /** A container made anew after a liveness failure: its restart count (lib/readiness/liveness.ts). */
  restartCount?: number;
}

/** Starts one container; resolves with its runtime ID. Between steps, an aborted signal throws AbortError. */
export async function startContainer(
  context: ContainerStepContext,
  container: Container,
  kind: ContainerKind,
): Promise<string> {
  const { runtime, pod, identity, signal } = context;
  const target = toInvolvedObject(identity, { name: container.name, init: kind !== "app" });
  const emit = (type: "Normal" | "Warning", reason: string, message: string) =>
    context.recorder.event(target, type, reason, message);
  const fail = (reason: PodrunError["reason"], message: string, cause?: unknown): never => {
    throw new PodrunError(reason, `container ${container.name}: ${message}`, { cause });
  };

  throwIfAborted(signal);
  let imageRef: string;
  try {
    imageRef = await context.images.ensureImageExists({
      object: target,
      image: container.image!,
      pullPolicy: container.imagePullPolicy as PullPolicy,
      present: context.present,
      inspectError: context.inspectError,
      pullCredentials: () =>
        findPullCredentials({ pod, objects: context.objects, authFile: context.authFile, image: container.image! }),
    });
  } catch (error) {
    if (!(error instanceof PodrunError)) throw error;
    emit("Warning", "Failed", `Error: ${error.reason}`);
    return fail(error.reason, error.message, error);
  }

  await context.volumesReady;
  throwIfAborted(signal);
  // The kubelet's generateContainerConfig: a reference that does not resolve fails here, before create.
  let env: ContainerEnv;
  try {
    env = await resolveRunEnv(context, container);
  } catch (error) {
    if (!(error instanceof PodrunError)) throw error;
    emit("Warning", "Failed", `Error: ${error.message}`);
    return fail(error.reason, error.message, error);
  }
  for (const skipped of env.skipped)
    context.recorder.event(toInvolvedObject(identity), "Warning", skipped.reason, skipped.message);
  throwIfAborted(signal);
  // The kubelet's generateContainerConfig checks runAsNonRoot next, against the image's USER.
  try {
    const image = needsImageUser(pod.spec!, container)
      ? await inspectImageUser(runtime, imageRef)
      : { user: undefined };
    // Not listed: a dry run, which inspects nothing (a real run has just ensured the image).
    if (image) verifyRunAsNonRoot({ spec: pod.spec!, container, identity, imageUser: image.user });
  } catch (error) {
    if (!(error instanceof PodrunError)) throw error;
    emit("Warning", "Failed", `Error: ${error.message}`);
    return fail(error.reason, error.message, error);
  }
  throwIfAborted(signal);
  const spec = buildContainerSpec({
    pod,
    identity,
    container,
    kind,
    imageRef,
    podHash: context.podHash,
    objects: context.objects,
    env: env.env,
    secretNames: env.secretNames,
  });
  if (context.restartCount) spec.labels[LABEL_RESTART_COUNT] = String(context.restartCount); // after the hashes: the spec is the same
  if (spec.mounts?.some((mount) => mount.bind) && context.mountSources) {
    // subPathExpr sees the container's whole environment, as built just above.
    try {
      spec.mounts = await resolveMountSources(spec.mounts, {
        env: spec.env ?? [],
        container: container.name,
        context: context.mountSources,
      });
    } catch (error) {
      if (!(error instanceof PodrunError)) throw error;
      emit("Warning", "Failed", `Error: ${error.message}`);
      return fail(error.reason, error.message, error);
    }
    throwIfAborted(signal);
  }
  const mounts = await withTerminationLog(spec.mounts ?? [], container, {
    podDir: context.mountSources?.podDir,
    touchDisk: context.mountSources?.touchDisk === true,
  });
  if (mounts.length > 0) spec.mounts = mounts;
  if (context.etcFiles) spec.mounts = withEtcFileMounts(spec.mounts, context.etcFiles);
  let id: string;
  // Once the sandbox runs (init containers, sidecars, a kept pod's containers), one `run` makes
  // and starts the container: the kubelet's create and start, and their events, in one engine
  // call. Before that, the container is made now and started once the sandbox is up.
  const startNow = context.sandboxRunning();
  // While `create` runs, only the name is known: an interrupted run removes the container by it.
  context.created.creating.add(spec.name);
  try {
    id = await runtime.createContainer(spec, startNow ? { start: true } : {});
  } catch (error) {
    throwIfAborted(signal);
    // One that did not answer may be made yet: start-pod.ts then removes it by this name.
    if (!isRequestTimeout(error)) context.created.creating.delete(spec.name);
    if (isProgrammingError(error)) throw error; // a bug: start-pod.ts reports it as one
    if (error instanceof ContainerNotStartedError) {
      context.created.containerIds.push(error.id);
      if (isProgrammingError(error.cause)) throw error.cause;
      emit("Normal", "Created", `Created container: ${container.name}`);
      emit("Warning", "Failed", `Error: ${describeError(error.cause)}`);
      return fail("RunContainerError", describeError(error.cause), error.cause);
    }
    if (error instanceof PodrunError) {
      emit("Warning", "Failed", `Error: ${error.reason}`);
      return fail(error.reason, error.message, error);
    }
    const message = hideSecretValues(describeError(error), env);
    emit("Warning", "Failed", `Error: ${message}`);
    return fail("CreateContainerError", message, error);
  }
  context.created.containerIds.push(id);
  context.created.creating.delete(spec.name);
  emit("Normal", "Created", `Created container: ${container.name}`);

  if (!startNow) {
    await context.sandboxStarted;
    throwIfAborted(signal);
    try {
      await runtime.startContainer(id);
    } catch (error) {
      throwIfAborted(signal);
      if (isProgrammingError(error)) throw error;
      emit("Warning", "Failed", `Error: ${describeError(error)}`);
      return fail("RunContainerError", describeError(error), error);
    }
  }
  emit("Normal", "Started", `Started container ${container.name}`);

  const postStart = container.lifecycle?.postStart;
  if (postStart && context.runHooks) {
    try {
      const address = postStart.httpGet && !postStart.httpGet.host ? await context.resolvePodIP() : "127.0.0.1";
      await runLifecycleHandler(postStart, {
        runtime,
        containerId: id,
        container,
        podIP: address,
        timeoutMs: hookTimeoutMs(pod),
      });
    } catch (error) {
      // The kubelet's fixed text: the hook's own output may hold secrets.
      emit("Warning", "FailedPostStartHook", "PostStartHook failed");
      emit("Normal", "Killing", "FailedPostStartHook");
      await runtime.stopContainer(id, 0).catch(() => undefined);
      return fail(
        "PostStartHookError",
        `postStart hook failed: ${error instanceof HookError ? error.message : describeError(error)}`,
        error,
      );
    }
  }
  return id;
}

/**
 * The container's environment for this run. Pod fields are looked up only when the env reads
 * one; the pod's IP only when it reads status.podIP(s), once the sandbox runs (with the host's
 * network, the pod's IP is the host's).
 */
async function resolveRunEnv(context: ContainerStepContext, container: Container): Promise<ContainerEnv> {
  const { pod, identity, objects } = context;
  const hostIPs = usesPodFields(container) ? readHostIPs() : [];
  let podIPs: string[] = [];
  if (usesPodIP(container)) {
    if (pod.spec!.hostNetwork) podIPs = hostIPs;
    else {
      await context.sandboxStarted;
      podIPs = [await context.resolvePodIP()];
    }
  }
  const fields: PodFieldContext = {
    pod,
    identity,
    nodeName: usesPodFields(container) ? readNodeName(pod) : "",
    hostIPs,
    podIPs,
  };
  const node = usesResources(container) ? readNodeCapacity() : NO_CAPACITY;
  return resolveContainerEnv({ pod, container, objects, fields, node });
}

// A failed create's message may quote its command line, which holds the value of any Secret that
// command or args reference: such values are put back as the `$(NAME)` they came from.
function hideSecretValues(message: string, env: ContainerEnv): string {
  const values = new Map(env.env.map((e) => [e.name, e.value]));
  let hidden = message;
  for (const name of env.secretNames) {
    const value = values.get(name);
    if (value) hidden = hidden.split(value).join(`$(${name})`);
  }
  return hidden;
}

// The kubelet gives a postStart hook no time limit of its own; podrun bounds it so that `up` cannot
// hang, by the grace period but never below DEFAULT_HOOK_TIMEOUT_MS: a short grace period (1 s in
// many test pods) is about stopping, and an exec on a busy engine can take longer than that.
function hookTimeoutMs(pod: Pod): number {
  const grace = pod.spec!.terminationGracePeriodSeconds ?? 30;
  return Math.max(DEFAULT_HOOK_TIMEOUT_MS, grace * 1000);
}

/** The image's USER, for the runAsNonRoot check; a failed inspect fails it as the kubelet's ImageStatus would. */
async function inspectImageUser(
  runtime: ContainerRuntime,
  imageRef: string,
): Promise<Pick<ImageInfo, "user"> | undefined> {
  try {
    return (await runtime.inspectImages([imageRef])).get(imageRef);
  } catch (error) {
    throw new PodrunError("CreateContainerConfigError", `inspecting image ${imageRef}: ${describeError(error)}`, {
      cause: error,
    });
  }
}
