import { connect } from "node:net";
import type { Duplex } from "node:stream";
import type { EngineLocation } from "../../lib/runtime/engine-location.js";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import type { EngineError } from "../../lib/errors.js";
import { toEngineError } from "../../lib/runtime/engine-error.js";
import { CommandError } from "../../lib/runtime/exec.js";
import { formatInfraName, getDialect } from "../../lib/runtime/dialects.js";
import { ContainerNotStartedError, type AttachedOptions, type PodInfo } from "../../lib/runtime/types.js";
import { PullError, type PullErrorKind } from "../../lib/runtime/pull-errors.js";
import {
  LABEL_CONTAINER_KIND,
  LABEL_CONTAINER_NAME,
  type ContainerRuntime,
  type ContainerSpec,
  type ContainerState,
  type ExecResult,
  type HelperMount,
  type ImageInfo,
  type LogLine,
  type LogStreamOptions,
  type PullOptions,
  type RuntimeCapabilities,
  type SandboxSpec,
  type NetworkInfo,
  type VolumeInfo,
} from "../../lib/runtime/types.js";

// One in-memory container engine for every engine-free test, in the spirit of the kubelet's
// FakeRuntime (kubernetes/kubernetes pkg/kubelet/container/testing/fake_runtime.go): it holds
// images, containers (labels, state, exit codes, logs), sandboxes and volumes, records every call
// in order, and lets a test script what the engine does (a pull that fails, a create that is
// refused, a container that exits with a code, an exec probe's answer, a call that waits).
// It behaves as docker does, whatever its `name` (podman's pods are not modelled): the sandbox is
// an infra container, a container in a sandbox cannot start before the sandbox runs, removing the
// sandbox removes what is in it, a volume in use cannot be removed, "not found" on removal is
// success.

/** The engine methods a test can hook, fail or hold. */
export type FakeMethod = Exclude<keyof ContainerRuntime, "name" | "binary">;

/** One call, as the fake received it. */
export interface FakeCall {
  method: FakeMethod;
  args: readonly unknown[];
  /**
   * What the call is about, as tests read it: the Kubernetes container name of a container
   * (its runtime name without that label, the raw ID when the fake does not know it), a
   * sandbox's or a volume's name, image refs; several joined by `,`.
   */
  subject: string;
}

/** What a container does once started. Keyed by its Kubernetes container name (or its runtime name). */
export interface ContainerScript {
  /** Exits at once with this code. Default: init containers exit 0, the others run until stopped. */
  exitCode?: number;
  /** Keeps running (overrides the init default). */
  runs?: boolean;
  /** Lines it writes on start, on stdout unless given as LogLine. */
  logs?: readonly (string | { text: string; stream?: LogLine["stream"] })[];
  /** Its answer to an exec (probes, hooks). Default: exit 0, no output. */
  exec?: (command: readonly string[], stdin?: string) => ExecResult | Promise<ExecResult>;
}

/** A hook run when a method is called, before its effect: it may throw (the call fails), wait (a slow call) or note. */
export type FakeHook = (call: FakeCall) => void | Promise<void>;

/** What a pull does: the image, an error to throw, or a promise of either. */
export type PullScript = (ref: string, options: PullOptions, attempt: number) => ImageInfo | Error | Promise<ImageInfo>;

export interface FakeRuntimeOptions {
  name?: RuntimeName;
  /** Images present at the start: refs, or refs with their info. */
  images?: readonly string[] | Record<string, ImageInfo>;
  /** Milliseconds since the epoch, for created/started/finished times. Default Date.now. */
  clock?: () => number;
  /** A host directory under which each volume gets a real directory (for bind mounts by subPath). */
  volumeRoot?: string;
  pull?: PullScript;
  /** The IP address every sandbox gets once started. Default: 10.88.0.N, one per sandbox. */
  podIP?: string;
}

interface FakeContainer {
  state: ContainerState;
  spec: ContainerSpec | SandboxSpec;
  /** The sandbox's name, for an infra container. */
  sandboxOf?: string;
  logs: LogLine[];
  /** Resolved when the container exits or goes. */
  exited: Promise<void>;
  markExited: () => void;
  /** Woken on a new log line or an exit: followers of streamLogs. */
  listeners: Set<() => void>;
}

/**
 * An engine failure as the CLI runtime reports it: the EngineError that docker's CLI failing with
 * the daemon's line `message` is explained as (lib/runtime/engine-error.ts), its kind read from it.
 */
export function engineError(message: string, args: readonly string[] = []): EngineError {
  return explainedAsDocker(
    new CommandError({
      shortMessage: `Command failed with exit code 1: docker ${args.join(" ")}`.trimEnd(),
      binary: "docker",
      args,
      exitCode: 1,
      stdout: "",
      stderr: `Error response from daemon: ${message}\n`,
    }),
  );
}

/** `failure` as CliRuntime over docker throws it, for an engine that answers (no probe). */
export function explainedAsDocker(failure: CommandError): EngineError {
  return toEngineError(getDialect("docker"), failure);
}

/** A pull failure of one kind, as CliRuntime classifies it. */
export function pullError(
  ref: string,
  kind: PullErrorKind,
  message = `failed to pull image "${ref}": ${kind}`,
): PullError {
  const reason =
    kind === "engine-down" ? "RuntimeUnavailable" : kind === "unavailable" ? "RegistryUnavailable" : "ErrImagePull";
  return new PullError(ref, { reason, kind, message });
}

export class FakeRuntime implements ContainerRuntime {
  readonly name: RuntimeName;
  readonly binary: string;
  readonly version = "";
  readonly capabilities: RuntimeCapabilities;
  /** Every call, in the order received, as `"<method> <subject>"` (an exec's command, a stop's timeout after it), with the test's own notes among them. */
  readonly calls: string[] = [];
  /** The same calls with their arguments. */
  readonly callLog: FakeCall[] = [];
  readonly images = new Map<string, ImageInfo>();
  readonly volumes = new Map<string, VolumeInfo>();
  readonly networks = new Map<string, NetworkInfo>();
  /** What a pull does; replace it to script pulls. */
  pull: PullScript;
  private readonly containers = new Map<string, FakeContainer>();
  private readonly scripts = new Map<string, ContainerScript>();
  /** What each container ID is called in `calls`, kept after removal. */
  private readonly subjects = new Map<string, string>();
  private readonly hooks = new Map<FakeMethod, FakeHook[]>();
  private readonly clock: () => number;
  private readonly volumeRoot: string | undefined;
  private readonly podIP: string | undefined;
  private lastTime = 0;
  private containerSeq = 0;
  private sandboxSeq = 0;
  private pullAttempts = 0;

  constructor(options: FakeRuntimeOptions = {}) {
    this.name = options.name ?? "docker";
    this.binary = this.name;
    // As the engine it stands for: podman's sandbox is a pod, and its --tmpfs takes no gid.
    this.capabilities =
      this.name === "podman" ? { sandbox: "pod", tmpfsGroup: false } : { sandbox: "infra-container", tmpfsGroup: true };
    this.clock = options.clock ?? Date.now;
    this.volumeRoot = options.volumeRoot;
    this.podIP = options.podIP;
    const images: readonly string[] | Record<string, ImageInfo> = options.images ?? [];
    const entries: [string, ImageInfo][] = isList(images)
      ? images.map((ref) => [ref, imageInfo(ref)])
      : Object.entries(images);
    for (const [ref, info] of entries) this.images.set(ref, info);
    this.pull = options.pull ?? ((ref) => imageInfo(ref));
  }

  // --- scripting ---------------------------------------------------------------------------

  /** What the container named `name` (Kubernetes or runtime name) does once started. */
  script(name: string, script: ContainerScript): this {
    this.scripts.set(name, { ...this.scripts.get(name), ...script });
    return this;
  }

  /** Runs `hook` on each call to `method` (before its effect), in the order hooks were added. */
  on(method: FakeMethod, hook: FakeHook): this {
    this.hooks.set(method, [...(this.hooks.get(method) ?? []), hook]);
    return this;
  }

  /** Calls to `method` (about `subject` only, when given) throw `error`; `times` limits how many. */
  failOn(
    method: FakeMethod,
    error: Error | ((call: FakeCall) => Error),
    options: { subject?: string; times?: number } = {},
  ): this {
    let left = options.times ?? Infinity;
    return this.on(method, (call) => {
      if (left <= 0 || (options.subject !== undefined && !call.subject.split(",").includes(options.subject))) return;
      left--;
      throw typeof error === "function" ? error(call) : error;
    });
  }

  /** Calls to `method` (about `subject` only, when given) wait for `until`: milliseconds, or a promise. */
  delay(method: FakeMethod, until: number | Promise<unknown>, options: { subject?: string } = {}): this {
    return this.on(method, async (call) => {
      if (options.subject !== undefined && !call.subject.split(",").includes(options.subject)) return;
      await (typeof until === "number" ? new Promise((resolve) => setTimeout(resolve, until)) : until);
    });
  }

  /** A line of the test's own among the calls (a point in time to order calls against). */
  note(text: string): void {
    this.calls.push(text);
  }

  /** Places a container as if a previous run (or someone else) made it; returns its state. */
  addContainer(fields: {
    name: string;
    labels?: Record<string, string>;
    image?: string;
    running?: boolean;
    exitCode?: number;
    ip?: string;
    createdAt?: string;
    startedAt?: string;
    id?: string;
    logs?: readonly string[];
  }): ContainerState {
    const spec: ContainerSpec = {
      name: fields.name,
      image: fields.image ?? "busybox:latest",
      labels: fields.labels ?? {},
      hostNetwork: false,
      restartPolicy: "no",
    };
    const fake = this.makeContainer(fields.id ?? `id-${++this.containerSeq}`, spec);
    const at = this.tick();
    Object.assign(fake.state, {
      createdAt: fields.createdAt ?? at,
      ...(fields.running === false
        ? {
            status: "exited",
            running: false,
            exitCode: fields.exitCode ?? 0,
            startedAt: fields.startedAt ?? at,
            finishedAt: at,
          }
        : { status: "running", running: true, startedAt: fields.startedAt ?? at }),
      ...(fields.ip !== undefined ? { ip: fields.ip } : {}),
    });
    if (fields.running === false) fake.markExited();
    for (const text of fields.logs ?? []) fake.logs.push({ stream: "stdout", time: at, text });
    return { ...fake.state, labels: { ...fake.state.labels } };
  }

  /** Places a running sandbox (a kept pod's) as if a previous run made it; returns its infra container's state. */
  addSandbox(
    name: string,
    fields: { labels?: Record<string, string>; image?: string; ip?: string } = {},
  ): ContainerState {
    const fake = this.makeContainer(
      `sandbox-${++this.sandboxSeq}`,
      {
        name,
        image: fields.image ?? "registry.k8s.io/pause:3.10",
        labels: fields.labels ?? {},
        ports: [],
        hostNetwork: false,
      },
      name,
    );
    this.run(fake);
    fake.state.ip = fields.ip ?? this.podIP ?? `10.88.0.${this.sandboxSeq + 1}`;
    return { ...fake.state, labels: { ...fake.state.labels } };
  }

  /**
   * Sets what the engine reports of a container (a restart under the engine's restart policy, a
   * state read at a given time); an exit (not running) ends its waits and log follows.
   */
  setState(idOrName: string, state: Partial<Omit<ContainerState, "id" | "name" | "labels">>): void {
    const fake = this.find(idOrName);
    if (!fake) throw new Error(`fake runtime: no container ${idOrName}`);
    Object.assign(fake.state, state);
    if (!fake.state.running) {
      fake.markExited();
      for (const wake of fake.listeners) wake();
    }
  }

  /** Makes a running container exit with `code` (a crash, or the end of its work). */
  exit(idOrName: string, code: number): void {
    const fake = this.find(idOrName);
    if (!fake) throw new Error(`fake runtime: no container ${idOrName}`);
    this.finish(fake, code);
  }

  /** Appends a line to a container's log (followers see it at once). */
  writeLog(idOrName: string, text: string, stream: LogLine["stream"] = "stdout"): void {
    const fake = this.find(idOrName);
    if (!fake) throw new Error(`fake runtime: no container ${idOrName}`);
    fake.logs.push({ stream, time: this.tick(), text });
    for (const wake of fake.listeners) wake();
  }

  // --- reading the fake's state -------------------------------------------------------------

  /** Every container the engine holds (infra containers included), oldest first. */
  listAll(): ContainerState[] {
    return [...this.containers.values()].map((c) => ({ ...c.state, labels: { ...c.state.labels } }));
  }

  /** The container with this ID, runtime name or Kubernetes container name (the newest). */
  container(idOrName: string): ContainerState | undefined {
    const fake = this.find(idOrName);
    return fake && { ...fake.state, labels: { ...fake.state.labels } };
  }

  /** The spec a container was created with. */
  specOf(idOrName: string): ContainerSpec | SandboxSpec | undefined {
    return this.find(idOrName)?.spec;
  }

  /** The ContainerSpecs of every createContainer call, in order (removed containers included). */
  get createdSpecs(): ContainerSpec[] {
    return this.callLog.filter((c) => c.method === "createContainer").map((c) => c.args[0] as ContainerSpec);
  }

  /** Calls to `method`, as recorded in `calls`. */
  callsOf(method: FakeMethod): string[] {
    return this.calls.filter((c) => c === method || c.startsWith(`${method} `));
  }

  // --- ContainerRuntime ---------------------------------------------------------------------

  async inspectImages(refs: readonly string[]): Promise<Map<string, ImageInfo>> {
    await this.enter("inspectImages", [refs], refs.join(","));
    return new Map(refs.flatMap((ref) => (this.images.has(ref) ? [[ref, this.images.get(ref)!] as const] : [])));
  }

  async pullImage(ref: string, options: PullOptions = {}): Promise<ImageInfo> {
    await this.enter("pullImage", [ref, options], ref);
    const outcome = await this.pull(ref, options, this.pullAttempts++);
    if (outcome instanceof Error) throw outcome;
    this.images.set(ref, outcome);
    return outcome;
  }

  async createSandbox(spec: SandboxSpec): Promise<string> {
    await this.enter("createSandbox", [spec], spec.name);
    if (this.pods.has(spec.name))
      throw engineError(`adding pod to state: name "${spec.name}" is in use: pod already exists`, [
        "pod",
        "create",
        "--name",
        spec.name,
      ]);
    // The infra container is named as on the real engines (`<sandbox>_POD`).
    this.refuseTakenName(formatInfraName(spec.name), ["run", "--name", formatInfraName(spec.name)]);
    const infra = this.makeContainer(`sandbox-${++this.sandboxSeq}`, spec, spec.name).state;
    // podman's sandbox is a pod of its own, which findPod finds (capabilities.sandbox).
    if (this.capabilities.sandbox === "pod")
      this.pods.set(spec.name, {
        id: `pod-${this.sandboxSeq}`,
        name: spec.name,
        infraId: infra.id,
        labels: { ...spec.labels },
      });
    return infra.id;
  }

  async startSandbox(name: string): Promise<void> {
    await this.enter("startSandbox", [name], name);
    const fake = this.sandbox(name);
    if (!fake) throw engineError(`No such container: ${name}`, ["start", name]);
    this.run(fake);
    fake.state.ip = this.podIP ?? `10.88.0.${this.sandboxSeq + 1}`;
  }

  async removeSandbox(name: string): Promise<void> {
    await this.enter("removeSandbox", [name], name);
    this.pods.delete(name);
    for (const fake of [...this.containers.values()]) {
      if (fake.sandboxOf === name || (fake.spec as ContainerSpec).sandbox === name) this.remove(fake);
    }
  }

  /** With `start`, a `run --detach`: logged as the create and the start it is. */
  async createContainer(spec: ContainerSpec, options: { start?: boolean } = {}): Promise<string> {
    await this.enter("createContainer", [spec], spec.labels[LABEL_CONTAINER_NAME] ?? spec.name);
    this.refuseTakenName(spec.name, ["create", "--name", spec.name]);
    if (!this.images.has(spec.image))
      throw engineError(`No such image: ${spec.image}`, ["create", "--name", spec.name]);
    const id = this.makeContainer(`id-${++this.containerSeq}`, spec).state.id;
    if (!options.start) return id;
    this.runStarts++;
    await this.startContainer(id).catch((error: unknown) => {
      throw new ContainerNotStartedError(id, error);
    });
    return id;
  }

  /** How many createContainer calls also started their container (one `run --detach`). */
  runStarts = 0;

  async startContainer(id: string): Promise<void> {
    await this.enter("startContainer", [id], this.subjectOf(id));
    const fake = this.find(id);
    if (!fake) throw engineError(`No such container: ${id}`, ["start", id]);
    const sandbox = (fake.spec as ContainerSpec).sandbox;
    if (sandbox !== undefined && !this.sandbox(sandbox)?.state.running) {
      throw engineError(`cannot join network namespace of a non running container`, ["start", id]);
    }
    this.run(fake);
    const script = this.scriptOf(fake);
    for (const line of script.logs ?? []) {
      const { text, stream = "stdout" } = typeof line === "string" ? { text: line } : line;
      fake.logs.push({ stream, time: this.tick(), text });
    }
    const exitCode =
      script.exitCode ?? (!script.runs && fake.state.labels[LABEL_CONTAINER_KIND] === "init" ? 0 : undefined);
    if (exitCode !== undefined) this.finish(fake, exitCode);
  }

  async waitContainer(id: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    await this.enter("waitContainer", [id, options], this.subjectOf(id));
    const fake = this.find(id);
    if (!fake) throw engineError(`No such container: ${id}`, ["wait", id]);
    const { signal } = options;
    await new Promise<void>((resolve, reject) => {
      const abort = () =>
        reject(
          explainedAsDocker(
            new CommandError({
              shortMessage: "Command was canceled: docker wait",
              binary: this.binary,
              args: ["wait", id],
              exitCode: undefined,
              stdout: "",
              stderr: "",
              canceled: true,
            }),
          ),
        );
      if (signal?.aborted) return abort();
      signal?.addEventListener("abort", abort, { once: true });
      void fake.exited.then(() => {
        signal?.removeEventListener("abort", abort);
        resolve();
      });
    });
    return fake.state.exitCode;
  }

  async execInContainer(
    id: string,
    command: readonly string[],
    options: { timeoutMs?: number } = {},
  ): Promise<ExecResult> {
    await this.enter("execInContainer", [id, command, options], this.subjectOf(id), command.join(" "));
    const fake = this.find(id);
    if (!fake) throw engineError(`No such container: ${id}`, ["exec", id]);
    if (!fake.state.running) throw engineError(`Container ${id} is not running`, ["exec", id]);
    return (await this.scriptOf(fake).exec?.(command)) ?? { exitCode: 0, stdout: "", stderr: "" };
  }

  /** The script's `exec` answer, its stdout and stderr written to the streams; stdin read whole first when given. */
  async execAttached(id: string, command: readonly string[], options: AttachedOptions): Promise<number> {
    await this.enter("execAttached", [id, command], this.subjectOf(id), command.join(" "));
    const fake = this.find(id);
    if (!fake) throw engineError(`No such container: ${id}`, ["exec", id]);
    if (!fake.state.running) throw engineError(`Container ${id} is not running`, ["exec", id]);
    let input = "";
    if (options.stdin) for await (const chunk of options.stdin) input += String(chunk);
    const result = (await this.scriptOf(fake).exec?.(command, input)) ?? { exitCode: 0, stdout: "", stderr: "" };
    if (result.stdout) options.stdout.write(result.stdout);
    if (result.stderr) options.stderr.write(result.stderr);
    return result.exitCode;
  }

  /** Files are not modelled: a copy succeeds when the container is there. */
  async copyFiles(
    id: string,
    copy: { direction: "into" | "out"; containerPath: string; hostPath: string },
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    await this.enter("copyFiles", [id, copy], this.subjectOf(id), `${copy.direction} ${copy.containerPath}`);
    return this.find(id) ? { ok: true } : { ok: false, reason: `No such container: ${id}` };
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    await this.enter("stopContainer", [id, timeoutSeconds], this.subjectOf(id), String(timeoutSeconds));
    const fake = this.find(id);
    if (fake?.state.running) this.finish(fake, 137);
  }

  async removeContainers(ids: readonly string[]): Promise<void> {
    await this.enter("removeContainers", [ids], ids.map((id) => this.subjectOf(id)).join(","));
    for (const id of ids) {
      const fake = this.find(id);
      if (fake) this.remove(fake);
    }
  }

  async listContainers(labels: Record<string, string>): Promise<ContainerState[]> {
    await this.enter(
      "listContainers",
      [labels],
      Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
    );
    return this.listAll().filter((state) => hasLabels(state.labels, labels));
  }

  async inspectContainers(ids: readonly string[]): Promise<ContainerState[]> {
    await this.enter("inspectContainers", [ids], ids.map((id) => this.subjectOf(id)).join(","));
    return ids.flatMap((id) => {
      const state = this.container(id);
      return state ? [state] : [];
    });
  }

  /** podman pods other than the sandboxes it models (a half-made one), by name: set by a test. */
  readonly pods = new Map<string, PodInfo>();

  async findPod(name: string): Promise<PodInfo | undefined> {
    await this.enter("findPod", [name], name);
    return this.name === "podman" ? this.pods.get(name) : undefined;
  }

  async listContainersNamed(prefix: string): Promise<ContainerState[]> {
    await this.enter("listContainersNamed", [prefix], prefix);
    return this.listAll().filter((state) => state.name.startsWith(prefix));
  }

  async logs(id: string, options: { tail?: number } = {}): Promise<string> {
    await this.enter("logs", [id, options], this.subjectOf(id));
    const fake = this.find(id);
    if (!fake) throw engineError(`No such container: ${id}`, ["logs", id]);
    const lines =
      options.tail === undefined
        ? fake.logs
        : fake.logs.slice(fake.logs.length - Math.min(options.tail, fake.logs.length));
    return lines.map((l) => `${l.text}\n`).join("");
  }

  async ensureNetwork(name: string, labels: Record<string, string>): Promise<NetworkInfo> {
    await this.enter("ensureNetwork", [name, labels], name);
    if (!this.networks.has(name))
      this.networks.set(name, {
        id: `network-${name}`,
        name,
        labels: { ...labels },
        subnets: [{ subnet: "10.99.0.0/24", gateway: "10.99.0.1" }],
        dns: true,
      });
    const network = this.networks.get(name)!;
    // As the engine it stands for answers: docker's embedded server, podman's on the gateway.
    return { ...network, dnsServer: this.name === "podman" ? "10.99.0.1" : "127.0.0.11" };
  }

  async removeNetwork(name: string): Promise<boolean> {
    await this.enter("removeNetwork", [name], name);
    const inUse = [...this.containers.values()].some((c) => (c.spec as SandboxSpec).network?.name === name);
    if (inUse) return false;
    this.networks.delete(name);
    return true;
  }

  /** Where the fake engine is: `location` as a test sets it; by default a local engine. */
  location: EngineLocation = {
    place: "local",
    podIPsRoutable: true,
    sharedDisk: true,
    endpoint: "",
    reason: "the fake engine",
  };

  async locate(network: string): Promise<EngineLocation> {
    await this.enter("locate", [network], network);
    return { ...this.location };
  }

  relay: { network: string; image: string } | undefined = undefined;

  /** The fake engine's relay is this host: a plain connection to host:port. */
  async dial(host: string, port: number): Promise<Duplex> {
    await this.enter("dial", [host, port], `${host}:${port}`);
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once("connect", () => resolve(socket));
      socket.once("error", (error) => reject(new Error(`dial tcp ${host}:${port}: ${error.message}`)));
    });
  }

  async removeRelay(network: string): Promise<void> {
    await this.enter("removeRelay", [network], network);
  }

  files: { image: string; shared: boolean } | undefined = undefined;

  /** Recorded (mounts and args), never run: the helper's effect is proved against real engines. */
  async runFilesHelper(
    args: readonly string[],
    options: { mounts: readonly HelperMount[]; input?: Buffer; image?: string },
  ): Promise<{ stdout: string; stderr: string }> {
    await this.enter("runFilesHelper", [args, options.mounts], args[0] ?? "");
    return { stdout: args[0] === "-read" ? "{}" : "", stderr: "" };
  }

  /** The fake engine's endpoint: the location's. */
  async endpoint(): Promise<string> {
    return this.location.endpoint;
  }

  async createVolume(name: string, labels: Record<string, string>): Promise<void> {
    await this.enter("createVolume", [name, labels], name);
    if (!this.volumes.has(name)) this.volumes.set(name, { name, labels: { ...labels } });
    if (this.volumeRoot !== undefined) await mkdir(join(this.volumeRoot, name), { recursive: true });
  }

  async removeVolumes(names: readonly string[]): Promise<void> {
    await this.enter("removeVolumes", [names], names.join(","));
    for (const name of names) {
      const user = [...this.containers.values()].find((c) =>
        (c.spec as ContainerSpec).mounts?.some((m) => m.volume === name && !m.tmpfs && m.bind === undefined),
      );
      if (user && this.volumes.has(name))
        throw engineError(`remove ${name}: volume is in use - [${user.state.id}]`, ["volume", "rm", ...names]);
    }
    for (const name of names) this.volumes.delete(name);
  }

  async listVolumes(labels: Record<string, string>): Promise<VolumeInfo[]> {
    await this.enter(
      "listVolumes",
      [labels],
      Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
    );
    return [...this.volumes.values()]
      .filter((v) => hasLabels(v.labels, labels))
      .map((v) => ({ name: v.name, labels: { ...v.labels } }));
  }

  async inspectVolumeMountpoint(name: string): Promise<string> {
    await this.enter("inspectVolumeMountpoint", [name], name);
    if (!this.volumes.has(name)) throw engineError(`get ${name}: no such volume`, ["volume", "inspect", name]);
    return join(this.volumeRoot ?? "/var/lib/docker/volumes", name);
  }

  async *streamLogs(id: string, options: LogStreamOptions = {}): AsyncIterable<LogLine> {
    await this.enter("streamLogs", [id, options], this.subjectOf(id));
    const fake = this.find(id);
    if (!fake) throw engineError(`No such container: ${id}`, ["logs", id]);
    const since = options.since?.getTime();
    const wanted = (line: LogLine) => since === undefined || Date.parse(line.time) >= since;
    let next = options.tail === undefined ? 0 : Math.max(0, fake.logs.length - options.tail);
    for (;;) {
      while (next < fake.logs.length) {
        const line = fake.logs[next++]!;
        if (wanted(line)) yield { ...line };
      }
      if (!options.follow || !fake.state.running || options.signal?.aborted) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          fake.listeners.delete(wake);
          options.signal?.removeEventListener("abort", wake);
          resolve();
        };
        fake.listeners.add(wake);
        options.signal?.addEventListener("abort", wake, { once: true });
      });
    }
  }

  // --- internals ----------------------------------------------------------------------------

  /** Records a call as `"<method> <subject> <detail>"` and runs its hooks. */
  private async enter(method: FakeMethod, args: readonly unknown[], subject: string, detail = ""): Promise<void> {
    const call = { method, args, subject };
    this.callLog.push(call);
    this.calls.push(`${method} ${subject} ${detail}`.trimEnd());
    for (const hook of this.hooks.get(method) ?? []) await hook(call);
  }

  /** A strictly increasing ISO time from the clock: creation order survives a clock that stands still. */
  private tick(): string {
    this.lastTime = Math.max(this.clock(), this.lastTime + 1);
    return new Date(this.lastTime).toISOString();
  }

  private makeContainer(id: string, spec: ContainerSpec | SandboxSpec, sandboxOf?: string): FakeContainer {
    let markExited!: () => void;
    const exited = new Promise<void>((resolve) => (markExited = resolve));
    const fake: FakeContainer = {
      state: {
        id,
        name: sandboxOf === undefined ? spec.name : formatInfraName(spec.name),
        status: "created",
        running: false,
        exitCode: 0,
        startedAt: "",
        finishedAt: "",
        createdAt: this.tick(),
        restartCount: 0,
        labels: { ...spec.labels },
        image: spec.image,
      },
      spec,
      sandboxOf,
      logs: [],
      exited,
      markExited,
      listeners: new Set(),
    };
    const volumes = ((spec as ContainerSpec).mounts ?? [])
      .filter((m) => !m.tmpfs && m.bind === undefined)
      .map((m) => m.volume);
    if (volumes.length > 0) fake.state.volumes = volumes;
    this.containers.set(id, fake);
    this.subjects.set(id, sandboxOf ?? spec.labels[LABEL_CONTAINER_NAME] ?? spec.name);
    return fake;
  }

  private run(fake: FakeContainer): void {
    Object.assign(fake.state, { status: "running", running: true, startedAt: this.tick(), finishedAt: "" });
  }

  private finish(fake: FakeContainer, code: number): void {
    Object.assign(fake.state, { status: "exited", running: false, exitCode: code, finishedAt: this.tick() });
    fake.markExited();
    for (const wake of fake.listeners) wake();
  }

  private remove(fake: FakeContainer): void {
    this.containers.delete(fake.state.id);
    if (fake.state.running) Object.assign(fake.state, { status: "removing", running: false, exitCode: 137 });
    fake.markExited();
    for (const wake of fake.listeners) wake();
  }

  private refuseTakenName(name: string, args: string[]): void {
    const holder = [...this.containers.values()].find((c) => c.state.name === name);
    if (holder)
      throw engineError(
        `Conflict. The container name "/${name}" is already in use by container "${holder.state.id}". You have to remove (or rename) that container to be able to reuse that name.`,
        args,
      );
  }

  private sandbox(name: string): FakeContainer | undefined {
    return [...this.containers.values()].find((c) => c.sandboxOf === name);
  }

  private find(idOrName: string): FakeContainer | undefined {
    const exact = this.containers.get(idOrName) ?? [...this.containers.values()].find((c) => c.state.name === idOrName);
    return (
      exact ?? [...this.containers.values()].reverse().find((c) => c.state.labels[LABEL_CONTAINER_NAME] === idOrName)
    );
  }

  private subjectOf(id: string): string {
    const fake = this.containers.get(id) ?? [...this.containers.values()].find((c) => c.state.name === id);
    // A removed container is still named in later calls (a second `rm` of it) by what it was.
    if (!fake) return this.subjects.get(id) ?? id;
    return this.subjects.get(fake.state.id) ?? id;
  }

  private scriptOf(fake: FakeContainer): ContainerScript {
    return this.scripts.get(fake.state.labels[LABEL_CONTAINER_NAME] ?? "") ?? this.scripts.get(fake.state.name) ?? {};
  }
}

function isList(images: readonly string[] | Record<string, ImageInfo>): images is readonly string[] {
  return Array.isArray(images);
}

function hasLabels(labels: Record<string, string>, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([key, value]) => labels[key] === value);
}

/** A made-up but stable image ID and size for a ref. */
function imageInfo(ref: string): ImageInfo {
  let hash = 0;
  for (const char of ref) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return { id: `sha256:${hash.toString(16).padStart(8, "0").repeat(8)}`, size: 1_000_000 + (hash % 1_000_000) };
}
