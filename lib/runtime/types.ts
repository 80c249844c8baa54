import type { Duplex } from "node:stream";
import type { EngineLocation } from "./engine-location.js";
import type { RegistryCredential } from "../credentials/types.js";
import type { RuntimeName } from "./detect.js";
import type { ContainerSpec, NetworkInfo, SandboxSpec } from "./specs.js";
import type { AttachedOptions } from "./exec.js";

export type * from "./specs.js";
export type { AttachedOptions } from "./exec.js";

// The contract between podrun's pod logic and a container engine. One implementation,
// CliRuntime (cli-runtime.ts), drives docker, podman or nerdctl through their CLIs with a
// dialect table (dialects.ts); tests use fakes of this interface for pure logic only.

/** Labels every podrun container carries (the kubelet's four, plus podrun's own). */
export const LABEL_POD_NAME = "io.kubernetes.pod.name";
export const LABEL_POD_NAMESPACE = "io.kubernetes.pod.namespace";
export const LABEL_POD_UID = "io.kubernetes.pod.uid";
export const LABEL_CONTAINER_NAME = "io.kubernetes.container.name";
/** Marks what podrun created, so that cleanup never touches anything else. */
export const LABEL_MANAGED = "io.podrun.managed";
/** On every container of a pod made from a workload: `Deployment/web` (lib/workloads/expand.ts). */
export const LABEL_OWNER = "io.podrun.owner";
/** On podrun's relay container (relay.ts): the network it relays on. Not LABEL_MANAGED: it is no pod's. */
export const LABEL_RELAY = "io.podrun.relay";
/** On the one-off container that copies a pod's files into an engine that cannot see this host's disk (files-helper.ts). */
export const LABEL_FILES_HELPER = "io.podrun.files-helper";
/**
 * "init", "sidecar" (an init container with `restartPolicy: Always`) or "app": `ps` counts app
 * containers and sidecars in READY; `down` stops app containers first, then sidecars in reverse
 * init order, then init containers. `down POD` has no manifest: this label is all it has.
 */
export const LABEL_CONTAINER_KIND = "io.podrun.container.kind";
/** The kubelet's name for the sandbox (infra) container. */
export const INFRA_CONTAINER_NAME = "POD";
/** On an emptyDir's engine volume: the Kubernetes volume name (with the pod's three labels and LABEL_MANAGED). */
export const LABEL_VOLUME = "io.podrun.volume";
/**
 * The kubelet's annotations (pkg/kubelet/kuberuntime/labels.go), as labels since docker has no annotations: `down` of
 * a pod given by name knows its preStop hook (JSON) and grace period (seconds) from them.
 */
export const LABEL_PRESTOP_HANDLER = "io.kubernetes.container.preStopHandler";
export const LABEL_TERMINATION_GRACE_PERIOD = "io.kubernetes.pod.terminationGracePeriod";
/** The kubelet's annotation for terminationMessagePolicy: set only for FallbackToLogsOnError (lib/pod/termination-message.ts). */
export const LABEL_TERMINATION_MESSAGE_POLICY = "io.kubernetes.container.terminationMessagePolicy";
/**
 * The kubelet's restart count of a container made anew after a liveness failure (lib/pod/readiness/liveness.ts);
 * ContainerState.restartCount adds the engine's own restarts to it. Absent: 0.
 */
export const LABEL_RESTART_COUNT = "io.kubernetes.container.restartCount";

export interface ImageInfo {
  /** The engine's image ID (`sha256:…`). */
  id: string;
  /** Size in bytes, as the engine reports it. */
  size: number;
  /** The image's USER (`Config.User`: `uid`, `name`, `uid:gid`…); absent or empty: root. */
  user?: string;
}

/** A mount of the files helper (files-helper.ts): an engine volume, or a path of the engine's host. */
export interface HelperMount {
  type: "volume" | "bind";
  source: string;
  target: string;
  readOnly?: boolean;
}

/** An engine volume, as listVolumes finds it. */
export interface VolumeInfo {
  name: string;
  labels: Record<string, string>;
}

export interface ContainerState {
  id: string;
  name: string;
  /** created, running, exited, paused, restarting, removing, dead, configured (podman)… */
  status: string;
  running: boolean;
  exitCode: number;
  /** ISO time, or "" when it never started / finished. */
  startedAt: string;
  finishedAt: string;
  /** ISO creation time ("" when the engine does not say). */
  createdAt: string;
  /** How many times the engine restarted it under its restart policy, plus its LABEL_RESTART_COUNT. */
  restartCount: number;
  /** IP address in the pod's network, when the engine gives one. */
  ip?: string;
  labels: Record<string, string>;
  image: string;
  /** The named engine volumes it mounts (not binds nor tmpfs), when it mounts any. */
  volumes?: string[];
}

/** One line of a container's log. */
export interface LogLine {
  /** The container's stream that it was written to. */
  stream: "stdout" | "stderr";
  /** When the engine received it, RFC 3339 as the engine prints it (nanoseconds for docker and podman). */
  time: string;
  /** The line, without its line break. */
  text: string;
}

export interface LogStreamOptions {
  /** Keep reading until the container stops (or `signal` aborts). */
  follow?: boolean;
  /** Only the last `tail` lines (0 included); undefined: all of them. */
  tail?: number;
  /** Only lines the engine received from this time on. */
  since?: Date;
  /** Ends the stream quietly (Ctrl-C on a follow). */
  signal?: AbortSignal;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** One runtime command that ran (or, in dry-run mode, would have run). */
export interface RuntimeCommand {
  binary: string;
  args: string[];
  /** Environment the command gets on top of podrun's own (a pull's DOCKER_CONFIG), as printed. */
  env?: Record<string, string>;
}

export interface PullOptions {
  signal?: AbortSignal;
  /**
   * Registry credentials for this one pull, handed to the engine in a temporary file (never
   * argv, never a lasting environment). Absent: the engine uses the user's own login.
   */
  credential?: RegistryCredential;
}

/** What an engine can do that another cannot, for the pod logic to decide by (never by the engine's name). */
export interface RuntimeCapabilities {
  /**
   * "pod": the sandbox is a pod of the engine's own, which findPod finds and removeSandbox removes
   * with its containers (podman). "infra-container": a pause container the others join (docker, nerdctl).
   */
  readonly sandbox: "pod" | "infra-container";
  /** A container's own tmpfs (VolumeMount.tmpfsGroup) can be given to a group; else it stays group root. */
  readonly tmpfsGroup: boolean;
}

/**
 * A container engine, in engine-neutral terms. The contract every implementation keeps (and
 * test/runtime/contract.ts checks, on the fake and on each engine):
 * - a failure throws EngineError (lib/errors.ts), already explained: its `kind` says what went
 *   wrong (`not-found`, `conflict`, `timed-out`, `unavailable`, `canceled`, `failed`), its message
 *   is the line the user sees. A pull throws PullError instead, with the kubelet's classification;
 * - removing or stopping what is not there is success (removeContainers, removeSandbox, stopContainer,
 *   removeVolumes); inspecting it leaves it out (inspectContainers, inspectImages);
 * - starting or inspecting the mountpoint of what is not there throws EngineError `not-found`;
 * - creating a container, a sandbox or a volume under a name that is taken throws EngineError
 *   (`conflict` where the engine says so), and leaves the holder as it was;
 * - listings find by labels, every one of which must match, whoever made the object.
 */
export interface ContainerRuntime {
  readonly name: RuntimeName;
  readonly binary: string;
  /** The engine CLI's version when it was probed (detect.ts checks it against MINIMUM_VERSIONS); "" when not. */
  readonly version: string;
  readonly capabilities: RuntimeCapabilities;
  /** Local images among `refs`, inspected in one call; absent images are simply missing from the map. */
  inspectImages(refs: readonly string[]): Promise<Map<string, ImageInfo>>;
  /** Pulls one image; on failure throws PullError with the kubelet's classification, credentials scrubbed from it. */
  pullImage(ref: string, options?: PullOptions): Promise<ImageInfo>;
  /**
   * Creates the sandbox, without starting it: containers can already be created in it while it
   * starts (network setup is the slowest step of a pod). Returns an ID or name to inspect it by.
   */
  createSandbox(spec: SandboxSpec): Promise<string>;
  /** Starts the sandbox created as `name`; on failure (a host port in use…) removes it. */
  startSandbox(name: string): Promise<void>;
  /** Removes the sandbox and anything still in it; a missing sandbox is success. */
  removeSandbox(name: string): Promise<void>;
  /**
   * Creates a container and returns its ID. With `start`, starts it in the same engine call
   * (`run --detach`): one command fewer once the sandbox runs. A container made but not started
   * then throws ContainerNotStartedError, which carries its ID.
   */
  createContainer(spec: ContainerSpec, options?: { start?: boolean }): Promise<string>;
  startContainer(id: string): Promise<void>;
  /** Waits for the container to exit and returns its exit code. */
  waitContainer(id: string, options?: { signal?: AbortSignal }): Promise<number>;
  execInContainer(id: string, command: readonly string[], options?: { timeoutMs?: number }): Promise<ExecResult>;
  /**
   * Runs a command in a running container attached to the caller's streams (`podrun exec`): its
   * output copied as it comes, stdin streamed with `stdin`, a terminal with `tty`. Resolves with
   * the command's exit code (128 + N when signal N ended it).
   */
  execAttached(id: string, command: readonly string[], options: AttachedOptions): Promise<number>;
  /**
   * Copies a file or directory between a container and the host (`cp`, the same on the three
   * engines): `into` the container from `hostPath`, or out of it to `hostPath`. The engine's
   * failure (a path that is not there) is the answer, not a throw: its first line says why.
   */
  copyFiles(
    id: string,
    copy: { direction: "into" | "out"; containerPath: string; hostPath: string },
  ): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Sends the stop signal, then SIGKILL after `timeoutSeconds`. A missing container is success. */
  stopContainer(id: string, timeoutSeconds: number): Promise<void>;
  /** Force-removes containers; missing ones are success. */
  removeContainers(ids: readonly string[]): Promise<void>;
  /** Containers (running or not) carrying every one of `labels`. */
  listContainers(labels: Record<string, string>): Promise<ContainerState[]>;
  inspectContainers(ids: readonly string[]): Promise<ContainerState[]>;
  /**
   * Every container whose name starts with `prefix`, whoever made it, inspected: a pod's own
   * containers and whatever holds a name the pod may take, in one listing (`up` tells them apart
   * by their labels).
   */
  listContainersNamed(prefix: string): Promise<ContainerState[]>;
  /** The podman pod named exactly `name`; undefined when there is none, and on docker and nerdctl (no pods). */
  findPod(name: string): Promise<PodInfo | undefined>;
  /** The last `tail` lines of a container's output (stdout and stderr). */
  logs(id: string, options?: { tail?: number }): Promise<string>;
  /** Creates an engine volume (emptyDir) carrying `labels`; `group` where the engine takes it (else ignored). */
  createVolume(name: string, labels: Record<string, string>, options?: { group?: number }): Promise<void>;
  /** Removes volumes; missing ones are success, one in use by a container is an error. */
  removeVolumes(names: readonly string[]): Promise<void>;
  /** Volumes carrying every one of `labels`. */
  listVolumes(labels: Record<string, string>): Promise<VolumeInfo[]>;
  /**
   * The network `name`, made (a bridge with the engine's DNS, carrying `labels`, on the first of
   * the engine's cluster subnets that no other network holds: dialects.ts) when it is not there;
   * two runs making it at once both get the one network. Its `dnsServer` is where containers on it ask.
   */
  ensureNetwork(name: string, labels: Record<string, string>): Promise<NetworkInfo>;
  /** Removes the network; a missing one is success; false when containers still use it (it stays). */
  removeNetwork(name: string): Promise<boolean>;
  /**
   * Where the engine is, seen from this host (engine-location.ts): its endpoint, and whether the
   * bridge of `network` (else the engine's default network) is one of this host's interfaces.
   */
  locate(network: string): Promise<EngineLocation>;
  /**
   * Where this host cannot reach the pods (engine-location.ts): from now on `dial` opens
   * connections from inside `network`, through the engine, in a relay container of `image`
   * (relay.ts), made on the first dial. Undefined until set: pods are reached from this host.
   */
  relay: { network: string; image: string } | undefined;
  /** A TCP connection to `host:port` through the relay; rejects with the dial's error in Go's words. */
  dial(host: string, port: number, signal?: AbortSignal): Promise<Duplex>;
  /** Removes the relay of `network`, if there is one. */
  removeRelay(network: string): Promise<void>;
  /** The directory on the host that holds the volume's files (its Mountpoint); throws when the volume is missing. */
  inspectVolumeMountpoint(name: string): Promise<string>;
  /**
   * Whether the engine sees this host's files (lib/apply/reach-files.ts), and the image whose
   * helper copies them in where it does not (a remote engine, a VM that does not share podrun's
   * state directory), or where it can give them an owner podrun cannot (lib/pod/volumes/engine-files.ts).
   * Undefined until asked: bind mounts name this host's paths.
   */
  files: { image: string; shared: boolean } | undefined;
  /**
   * One run of the files helper (files-helper.ts): `run --rm -i` of `files.image` (or `image`)
   * with `mounts`, `input` on its stdin; its stdout and stderr. A failure throws, in the helper's words.
   */
  runFilesHelper(
    args: readonly string[],
    options: { mounts: readonly HelperMount[]; input?: Buffer; image?: string },
  ): Promise<{ stdout: string; stderr: string }>;
  /** The endpoint the CLI talks to (`DOCKER_HOST`, the current docker context's, `CONTAINER_HOST`); "" for its default. */
  endpoint(): Promise<string>;
  /**
   * A container's log line by line as the engine gives it (stdout and stderr in the order read),
   * never held whole. With `follow` it goes on until the container stops or `signal` aborts (a
   * quiet end). An engine failure (the container is gone…) throws EngineError.
   */
  streamLogs(id: string, options?: LogStreamOptions): AsyncIterable<LogLine>;
}

/** `createContainer` with `start`: the container was made (`id`), its start failed (`cause`). */
export class ContainerNotStartedError extends Error {
  override readonly name = "ContainerNotStartedError";
  constructor(
    readonly id: string,
    override readonly cause: unknown,
  ) {
    super(`container ${id} was created but did not start`, { cause });
  }
}

/** A podman pod, as `pod ps` lists it. */
export interface PodInfo {
  id: string;
  name: string;
  /** Absent: the pod has no infra container (a `pod create` killed midway). */
  infraId?: string;
  labels: Record<string, string>;
}
