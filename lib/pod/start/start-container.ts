import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { findPullCredentials, type AuthFileCredentials } from "../pull-credentials.js";
import { isProgrammingError, PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject, type InvolvedObject } from "../../events/types.js";
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
import type { PodObjects } from "../../manifest/pod-objects.js";
import { isWithin, resolveMountSources, toEngineSources, type MountSourceContext } from "../volumes/mount-sources.js";
import { withTerminationLog } from "../volumes/termination-log.js";
import { readFile, realpath } from "node:fs/promises";
import { join } from "node:path";
import { fileKeyRefsOf } from "../spec/env-file.js";
import { readFromEngine, readsThroughEngine } from "../volumes/engine-files.js";
import { volumeRuntimeName } from "../volumes/volume-plan.js";
import {
  envFileKey,
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
import { resolvePodIP, type SandboxHandle } from "./sandbox.js";
import type { Making, UndoLog } from "./undo-log.js";

// One container of a pod, the kubelet's startContainer (pkg/kubelet/kuberuntime/kuberuntime_container.go): image → create → start →
// postStart, each step one event, a failure one PodrunError named after the kubelet's reason
// (failContainer, the one catch path). start-pod.ts decides when each container goes; this module only does one.

type StepDeps = { runtime: ContainerRuntime; recorder: Pick<EventRecorder, "event">; images: ImageManager };

/** The pod every container of one start belongs to. */
export interface PodParts {
  pod: Pod;
  identity: PodIdentity;
  /** The ConfigMaps and Secrets the pod's env and volumes may read. */
  objects: PodObjects;
  /** The pod hash label every container carries (container-spec.ts computePodHash). */
  podHash: string;
}

/** Local images, from one inspect for the whole pod, or the error that inspect gave. */
export interface PodImages {
  present: ReadonlyMap<string, ImageInfo>;
  inspectError: unknown;
}

/** What the containers mount (pod-disk.ts). */
export interface PodMounts {
  /** Settles when the pod's volumes exist: a create waits for it. */
  ready: Promise<void>;
  /** Where bind mounts find their host paths (mount-sources.ts). */
  sources: MountSourceContext;
  /** The pod's /etc/hosts and resolv.conf (lib/pod/etc/etc-files.ts), mounted into every container; absent without a state directory. */
  etcFiles?: PodEtcFiles;
}

/** What every container of one startPod shares. */
export interface ContainerStepContext {
  deps: StepDeps;
  pod: PodParts;
  images: PodImages;
  /** `--authfile` / `$REGISTRY_AUTH_FILE`, read once per run: credentials after the pod's pull secrets. */
  authFile?: AuthFileCredentials | undefined;
  mounts: PodMounts;
  sandbox: SandboxHandle;
  runHooks: boolean;
  /** `up --dry-run`: nothing runs, so no env file is there to read. */
  dryRun?: boolean;
  signal?: AbortSignal | undefined;
  undo: UndoLog;
  /** A container made anew after a liveness failure: its restart count (lib/pod/readiness/liveness.ts). */
  restartCount?: number;
}

type Step = "pull" | "config" | "create" | "start" | "postStart";

/** One container's run: the step under way (undefined between steps: a throw there goes on as it is). */
interface ContainerRun {
  container: Container;
  target: InvolvedObject;
  step?: Step | undefined;
  env?: ContainerEnv;
  /** The create under way, in the undo log. */
  making?: Making;
  id?: string;
}

/** Starts one container; resolves with its runtime ID. Between steps, an aborted signal throws AbortError. */
export async function startContainer(
  context: ContainerStepContext,
  container: Container,
  kind: ContainerKind,
): Promise<string> {
  const { signal } = context;
  const target = toInvolvedObject(context.pod.identity, { name: container.name, init: kind !== "app" });
  const run: ContainerRun = { container, target };
  const emit = (reason: string, message: string) => context.deps.recorder.event(target, "Normal", reason, message);
  try {
    throwIfAborted(signal);
    run.step = "pull";
    const imageRef = await pullImage(context, container, target);
    run.step = undefined;
    await context.mounts.ready;
    const spec = await configureContainer(context, run, kind, imageRef);
    // Once the sandbox runs (init containers, sidecars, a kept pod's containers), one `run` makes
    // and starts the container: the kubelet's create and start, and their events, in one engine
    // call. Before that, the container is made now and started once the sandbox is up.
    const startNow = context.sandbox.running();
    run.step = "create";
    run.making = context.undo.begin("container", spec.name); // an interrupted run removes it by this name
    const id = (run.id = await context.deps.runtime.createContainer(spec, startNow ? { start: true } : {}));
    context.undo.made(run.making, id);
    emit("Created", `Created container: ${container.name}`);
    if (!startNow) {
      run.step = undefined;
      await context.sandbox.started;
      throwIfAborted(signal);
      run.step = "start";
      await context.deps.runtime.startContainer(id);
    }
    emit("Started", `Started container ${container.name}`);
    run.step = "postStart";
    await runPostStart(context, container, id);
    return id;
  } catch (error) {
    return failContainer(context, run, error);
  }
}

/** The image, by the pod's pull policy and credentials (lib/images/manager.ts). */
function pullImage(context: ContainerStepContext, container: Container, target: InvolvedObject): Promise<string> {
  const { pod, objects } = context.pod;
  return context.deps.images.ensureImageExists({
    object: target,
    image: container.image!,
    pullPolicy: container.imagePullPolicy as PullPolicy,
    ...context.images,
    pullCredentials: () => findPullCredentials({ pod, objects, authFile: context.authFile, image: container.image! }),
  });
}

/**
 * The kubelet's generateContainerConfig: the environment (a reference that does not resolve
 * fails here, before create), runAsNonRoot against the image's USER, then the mounts.
 */
async function configureContainer(
  context: ContainerStepContext,
  run: ContainerRun,
  kind: ContainerKind,
  imageRef: string,
): Promise<ReturnType<typeof buildContainerSpec>> {
  const { signal } = context;
  const { pod, identity, objects, podHash } = context.pod;
  const { container } = run;
  throwIfAborted(signal);
  run.step = "config";
  const env = (run.env = await resolveRunEnv(context, container));
  run.step = undefined;
  for (const skipped of env.skipped)
    context.deps.recorder.event(toInvolvedObject(identity), "Warning", skipped.reason, skipped.message);
  throwIfAborted(signal);
  run.step = "config";
  await checkRunAsNonRoot(context, container, imageRef);
  run.step = undefined;
  throwIfAborted(signal);
  const spec = buildContainerSpec({
    pod,
    identity,
    container,
    kind,
    imageRef,
    podHash,
    objects,
    env: env.env,
    secretNames: env.secretNames,
  });
  if (context.restartCount) spec.labels[LABEL_RESTART_COUNT] = String(context.restartCount); // after the hashes: the spec is the same
  const { sources, etcFiles } = context.mounts;
  if (spec.mounts?.some((mount) => mount.bind)) {
    // subPathExpr sees the container's whole environment, as built just above.
    run.step = "config";
    spec.mounts = await resolveMountSources(spec.mounts, {
      env: spec.env ?? [],
      container: container.name,
      context: sources,
    });
    run.step = undefined;
    throwIfAborted(signal);
  }
  const mounts = await withTerminationLog(spec.mounts ?? [], container, {
    podDir: sources.podDir,
    touchDisk: sources.touchDisk,
  });
  if (mounts.length > 0) spec.mounts = mounts;
  if (etcFiles) spec.mounts = withEtcFileMounts(spec.mounts, etcFiles);
  // An engine that does not see this host's files binds their copies on its host (engine-files.ts).
  if (spec.mounts && sources.engineDir !== undefined) spec.mounts = toEngineSources(spec.mounts, sources);
  return spec;
}

async function checkRunAsNonRoot(context: ContainerStepContext, container: Container, imageRef: string): Promise<void> {
  const { pod, identity } = context.pod;
  const image = needsImageUser(pod.spec!, container)
    ? await inspectImageUser(context.deps.runtime, imageRef)
    : { user: undefined };
  // Not listed: a dry run, which inspects nothing (a real run has just ensured the image).
  if (image) verifyRunAsNonRoot({ spec: pod.spec!, container, identity, imageUser: image.user });
}

async function runPostStart(context: ContainerStepContext, container: Container, id: string): Promise<void> {
  const postStart = container.lifecycle?.postStart;
  if (!postStart || !context.runHooks) return;
  const address = postStart.httpGet && !postStart.httpGet.host ? await resolvePodIP(context.sandbox) : "127.0.0.1";
  await runLifecycleHandler(postStart, {
    runtime: context.deps.runtime,
    containerId: id,
    container,
    podIP: address,
    timeoutMs: hookTimeoutMs(context.pod.pod),
  });
}

/** The one catch path of startContainer: the step that failed says which event and which reason. */
async function failContainer(context: ContainerStepContext, run: ContainerRun, error: unknown): Promise<never> {
  const { step, container } = run;
  const emit = (type: "Normal" | "Warning", reason: string, message: string) =>
    context.deps.recorder.event(run.target, type, reason, message);
  const raise = (reason: PodrunError["reason"], message: string, cause: unknown): never => {
    throw new PodrunError(reason, `container ${container.name}: ${message}`, { cause });
  };
  const fail = (reason: PodrunError["reason"], message: string, cause: unknown): never => {
    emit("Warning", "Failed", `Error: ${message}`);
    return raise(reason, message, cause);
  };
  if (step === undefined) throw error;
  if (step === "pull" || step === "config") {
    if (!(error instanceof PodrunError)) throw error;
    emit("Warning", "Failed", `Error: ${step === "pull" ? error.reason : error.message}`);
    return raise(error.reason, error.message, error);
  }
  if (step === "postStart") {
    // The kubelet's fixed text: the hook's own output may hold secrets.
    emit("Warning", "FailedPostStartHook", "PostStartHook failed");
    emit("Normal", "Killing", "FailedPostStartHook");
    await context.deps.runtime.stopContainer(run.id!, 0).catch(() => undefined); // the hook's failure is the one reported
    return raise(
      "PostStartHookError",
      `postStart hook failed: ${error instanceof HookError ? error.message : describeError(error)}`,
      error,
    );
  }
  throwIfAborted(context.signal);
  // One that did not answer may be made yet: the undo log keeps its name (undo-log.ts).
  if (step === "create" && !isRequestTimeout(error)) context.undo.abandon(run.making!);
  if (isProgrammingError(error)) throw error; // a bug: start-pod.ts reports it as one
  if (step === "start") return fail("RunContainerError", describeError(error), error);
  if (error instanceof ContainerNotStartedError) {
    context.undo.madeContainer(error.id);
    if (isProgrammingError(error.cause)) throw error.cause;
    emit("Normal", "Created", `Created container: ${container.name}`);
    return fail("RunContainerError", describeError(error.cause), error.cause);
  }
  if (error instanceof PodrunError) {
    emit("Warning", "Failed", `Error: ${error.reason}`);
    return raise(error.reason, error.message, error);
  }
  return fail("CreateContainerError", hideSecretValues(describeError(error), run.env!), error);
}

/**
 * The container's environment for this run. Pod fields are looked up only when the env reads
 * one; the pod's IP only when it reads status.podIP(s), once the sandbox runs (with the host's
 * network, the pod's IP is the host's).
 */
async function resolveRunEnv(context: ContainerStepContext, container: Container): Promise<ContainerEnv> {
  const { pod, identity, objects } = context.pod;
  const hostIPs = usesPodFields(container) ? readHostIPs() : [];
  let podIPs: string[] = [];
  if (usesPodIP(container)) {
    if (pod.spec!.hostNetwork) podIPs = hostIPs;
    else {
      await context.sandbox.started;
      podIPs = [await resolvePodIP(context.sandbox)];
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
  const envFiles = await readEnvFiles(context, container);
  return resolveContainerEnv({ pod, container, objects, fields, node, envFiles });
}

/**
 * The env files the container's fileKeyRefs name, read from their emptyDir's engine volume now
 * (its init containers have run): on this host through the volume's directory, or through the
 * engine where podrun cannot read it here (an engine that does not see this host's disk; a
 * podrun not run as root, which may not read a rootful engine's volumes). A file that cannot be
 * read is undefined: the container then fails as the kubelet's does ("couldn't parse env file").
 */
async function readEnvFiles(
  context: ContainerStepContext,
  container: Container,
): Promise<Map<string, Buffer | undefined> | "unread" | undefined> {
  const refs = fileKeyRefsOf(container);
  if (refs.length === 0) return undefined;
  if (context.dryRun) return "unread";
  const { runtime } = context.deps;
  const { identity } = context.pod;
  const { sources } = context.mounts;
  const throughEngine = readsThroughEngine(runtime.files);
  const files = new Map<string, Buffer | undefined>();
  for (const ref of refs) {
    const key = envFileKey(ref);
    if (files.has(key)) continue;
    const volume = volumeRuntimeName(identity, ref.volumeName);
    const read = throughEngine
      ? readFromEngine(runtime, volume, [ref.path.replace(/^\/+/, "")]).then((found) => [...found.values()][0])
      : sources.mountpoint(volume).then((dir) => readInside(dir, ref.path));
    files.set(key, await read.catch(() => undefined));
  }
  return files;
}

/** A file of a volume's directory, refused when a symbolic link leads it out (the kubelet's securejoin). */
async function readInside(dir: string, path: string): Promise<Buffer> {
  const root = await realpath(dir);
  const file = await realpath(join(root, path));
  if (!isWithin(root, file)) throw new Error(`${path} leads out of the volume`);
  return readFile(file);
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
