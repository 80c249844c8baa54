import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir, networkInterfaces } from "node:os";
import { join } from "node:path";
// ContainerRuntime over a container CLI: docker, podman or nerdctl, told apart by the dialect
// table. Every call goes through runCommand (argv arrays, never a shell). In dry-run mode the
// commands are recorded instead of run, so a caller can print the whole plan. A command that
// fails is explained once, as the method ends (engine-error.ts): callers see EngineError, never
// the CLI's CommandError.
import {
  asRunArgs,
  buildCreateArgs,
  buildSandboxArgs,
  buildNetworkCreateArgs,
  buildNetworkListArgs,
  buildNetworkRemoveArgs,
  buildVolumeCreateArgs,
  buildVolumeInspectArgs,
  buildVolumeListArgs,
  buildVolumeRemoveArgs,
} from "./create-args.js";
import type { DetectedRuntime, RuntimeName } from "./detect.js";
import { formatInfraName, getDialect, isOnlyNotFound, type Dialect } from "./dialects.js";
import { EngineError } from "../errors.js";
import { explainCommandError } from "./engine-error.js";
import { writeEnvFile } from "./env-file.js";
import { planEnv } from "./env-plan.js";
import { isCliFailure, lastLine, splitLines, toCommandError } from "./cli-results.js";
import {
  CommandError,
  runAttached,
  runCommand,
  streamCommand,
  type AttachedOptions,
  type CommandResult,
  type RunOptions,
} from "./exec.js";
import { buildDialArgs, buildRelayRunArgs, dialThroughRelay, relayName, relayNetworkFor } from "./relay.js";
import { buildFilesHelperArgs } from "./files-helper.js";
import type { Duplex } from "node:stream";
import { firstAddress, locateEngine, type EngineLocation, type HostInterfaces } from "./engine-location.js";
import { clusterDnsServer, isSubnetTaken, parseNetworkInspect, parseNetworkList, subnetsOverlap } from "./network.js";
import { fillPeerAddresses, listUnresolvedPeers, matchImages, parseJsonObjects, toContainerState } from "./inspect.js";
import {
  buildLogsArgs,
  LogLineMerger,
  MERGE_HOLD_MS,
  MERGE_MAX_HELD,
  mergeTimestampedLogs,
  splitTimestamp,
} from "./logs.js";
import { classifyPullError, PullError } from "./pull-errors.js";
import { buildPullArgs, planPull, preparePullAuth } from "./pull-auth.js";
import { runPullCommand } from "./pull-progress.js";
import { listSecretForms, scrubSecrets } from "../credentials/scrub.js";
import { buildFindPodArgs, parseFindPod } from "./find-pod.js";
import { findSandboxMembers } from "./sandbox-members.js";
import { createPastStorageLeftover } from "./storage-leftover.js";
import { parseVolumeList } from "./volume-list.js";
import { runWithinDeadline } from "./request-timeout.js";
import {
  ContainerNotStartedError,
  type ContainerRuntime,
  type ContainerSpec,
  type ContainerState,
  type ExecResult,
  type HelperMount,
  type ImageInfo,
  type LogLine,
  type LogStreamOptions,
  type NetworkInfo,
  type PodInfo,
  type PullOptions,
  type RuntimeCapabilities,
  type RuntimeCommand,
  type SandboxSpec,
  type VolumeInfo,
} from "./types.js";

/** How many times a listing is asked when an object vanished while it ran (runListing). */
const LISTING_ATTEMPTS = 3;

/** How many times ensureNetwork lists the networks before it gives up. */
const NETWORK_ATTEMPTS = 8;

export interface CliRuntimeOptions {
  name: RuntimeName;
  binary: string;
  /** The CLI's version, when the engine was probed (detect.ts); "" when it was not. */
  version?: string;
  /** Record the commands instead of running them. */
  dryRun?: { record(command: RuntimeCommand): void };
  /** `--runtime-request-timeout`: each command's deadline (request-timeout.ts); absent, none. */
  requestTimeoutMs?: number;
  /** A pull that prints nothing new for this long is canceled (pull-progress.ts); 0 or absent: never. */
  pullProgressDeadlineMs?: number;
}

/** How a command gets its engine: the CLI below, or a fake in engine-free tests (test/harness/fake-runtime.ts). */
export type RuntimeFactory = (
  detected: DetectedRuntime,
  options?: Omit<CliRuntimeOptions, "name" | "binary">,
) => ContainerRuntime;

export function createRuntime(
  detected: DetectedRuntime,
  options: Omit<CliRuntimeOptions, "name" | "binary"> = {},
): CliRuntime {
  return new CliRuntime({ name: detected.name, binary: detected.binary, version: detected.clientVersion, ...options });
}

/**
 * This host's interfaces: Linux lists every one under /sys/class/net, up or down, and every local
 * address in /proc/net/fib_trie (a bridge with no container is down, and Node lists only those up).
 */
const HOST_INTERFACES: HostInterfaces = {
  exists: (name) => /^[\w.-]+$/.test(name) && existsSync(`/sys/class/net/${name}`),
  hasAddress: (address) =>
    Object.values(networkInterfaces()).some((list) => list?.some((a) => a.address === address)) ||
    localAddresses().has(address),
};

/**
 * Whether the user named a context (docker's `DOCKER_CONTEXT`, or `currentContext` in the CLI's
 * config.json): only then is the CLI asked for its endpoint; otherwise it is its default socket.
 */
async function namesContext(context: NonNullable<Dialect["endpoint"]["context"]>): Promise<boolean> {
  if (process.env[context.env]) return true;
  const dir = process.env[context.configDirEnv] || join(homedir(), context.configDir);
  try {
    const config = JSON.parse(await readFile(join(dir, "config.json"), "utf8")) as { currentContext?: unknown };
    return (
      typeof config.currentContext === "string" && config.currentContext !== "" && config.currentContext !== "default"
    );
  } catch {
    return false; // no config (or not JSON): the CLI's default context
  }
}

/** A network's IPv4 gateway: as the engine says, else the first address of its subnet (docker's pick). */
function gatewayOf(network: NetworkInfo | undefined): string | undefined {
  const subnet = network?.subnets.find((s) => !s.subnet.includes(":"));
  return subnet?.gateway ?? (subnet ? firstAddress(subnet.subnet) : undefined);
}

/** The LOCAL /32 entries of the kernel's routing trie; none where there is no /proc (macOS). */
function localAddresses(): Set<string> {
  let text: string;
  try {
    text = readFileSync("/proc/net/fib_trie", "utf8");
  } catch {
    return new Set(); // not Linux: no bridge of an engine's is here anyway
  }
  const found = new Set<string>();
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (/\/32 host LOCAL/.test(line)) {
      const address = /([\d.]+)\s*$/.exec(lines[i - 1] ?? "")?.[1];
      if (address) found.add(address);
    }
  });
  return found;
}

export class CliRuntime implements ContainerRuntime {
  readonly name: RuntimeName;
  readonly binary: string;
  readonly version: string;
  readonly capabilities: RuntimeCapabilities;
  private readonly dialect: Dialect;
  private readonly dryRun: CliRuntimeOptions["dryRun"];
  private readonly requestTimeoutMs: number | undefined;
  private readonly pullProgressDeadlineMs: number;
  /** Each network's relay, made or found once per process (relay.ts). */
  private readonly relays = new Map<string, Promise<void>>();

  constructor(options: CliRuntimeOptions) {
    this.name = options.name;
    this.binary = options.binary;
    this.version = options.version ?? "";
    this.dialect = getDialect(options.name);
    this.capabilities = { sandbox: this.dialect.sandbox, tmpfsGroup: this.dialect.tmpfsGroupOption };
    this.dryRun = options.dryRun;
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.pullProgressDeadlineMs = options.pullProgressDeadlineMs ?? 0;
  }

  async inspectImages(refs: readonly string[]): Promise<Map<string, ImageInfo>> {
    return this.explained(async () => {
      const unique = [...new Set(refs)];
      if (unique.length === 0 || this.record(["image", "inspect", ...unique])) return new Map<string, ImageInfo>();
      // Absent images make the call fail, but the present ones are still printed.
      const result = await this.runTolerant(["image", "inspect", ...unique]);
      return matchImages(this.dialect, unique, parseJsonObjects(result.stdout));
    });
  }

  async pullImage(ref: string, options: PullOptions = {}): Promise<ImageInfo> {
    return this.explained(async () => {
      const { credential, signal } = options;
      if (this.dryRun) {
        this.dryRun.record({ binary: this.binary, ...planPull(this.dialect, ref, credential) });
        return { id: "", size: 0 };
      }
      const auth = credential ? await preparePullAuth({ dialect: this.dialect, image: ref, credential }) : undefined;
      const args = buildPullArgs(ref, auth?.args);
      let result: CommandResult;
      try {
        result = await runPullCommand(this.binary, args, {
          ref,
          deadlineMs: this.pullProgressDeadlineMs,
          env: auth?.env,
          signal,
        });
      } catch (error) {
        if (error instanceof CommandError && error.notInstalled) {
          throw new PullError(
            ref,
            { reason: "RuntimeUnavailable", kind: "engine-down", message: error.shortMessage },
            { cause: error },
          );
        }
        throw error; // canceled or killed: not a pull failure to classify
      } finally {
        // The engine has read the file by the time its pull ends, or will never read it.
        await auth?.dispose();
      }
      if (result.exitCode !== 0) {
        // A registry may quote what it was sent: nothing of the credential goes further than here.
        const stderr = credential ? scrubSecrets(result.stderr, listSecretForms([credential])) : result.stderr;
        const sources = credential ? [credential.source] : [];
        const classification = classifyPullError(stderr, {
          image: ref,
          credentialsGiven: credential !== undefined,
          credentialSources: sources,
          runtime: this.name,
        });
        throw new PullError(ref, classification, {
          cause: toCommandError(this.binary, args, { ...result, stderr }),
          stderr,
        });
      }
      const info = (await this.inspectImages([ref])).get(ref);
      if (!info)
        throw new PullError(ref, {
          reason: "ErrImagePull",
          kind: "other",
          message: `${ref} was pulled but ${this.name} does not list it`,
        });
      return info;
    });
  }

  async createSandbox(spec: SandboxSpec): Promise<string> {
    return this.explained(async () => {
      const pod = this.dialect.sandbox === "pod";
      const infra = formatInfraName(spec.name);
      const create = buildSandboxArgs(this.dialect, spec);
      if (this.dryRun) {
        this.record(create);
        return infra;
      }
      const created = await this.run(create);
      // podman printed the pod's ID; callers need a container to inspect (for the pod's IP), and
      // the infra container's name serves as its ID without one more engine call.
      return pod ? infra : lastLine(created.stdout);
    });
  }

  async startSandbox(name: string): Promise<void> {
    return this.explained(async () => {
      // The infra container alone, on podman too: `pod start` would also start every container
      // already created in the pod, and an init container created meanwhile would run twice.
      const start = ["start", formatInfraName(name)];
      if (this.record(start)) return;
      try {
        await this.run(start);
      } catch (error) {
        // A port already in use shows only now: remove what was half made, so a retry can reuse the name.
        await this.removeSandbox(name).catch(() => undefined);
        throw error;
      }
    });
  }

  async removeSandbox(name: string): Promise<void> {
    return this.explained(async () => {
      if (this.dialect.sandbox === "pod") {
        // `pod rm -f` takes the pod's containers with it.
        const args = ["pod", "rm", "-f", "-t", "0", name];
        if (!this.record(args)) await this.runTolerant(args);
        return;
      }
      const infra = formatInfraName(name);
      if (this.record(["rm", ...this.dialect.forceRemoveFlags, infra])) return;
      // Containers that joined the infra container would be left with a dead network namespace.
      const members = await findSandboxMembers(this.dialect, (args) => this.runTolerant(args), infra);
      await this.removeContainers([...members, infra]);
    });
  }

  async createContainer(spec: ContainerSpec, options: { start?: boolean } = {}): Promise<string> {
    return this.explained(async () => {
      const env = planEnv(this.dialect, spec.env ?? []);
      const command = options.start ? asRunArgs : (args: string[]) => args;
      if (this.dryRun) {
        // Nothing is written in dry-run mode: the plan shows where the file would go.
        const placeholder = env.fileContent === undefined ? undefined : `<env-file of ${spec.name}>`;
        this.record(command(buildCreateArgs(this.dialect, { ...spec, ...spec.printed }, env, placeholder)));
        return spec.name;
      }
      const envFile = env.fileContent === undefined ? undefined : await writeEnvFile(env.fileContent);
      try {
        const file = envFile?.path;
        try {
          const create = () => this.run(command(buildCreateArgs(this.dialect, spec, env, file)), { env: env.childEnv });
          const result = await createPastStorageLeftover(this.dialect, create, (args) =>
            this.run(args, { reject: false }),
          );
          return lastLine(result.stdout);
        } catch (error) {
          if (!options.start) throw error;
          // `run` fails the same way whether the create or the start failed: the engine says which.
          const [made] = await this.inspectContainers([spec.name]).catch(() => []);
          if (made) throw new ContainerNotStartedError(made.id, await explainCommandError(this.dialect, error));
          throw error;
        }
      } finally {
        // The CLI has read the file by the time create returns: it must not outlive the call.
        await envFile?.remove();
      }
    });
  }

  async startContainer(id: string): Promise<void> {
    return this.explained(async () => {
      if (!this.record(["start", id])) await this.run(["start", id]);
    });
  }

  async waitContainer(id: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    return this.explained(async () => {
      if (this.record(["wait", id])) return 0;
      const result = await this.run(["wait", id], options.signal ? { signal: options.signal } : {});
      const code = Number.parseInt(lastLine(result.stdout), 10);
      if (Number.isNaN(code))
        throw toCommandError(this.binary, ["wait", id], result, `${this.name} wait printed no exit code`);
      return code;
    });
  }

  async execInContainer(
    id: string,
    command: readonly string[],
    options: { timeoutMs?: number } = {},
  ): Promise<ExecResult> {
    return this.explained(async () => {
      const args = ["exec", id, ...command];
      if (this.record(args)) return { exitCode: 0, stdout: "", stderr: "" };
      const timeout = options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {};
      const result = await this.run(args, { reject: false, ...timeout });
      // The command's own exit code is the answer, unless the CLI itself failed (a missing container).
      // Exit 0 is the command's success whatever its stderr says: that is the command's own output.
      if (result.exitCode !== 0 && isCliFailure(result)) throw toCommandError(this.binary, args, result);
      return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    });
  }

  async execAttached(id: string, command: readonly string[], options: AttachedOptions): Promise<number> {
    return this.explained(async () => {
      // The three engines take `exec -i -t` alike.
      const args = ["exec", ...(options.stdin ? ["-i"] : []), ...(options.tty ? ["-t"] : []), id, ...command];
      if (this.record(args)) return 0;
      return runAttached(this.binary, args, options);
    });
  }

  async copyFiles(
    id: string,
    copy: { direction: "into" | "out"; containerPath: string; hostPath: string },
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    return this.explained(async () => {
      const inContainer = `${id}:${copy.containerPath}`;
      const args = ["cp", ...(copy.direction === "out" ? [inContainer, copy.hostPath] : [copy.hostPath, inContainer])];
      if (this.record(args)) return { ok: true };
      const result = await this.run(args, { reject: false });
      if (result.exitCode === 0) return { ok: true };
      const reason = result.stderr.split("\n").find((line) => line.trim() !== "") ?? `exit code ${result.exitCode}`;
      return { ok: false, reason: reason.replace(/^(Error response from daemon: |Error: )/, "") };
    });
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    return this.explained(async () => {
      const args = ["stop", "-t", String(Math.max(0, Math.round(timeoutSeconds))), id];
      if (!this.record(args)) await this.runTolerant(args);
    });
  }

  async removeContainers(ids: readonly string[]): Promise<void> {
    return this.explained(async () => {
      const args = ["rm", ...this.dialect.forceRemoveFlags, ...new Set(ids)];
      if (ids.length > 0 && !this.record(args)) await this.runTolerant(args);
    });
  }

  async listContainers(labels: Record<string, string>): Promise<ContainerState[]> {
    return this.explained(async () => {
      const filters = Object.entries(labels).flatMap(([key, value]) => ["--filter", `label=${key}=${value}`]);
      const args = ["ps", "-a", "-q", "--no-trunc", ...filters];
      if (this.record(args)) return [];
      const ids = splitLines((await this.runListing(args)).stdout);
      return this.inspectContainers(ids);
    });
  }

  async inspectContainers(ids: readonly string[]): Promise<ContainerState[]> {
    return this.explained(async () => {
      const args = ["container", "inspect", ...new Set(ids)];
      if (ids.length === 0 || this.record(args)) return [];
      // One that vanished since it was listed is simply left out.
      const inspected = parseJsonObjects((await this.runTolerant(args)).stdout).map((c) =>
        toContainerState(this.dialect, c),
      );
      const peers = listUnresolvedPeers(inspected);
      const extra =
        peers.length === 0 ? [] : parseJsonObjects((await this.runTolerant(["container", "inspect", ...peers])).stdout);
      return fillPeerAddresses(
        inspected,
        extra.map((c) => toContainerState(this.dialect, c).state),
      );
    });
  }

  async findPod(name: string): Promise<PodInfo | undefined> {
    return this.explained(async () => {
      const args = buildFindPodArgs(name);
      if (this.dialect.sandbox !== "pod" || this.record(args)) return undefined;
      return parseFindPod((await this.runTolerant(args)).stdout, name);
    });
  }

  async listContainersNamed(prefix: string): Promise<ContainerState[]> {
    return this.explained(async () => {
      // `--filter name=` is a regular expression on docker and podman and a substring on nerdctl
      // (pkg/cmd/container/list_util.go): unanchored, a plain name matches as a substring on all
      // three (a `.` of a pod name matches itself among others), so each returns a superset and
      // the prefix is matched here.
      const args = ["ps", "-a", "-q", "--no-trunc", "--filter", `name=${prefix}`];
      if (this.record(args)) return [];
      // podman's listing fails with "no such container" when one is removed while it runs: what is
      // going away holds no name, so that answer is as good as a full one.
      const ids = splitLines((await this.runTolerant(args)).stdout);
      return (await this.inspectContainers(ids)).filter((state) => state.name.startsWith(prefix));
    });
  }

  async logs(id: string, options: { tail?: number } = {}): Promise<string> {
    return this.explained(async () => {
      const args = buildLogsArgs(this.name, id, options.tail !== undefined ? { tail: options.tail } : {});
      if (this.record(args)) return "";
      const result = await this.run(args);
      return mergeTimestampedLogs(result.stdout, result.stderr);
    });
  }

  async *streamLogs(id: string, options: LogStreamOptions = {}): AsyncGenerator<LogLine, void, undefined> {
    const { signal, ...request } = options;
    const args = buildLogsArgs(this.name, id, request);
    if (this.record(args)) return;
    // Unstamped stderr lines are the CLI's own messages, not the container's: kept for the error.
    const cliMessages: string[] = [];
    // A finished log is read whole: a line waits for the other stream's older lines however long
    // that takes (bounded by the merger's size). A follow cannot wait: new lines must show.
    const merger = new LogLineMerger({
      holdMs: request.follow ? MERGE_HOLD_MS : Number.POSITIVE_INFINITY,
      maxHeld: MERGE_MAX_HELD,
    });
    // Our own signal too: leaving early must stop the engine's `logs`, or a follow would not end.
    const stop = new AbortController();
    const forward = () => stop.abort();
    if (signal?.aborted) forward();
    signal?.addEventListener("abort", forward, { once: true });
    const lines = streamCommand(this.binary, args, { signal: stop.signal });
    const readLine = () => {
      const read = lines.next();
      read.catch(() => undefined); // awaited below; it may fail while the consumer holds a line
      return read;
    };
    let lastTime = "";
    let next = readLine();
    try {
      for (;;) {
        // Wait for a line, or until a held line is due, whichever comes first.
        const due = merger.nextDueMs();
        const read = await (due === undefined ? next : raceTimeout(next, due - Date.now()));
        if (read === undefined) {
          yield* merger.take(Date.now());
          continue;
        }
        if (read.done) break;
        next = readLine();
        const stamped = splitTimestamp(read.value.text);
        if (stamped) lastTime = stamped.time;
        if (stamped) merger.push({ stream: read.value.stream, ...stamped }, Date.now());
        else if (read.value.stream === "stderr") cliMessages.push(read.value.text);
        else merger.push({ stream: "stdout", time: lastTime, text: read.value.text }, Date.now());
        yield* merger.take(Date.now());
      }
      yield* merger.take(Date.now(), true);
    } catch (error) {
      if (!(error instanceof CommandError) || error.exitCode === undefined)
        throw await explainCommandError(this.dialect, error);
      const { shortMessage, binary, args: argv, exitCode } = error;
      const failure = new CommandError({
        shortMessage,
        binary,
        args: argv,
        exitCode,
        stdout: "",
        stderr: cliMessages.join("\n"),
        cause: error,
      });
      throw await explainCommandError(this.dialect, failure);
    } finally {
      signal?.removeEventListener("abort", forward);
      stop.abort();
      await lines.return();
    }
  }

  async createVolume(name: string, labels: Record<string, string>, options: { group?: number } = {}): Promise<void> {
    return this.explained(async () => {
      const args = buildVolumeCreateArgs(name, labels, this.dialect.volumeGroupOption ? options.group : undefined);
      if (!this.record(args)) await this.run(args);
    });
  }

  async removeVolumes(names: readonly string[]): Promise<void> {
    return this.explained(async () => {
      const calls = buildVolumeRemoveArgs(this.dialect, names);
      if (this.dryRun) for (const args of calls) this.record(args);
      if (calls.length === 0 || this.dryRun) return;
      // Every call is made (nerdctl's one per volume): one volume in use must not keep the others.
      const results = await Promise.allSettled(calls.map((args) => this.runTolerant(args)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed) throw failed.reason;
    });
  }

  async listVolumes(labels: Record<string, string>): Promise<VolumeInfo[]> {
    return this.explained(async () => {
      const args = buildVolumeListArgs(labels);
      if (this.record(args)) return [];
      return parseVolumeList((await this.runListing(args)).stdout, labels);
    });
  }

  async inspectVolumeMountpoint(name: string): Promise<string> {
    return this.explained(async () => {
      const args = buildVolumeInspectArgs(name);
      // A dry run plans a volume that was never made: the plan names where its directory would be.
      if (this.record(args)) return `<mountpoint of ${name}>`;
      const result = await this.run(args, { reject: false });
      if (result.exitCode !== 0) {
        const failure = toCommandError(this.binary, args, result);
        // One line, the same on every engine; the engine's own words stay in the cause.
        if (isOnlyNotFound(this.dialect, result.stderr))
          throw new EngineError("not-found", `volume ${name} not found`, { cause: failure });
        throw failure;
      }
      const mountpoint = parseJsonObjects(result.stdout).find((v) => v["Name"] === name)?.["Mountpoint"];
      if (typeof mountpoint !== "string" || mountpoint === "")
        throw toCommandError(this.binary, args, result, `${this.name} volume inspect gave no Mountpoint for ${name}`);
      return mountpoint;
    });
  }

  async ensureNetwork(name: string, labels: Record<string, string>): Promise<NetworkInfo> {
    return this.explained(async () => {
      const subnets = this.dialect.clusterSubnets;
      const create = (subnet: string | undefined) => buildNetworkCreateArgs(name, labels, subnet);
      // A dry run runs nothing: the plan shows the create, and the DNS address the engine would give.
      if (this.record(create(subnets[0]))) return this.withDns({ id: "", name, labels, subnets: [], dns: true });
      const inspect = async (ids: string[]) =>
        ids.length === 0
          ? []
          : parseNetworkInspect(this.dialect, (await this.runTolerant(["network", "inspect", ...ids])).stdout);
      // The usual case in one call: the network is there, alone under its name.
      const direct = await this.run(["network", "inspect", name], { reject: false });
      const found = direct.exitCode === 0 ? parseNetworkInspect(this.dialect, direct.stdout) : [];
      if (found.length === 1) return this.withDns(found[0]!);
      // Made on the first of the engine's cluster subnets that no other network holds (network.ts:
      // two runs at once then make one network). Another run may make it meanwhile (this create
      // then fails on the subnet, and the network is there, or soon will be), or remove it as
      // unused between two of these calls (its `down`): asked again, up to eight times.
      let failed: CommandResult | undefined;
      let candidate = 0;
      let unexplained = 0;
      for (let attempt = 1; attempt <= NETWORK_ATTEMPTS; attempt++) {
        const listed = parseNetworkList((await this.run(buildNetworkListArgs())).stdout);
        const [network, ...twins] = await inspect(listed.filter((n) => n.name === name).map((n) => n.id));
        if (network) {
          // Twins made by an older podrun: the oldest stays; one a container already joined stays too.
          await Promise.all(twins.map((twin) => this.run(buildNetworkRemoveArgs(twin.id), { reject: false })));
          return this.withDns(network);
        }
        const subnet = subnets[candidate];
        const made = await this.run(create(subnet), { reject: false });
        failed = made.exitCode === 0 ? undefined : made;
        if (!failed || subnet === undefined || !isSubnetTaken(made.stderr)) continue;
        // Held by a network of another name, or twice by nothing listed (an engine may check more
        // than its networks): the next subnet (past the last, the engine picks one). Else a run is
        // making this network on it right now: asked again after a pause.
        const others = await inspect(listed.filter((n) => n.name !== name).map((n) => n.id));
        const held = others.some((other) => other.subnets.some((s) => subnetsOverlap(s.subnet, subnet)));
        if (held || ++unexplained === 2) [candidate, unexplained] = [candidate + 1, 0];
        else await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
      if (failed) throw toCommandError(this.binary, create(subnets[candidate]), failed);
      throw new EngineError("not-found", `network ${name} not found`);
    });
  }

  async endpoint(): Promise<string> {
    const { env, context } = this.dialect.endpoint;
    const set = process.env[env];
    if (set) return set;
    // No context named (docker's DOCKER_CONTEXT, or config.json's currentContext): the CLI's default socket, not asked.
    if (!context || !(await namesContext(context))) return "";
    const asked = await this.run(context.args, { reject: false });
    return asked.stdout.trim().split("\n")[0]!;
  }

  async locate(network: string): Promise<EngineLocation> {
    const { defaultNetwork, rootless, bridgesOnDemand } = this.dialect.endpoint;
    const firstLine = async (args: readonly string[] | undefined) =>
      args ? (await this.run(args, { reject: false })).stdout.trim().split("\n")[0]! : "";
    const [endpoint, rootlessText, inspected] = await Promise.all([
      this.endpoint(),
      typeof rootless === "object" ? firstLine(rootless.args) : "",
      // The network's bridge: podrun's cluster network, else (not made yet) the engine's default one.
      this.run(["network", "inspect", network, defaultNetwork], { reject: false }),
    ]);
    const networks = parseNetworkInspect(this.dialect, inspected.stdout);
    const chosen = networks.find((n) => n.name === network) ?? networks.find((n) => n.name === defaultNetwork);
    const bridge = {
      network: chosen?.name ?? defaultNetwork,
      interfaceName: chosen?.bridge,
      gateway: gatewayOf(chosen),
    };
    // A service reached through a socket (an endpoint) is not this process: "user" tells nothing then.
    const userRootless = rootless === "user" && endpoint === "" && process.getuid?.() !== 0;
    const said = typeof rootless === "object" && rootless.says.test(rootlessText);
    const engine = { onDemand: bridgesOnDemand, rootless: userRootless || said };
    return locateEngine(endpoint, bridge, HOST_INTERFACES, engine);
  }

  relay: { network: string; image: string } | undefined = undefined;

  files: { image: string; shared: boolean } | undefined = undefined;

  async runFilesHelper(
    args: readonly string[],
    options: { mounts: readonly HelperMount[]; input?: Buffer; image?: string },
  ): Promise<{ stdout: string; stderr: string }> {
    const image = options.image ?? this.files?.image;
    if (image === undefined) throw new Error("no files helper: the engine sees this host's files");
    const argv = buildFilesHelperArgs(image, args, options.mounts);
    if (this.record(argv)) return { stdout: "", stderr: "" };
    const result = await this.run(argv, { reject: false, ...(options.input ? { input: options.input } : {}) });
    // The helper's own error is its last line of stderr; the engine's (a mount refused) is the whole.
    if (result.exitCode !== 0) throw await explainCommandError(this.dialect, toCommandError(this.binary, argv, result));
    return { stdout: result.stdout, stderr: result.stderr };
  }

  async dial(host: string, port: number, signal?: AbortSignal): Promise<Duplex> {
    if (!this.relay) throw new Error("no relay: the pods are reached from this host");
    const network = relayNetworkFor(host, this.relay.network);
    await this.ensureRelay(network, this.relay.image);
    return dialThroughRelay(this.binary, buildDialArgs(network, host, port), signal);
  }

  /** The relay of `network`, running: made (or started) once per process, a concurrent run's kept. */
  private ensureRelay(network: string, image: string): Promise<void> {
    let ready = this.relays.get(network);
    if (!ready) {
      ready = this.explained(async () => {
        const name = relayName(network);
        for (let attempt = 0; attempt < 3; attempt++) {
          const state = await this.run(["container", "inspect", "-f", "{{.State.Running}}", name], { reject: false });
          if (state.exitCode === 0 && state.stdout.trim() === "true") return;
          const made =
            state.exitCode === 0
              ? await this.run(["start", name], { reject: false })
              : await this.run(buildRelayRunArgs(network, image), { reject: false });
          if (made.exitCode === 0) return;
          // Another run made it meanwhile (a name conflict): look again.
          if (attempt === 2) throw toCommandError(this.binary, buildRelayRunArgs(network, image), made);
        }
      });
      ready.catch(() => this.relays.delete(network));
      this.relays.set(network, ready);
    }
    return ready;
  }

  async removeRelay(network: string): Promise<void> {
    this.relays.delete(network);
    await this.run([...["rm", ...this.dialect.forceRemoveFlags], relayName(network)], { reject: false });
  }

  async removeNetwork(name: string): Promise<boolean> {
    return this.explained(async () => {
      const args = buildNetworkRemoveArgs(name);
      if (this.record(args)) return true;
      const result = await this.run(args, { reject: false });
      // docker's CLI adds an `exit status 1` line of its own after the daemon's "not found".
      if (result.exitCode === 0 || this.dialect.notFound.test(result.stderr)) return true;
      // docker: "has active endpoints"; podman: "network is being used"; nerdctl: "is in use".
      if (/active endpoints|is being used|in use/i.test(result.stderr)) return false;
      throw toCommandError(this.binary, args, result);
    });
  }

  private withDns(network: NetworkInfo): NetworkInfo {
    const dnsServer = this.dryRun
      ? this.dialect.clusterDns === "embedded"
        ? "127.0.0.11"
        : `<gateway of ${network.name}>`
      : clusterDnsServer(this.dialect, network);
    return { ...network, ...(dnsServer !== undefined ? { dnsServer } : {}) };
  }

  /** `work`'s result; an engine command's failure in it thrown explained, as an EngineError (engine-error.ts). */
  private async explained<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw await explainCommandError(this.dialect, error);
    }
  }

  /** In dry-run mode, records the command and returns true: the caller must not run it. */
  private record(args: string[]): boolean {
    this.dryRun?.record({ binary: this.binary, args });
    return this.dryRun !== undefined;
  }

  private run(args: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
    return runWithinDeadline(runCommand, this.binary, args, options, this.requestTimeoutMs);
  }

  /**
   * A listing (`ps -a`, `volume ls`) whose answer must be whole. podman 4 lists, then reads each
   * object: one that another run removes in between (any one, not only those the filters pick)
   * fails the whole listing with "no such container" or "no such volume", and prints nothing. The
   * listing is asked again, where that object is no longer listed; any other failure, or the same
   * one LISTING_ATTEMPTS times, is the answer.
   */
  private async runListing(args: readonly string[]): Promise<CommandResult> {
    for (let attempt = 1; ; attempt++) {
      const result = await this.run(args, { reject: false });
      if (result.exitCode === 0) return result;
      if (attempt === LISTING_ATTEMPTS || !isOnlyNotFound(this.dialect, result.stderr))
        throw toCommandError(this.binary, args, result);
    }
  }

  /** Runs a command for which "not found" is an acceptable answer; other failures throw. */
  private async runTolerant(args: readonly string[]): Promise<CommandResult> {
    const result = await this.run(args, { reject: false });
    if (result.exitCode !== 0 && !isOnlyNotFound(this.dialect, result.stderr))
      throw toCommandError(this.binary, args, result);
    return result;
  }
}

/** `promise`'s value, or undefined when `ms` pass first (the promise is left to settle later). */
async function raceTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms), undefined)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
