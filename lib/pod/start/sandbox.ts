import type { Pod } from "kubernetes-types/core/v1.js";
import { findPullCredentials, type AuthFileCredentials } from "../pull-credentials.js";
import { PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import type { ImageManager } from "../../images/manager.js";
import { isAbortError, throwIfAborted } from "../../process/abort.js";
import { describeError } from "../../runtime/engine-error.js";
import { isRequestTimeout } from "../../runtime/request-timeout.js";
import type { ContainerRuntime } from "../../runtime/types.js";
import { createOnClusterNetwork, type ClusterNetwork } from "../cluster-network.js";
import { completeHostsFile, type PodEtcFiles } from "../etc/etc-files.js";
import type { PodIdentity } from "../identity.js";
import { describeNameClashes, findPodNameClash } from "../reconcile/name-clash.js";
import { buildSandboxSpec } from "../spec/container-spec.js";
import { removeHalfMadeSandbox } from "../stop/half-made-sandbox.js";
import type { PodImages } from "./start-container.js";
import type { StartPlan } from "./start-plan.js";
import type { UndoLog } from "./undo-log.js";

// The pod's sandbox as the start sees it: made anew (the kubelet's createPodSandbox), kept, or
// none (the host's network). Its start (network setup: the slowest step) runs while containers
// are pulled and created in it; each container's start waits for `started`.

/** The one sandbox handle every step of a start reads. */
export interface SandboxHandle {
  /** The infra container's ID; undefined without a sandbox of the pod's own. */
  readonly id: string | undefined;
  readonly hostNetwork: boolean;
  /** Settles once the sandbox runs (and its hosts file is complete). */
  readonly started: Promise<void>;
  /** Whether `started` has resolved: a container can then be created and started in one call. */
  running(): boolean;
  /** The sandbox's IP, asked of the engine once, and only when something needs it. */
  ip(): Promise<string | undefined>;
}

export interface SandboxOptions {
  pod: Pod;
  identity: PodIdentity;
  infraImage: string;
  publishAll: boolean;
  cluster?: ClusterNetwork | undefined;
  podHash: string;
  authFile?: AuthFileCredentials | undefined;
  images: PodImages;
  /** With `copied`: copies the completed hosts file where the engine reads it (pod-disk.ts), when it does not see this host's. */
  etcFiles?: (PodEtcFiles & { copied?: () => Promise<void> }) | undefined;
  signal?: AbortSignal | undefined;
}

type SandboxDeps = { runtime: ContainerRuntime; recorder: Pick<EventRecorder, "event">; images: ImageManager };

/** The plan's sandbox: made and starting, kept, or none; the pod's hosts file completed once it runs. */
export async function ensureSandbox(
  deps: SandboxDeps,
  plan: Pick<StartPlan, "sandbox" | "hostNetwork" | "completeHostsFile">,
  options: SandboxOptions,
  undo: UndoLog,
): Promise<SandboxHandle> {
  const made = plan.sandbox.action === "create" ? await makeSandbox(deps, options, undo) : undefined;
  const id = made?.id ?? (plan.sandbox.action === "keep" ? plan.sandbox.id : undefined);
  let ip: Promise<string | undefined> | undefined;
  const findIP = () =>
    (ip ??=
      id === undefined
        ? Promise.resolve(undefined)
        : deps.runtime.inspectContainers([id]).then((states) => states[0]?.ip || undefined));
  let started = made?.started ?? Promise.resolve();
  // The kubelet writes the pod's line in /etc/hosts once the pod has its IP: before any container starts.
  const { etcFiles } = options;
  if (etcFiles && plan.completeHostsFile) {
    // An IP the engine cannot tell leaves the pod's own line out of the file (hostsFileContent): the start goes on.
    started = started.then(async () => {
      await completeHostsFile(etcFiles, options.pod, options.identity, await findIP().catch(() => undefined));
      await etcFiles.copied?.();
    });
    started.catch(() => undefined); // awaited by every start; a failure must not go unhandled meanwhile
  }
  let running = made === undefined;
  started.then(
    () => (running = true),
    () => undefined, // a failed start stays not running; each container's start awaits `started` and reports it
  );
  return { id, hostNetwork: plan.hostNetwork, started, running: () => running, ip: findIP };
}

/** The pod's IP for an httpGet hook without a host: the sandbox's, else the loopback. */
export const resolvePodIP = (sandbox: SandboxHandle): Promise<string> => sandbox.ip().then((ip) => ip ?? "127.0.0.1");

/** The pod's IP for a probe: the loopback with the host's network, else the sandbox's (empty when unknown). */
// Unknown includes an inspect that failed: resolveProbeAddress then uses a hostPort, or the probe errors (Unhealthy).
export const resolveProbeIP = async (sandbox: SandboxHandle): Promise<string> =>
  sandbox.hostNetwork ? "127.0.0.1" : ((await sandbox.ip().catch(() => undefined)) ?? "");

/** Pulls the infra image, creates the sandbox (a half-made one of the pod's own is made anew), and starts it. */
async function makeSandbox(
  deps: SandboxDeps,
  options: SandboxOptions,
  undo: UndoLog,
): Promise<{ id: string; started: Promise<void> }> {
  const { runtime } = deps;
  const podObject = toInvolvedObject(options.identity);
  const sandbox = buildSandboxSpec(options);
  // The sandbox image is the node's business, not the pod's: its pull secrets are not used for
  // it (the kubelet's runtime pulls it with the node's own credentials), only the auth file.
  const infraRef = await deps.images.ensureImageExists({
    object: podObject,
    image: options.infraImage,
    pullPolicy: "IfNotPresent",
    ...options.images,
    pullCredentials: () => findPullCredentials({ authFile: options.authFile, image: options.infraImage }),
  });
  throwIfAborted(options.signal);
  const entry = undo.begin("sandbox", sandbox.name);
  const sandboxFailed = (error: unknown): never => {
    // One that did not answer (or was cut off) may be made yet: it stays in the log, by name.
    if (!isRequestTimeout(error) && !options.signal?.aborted && !isAbortError(error)) undo.abandon(entry);
    const clash = findPodNameClash(describeError(error), sandbox.name);
    if (clash) throw new PodrunError("NameConflict", describeNameClashes([clash], runtime.binary), { cause: error });
    const message = `Failed to create pod sandbox: ${describeError(error)}`;
    deps.recorder.event(podObject, "Warning", "FailedCreatePodSandBox", message);
    throw new PodrunError("FailedCreatePodSandBox", message, { cause: error });
  };
  const create = (cluster: ClusterNetwork | undefined) =>
    runtime.createSandbox({
      ...sandbox,
      image: infraRef,
      ...(sandbox.network && cluster?.id ? { network: { ...sandbox.network, id: cluster.id } } : {}),
    });
  // What a failed create may meet besides its network (createOnClusterNetwork): the pod's own
  // sandbox, half made by a killed run (half-made-sandbox.ts), removed and made anew.
  const recover = async (error: unknown): Promise<boolean> =>
    findPodNameClash(describeError(error), sandbox.name) !== undefined &&
    (await removeHalfMadeSandbox(runtime, options.identity));
  const cluster = sandbox.network ? options.cluster : undefined;
  const id = await createOnClusterNetwork(runtime, cluster, create, recover).catch(sandboxFailed);
  undo.made(entry);
  const started = runtime.startSandbox(sandbox.name).catch(sandboxFailed);
  started.catch(() => undefined); // awaited by every start; a failure must not go unhandled meanwhile
  return { id, started };
}
