import type { Pod } from "kubernetes-types/core/v1.js";
import { ExitCode, ExitError, PodrunError, UsageError } from "../errors.js";
import { createConsoleSink, formatObjectLabel, isInteractive } from "../output/console-sink.js";
import { openEventLog, type EventLog } from "../events/event-log.js";
import { createJsonSink } from "../output/json-sink.js";
import { parseDurationOption } from "../events/parse-duration.js";
import { createRecorder, type EventSink } from "../events/recorder.js";
import { containerNameOf } from "../events/types.js";
import { readAuthFile, type AuthFileCredentials } from "../credentials/pod-credentials.js";
import { createImageManager } from "../images/manager.js";
import { createImagePuller } from "../images/puller.js";
import { loadManifests } from "../manifest/load-manifest.js";
import { configureColor } from "../output/color.js";
import { formatHumanDuration } from "../output/human-duration.js";
import { plural } from "../output/plural.js";
import { createLiveStatus, statusOfEvent, type LiveStatus } from "../output/live-status.js";
import type { PodObjects } from "../pod/spec/pod-objects.js";
import { initContainerKind, isSidecar } from "../pod/spec/container-spec.js";
import { identifyPod, sandboxRuntimeName, type PodIdentity } from "../pod/identity.js";
import { reconcilePod, type ReconcileResult } from "../pod/reconcile/apply-plan.js";
import { inspectPodImages, startPod, StartPodError, StartPodInterrupted, undoStart, type StartedPod } from "../pod/start/start-pod.js";
import { formatUpSummary } from "../pod/up-summary.js";
import { planPodVolumes } from "../pod/volumes/volume-plan.js";
import { podDirectory } from "../pod/volumes/pod-dir.js";
import { findPodIP, waitForPodReady, WaitInterruptedError } from "../readiness/wait-ready.js";
import { watchInterrupt, type Interrupt } from "../process/interrupt.js";
import { chooseRuntime, EngineCommandError, explainEngineFailure as explainCommandFailure } from "../runtime/choose-runtime.js";
import { createRuntime, type RuntimeFactory } from "../runtime/cli-runtime.js";
import type { RuntimeName } from "../runtime/detect.js";
import { quoteCommand } from "../runtime/quote.js";
import { LABEL_CONTAINER_NAME, type ContainerRuntime, type RuntimeCommand } from "../runtime/types.js";
import { createFileBackoffStore, createMemoryBackoffStore } from "../state/backoff-store.js";
import { resolveStateDir } from "../state/paths.js";

/** The kubelet's default sandbox image (cmd/kubelet/app/options/container_runtime.go). */
export const DEFAULT_INFRA_IMAGE = "registry.k8s.io/pause:3.10";

export interface UpOptions {
  /** The engine to talk to; a fake in engine-free tests. Default: the container CLI. */
  createRuntime?: RuntimeFactory;
  /** Manifest files, directories, and `-` for standard input, read as one set. */
  files: readonly string[];
  /** Read the subdirectories of a directory too (-R). */
  recursive?: boolean;
  runtime?: RuntimeName;
  infraImage?: string;
  /** `--authfile`: registry credentials tried after the pod's imagePullSecrets (default: $REGISTRY_AUTH_FILE). */
  authFile?: string;
  publishAll: boolean;
  parallelPulls: number;
  keepOnFailure: boolean;
  dryRun: boolean;
  json: boolean;
  stateDir?: string;
  /** Recreate the whole pod even when its containers match the manifest. */
  replace?: boolean;
  /** Return only when every app container is Ready (startup and readiness probes), or fail. */
  wait?: boolean;
  /** With `wait`: the time limit (default DEFAULT_WAIT_TIMEOUT_MS). */
  timeoutMs?: number;
  /** With `wait`: Ctrl-C removes the pod instead of leaving it running. */
  rmOnInterrupt?: boolean;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream;
}

/** How long `up --wait` waits for readiness unless --timeout says otherwise. */
export const DEFAULT_WAIT_TIMEOUT_MS = 5 * 60_000;

/** `--timeout` as Go durations read (`90s`, `5m`, `1m30s`); anything else is a usage error. */
export function parseWaitTimeout(value: string): number {
  return parseDurationOption(value, "--timeout");
}

/**
 * `podrun up`: picks the output, the engine and the state, then brings each pod of the files up,
 * one after the other in file order (with `--wait`, each is waited for before the next starts).
 * A pod that fails does not stop those after it: the exit code is 1 if any failed. Ctrl-C stops
 * the whole run (exit 130).
 */
export async function up(options: UpOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr } = options;
  const color = configureColor(env);
  if (!options.wait && (options.timeoutMs !== undefined || options.rmOnInterrupt)) throw new UsageError("--timeout and --rm-on-interrupt apply only with --wait");
  const manifest = await loadManifests(options.files, { recursive: options.recursive === true });
  for (const warning of manifest.warnings) stderr.write(`${color.yellow(warning)}\n`);
  if (manifest.pods.length === 0) {
    throw new UsageError(`${manifest.source}: no Pod to run (${manifest.sources.length === 1 ? "the file holds" : "the files hold"} only ConfigMaps or Secrets)`);
  }
  // Read once, before anything is created: a missing or broken file is a usage error.
  const authFilePath = options.authFile || env["REGISTRY_AUTH_FILE"];
  const authFile = authFilePath ? await readAuthFile(authFilePath) : undefined;

  const detected = await chooseRuntime(options.runtime, env);
  const commands: RuntimeCommand[] = [];
  // With several pods, the dry run says where each pod's commands begin.
  const podMarks: { at: number; line: string }[] = [];
  const runtime = (options.createRuntime ?? createRuntime)(detected, options.dryRun ? { dryRun: { record: (command: RuntimeCommand) => commands.push(command) } } : {});
  const stateDir = options.stateDir ?? resolveStateDir(env);

  // Every object label known up front keeps the event columns aligned from the first line.
  const objects = manifest.pods.flatMap((pod) => [
    `pod/${pod.metadata!.name}`,
    ...[...(pod.spec!.initContainers ?? []), ...pod.spec!.containers].map((c) => `pod/${pod.metadata!.name}[${c.name}]`),
  ]);
  // `--wait` on a terminal: one live line per container, with the event lines above it.
  const live = options.wait && !options.json && !options.dryRun && isInteractive(stdout, env)
    ? createLiveStatus({ stream: stdout, chalk: color, labels: objects.filter((o) => o.endsWith("]")) })
    : undefined;
  const consoleSink = options.json || options.dryRun ? undefined : createConsoleSink({ stream: stdout, env, objects, ...(live ? { live } : {}) });
  const sinks: EventSink[] = options.dryRun ? [] : [...(live ? [createLiveStatusSink(live, manifest.pods)] : []), consoleSink ?? createJsonSink(stdout)];
  // A dry run changes nothing on disk: no event log, and back-off kept in memory.
  const log: EventLog | undefined = options.dryRun ? undefined : await openEventLog(stateDir);
  const recorder = createRecorder({ sinks, ...(log ? { log } : {}) });
  const warnOnce = (message: string) => stderr.write(`${color.yellow(`Warning: ${message}`)}\n`);
  const backoff = options.dryRun ? createMemoryBackoffStore() : createFileBackoffStore(stateDir, { onWarning: warnOnce });
  // Ctrl-C or SIGTERM: while starting, what this run made is removed (exit 130); during `--wait`,
  // the wait answers it. One watcher for the whole run; pulls under way are aborted through it.
  const interrupt = options.dryRun ? undefined : watchInterrupt();
  const images = createImageManager({
    recorder,
    backoff,
    puller: createImagePuller({ runtime, maxParallel: options.parallelPulls, ...(interrupt ? { signal: interrupt.signal } : {}) }),
    clock: Date.now,
    ...(consoleSink ? { startProgress: consoleSink.startProgress } : {}),
  });
  const infraImage = options.infraImage || env.PODRUN_INFRA_IMAGE || DEFAULT_INFRA_IMAGE;

  const several = manifest.pods.length > 1;
  const failed: string[] = [];
  const done: { name: string; source: string }[] = [];
  try {
    for (const pod of manifest.pods) {
      const source = manifest.podSources.get(pod) ?? manifest.source;
      const label = `pod/${pod.metadata!.name}`;
      // A Ctrl-C between two pods: the next one is not started.
      if (interrupt?.signal.aborted) throw new ExitError(ExitCode.Interrupted);
      if (several) podMarks.push({ at: commands.length, line: `# ${label} (${source})` });
      const context = { pod, source, objects: manifest, authFile, runtime, stateDir, recorder, images, infraImage, options, stdout, stderr, color, live, interrupt, lastPod: pod === manifest.pods.at(-1) };
      const ok = several ? await upPodOfSeveral(context) : (await upPod(context), true);
      if (ok) done.push({ name: pod.metadata!.name!, source });
      else failed.push(label);
    }
  } catch (error) {
    // Ctrl-C answered the pod under way (undone, or as --rm-on-interrupt says); those already up
    // stay, and the user is told which.
    if (error instanceof ExitError && error.code === ExitCode.Interrupted && done.length > 0) {
      const targets = [...new Set(done.map((d) => (d.source === "<stdin>" ? d.name : d.source)))];
      const labels = done.map((d) => `pod/${d.name}`).join(", ");
      stderr.write(`podrun: interrupted; left running: ${labels} (podrun down ${targets.join(" ")} removes ${done.length === 1 ? "it" : "them"})\n`);
    }
    throw error;
  } finally {
    live?.stop();
    interrupt?.dispose();
    await recorder.flush().catch((error: unknown) => warnOnce(`event log not written: ${(error as Error).message}`));
    await log?.close();
    if (options.dryRun) {
      stdout.write(`# podrun up --dry-run: the ${detected.name} commands podrun would run, in order; none was run.\n`);
      stdout.write(`# (every image is assumed absent; environment values and registry credentials go through files, never argv)\n`);
      commands.forEach((command, i) => {
        for (const mark of podMarks) if (mark.at === i) stdout.write(`${mark.line}\n`);
        stdout.write(`${quoteCommand(command.binary, command.args, command.env)}\n`);
      });
    }
  }
  if (failed.length > 0) {
    stderr.write(`${color.red(`podrun: ${failed.length} of ${plural(manifest.pods.length, "pod")} failed: ${failed.join(", ")}`)}\n`);
    throw new ExitError(ExitCode.Failed);
  }
}

/**
 * One pod of several: its failure is reported (by upPod) and returned, so that the pods after it
 * still go up. An interrupt, or an engine that does not answer, ends the whole run.
 */
async function upPodOfSeveral(context: Parameters<typeof upPod>[0]): Promise<boolean> {
  try {
    await upPod(context);
    return true;
  } catch (error) {
    if (error instanceof ExitError && error.code === ExitCode.Failed) return false;
    if (error instanceof EngineCommandError) {
      context.stderr.write(`${context.color.red(`Error: pod/${context.pod.metadata!.name}: ${error.message}`)}\n`);
      return false;
    }
    throw error;
  }
}

async function upPod(context: {
  pod: Pod;
  /** The file the pod came from (`<stdin>` for `-`). */
  source: string;
  objects: PodObjects;
  authFile?: AuthFileCredentials | undefined;
  runtime: ContainerRuntime;
  recorder: ReturnType<typeof createRecorder>;
  images: ReturnType<typeof createImageManager>;
  infraImage: string;
  /** podrun's state directory: volume files go in its pod directory. */
  stateDir: string;
  options: UpOptions;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  color: ReturnType<typeof configureColor>;
  live?: LiveStatus | undefined;
  interrupt?: Interrupt | undefined;
  /** The last pod of the run: the live view ends with it. */
  lastPod?: boolean;
}): Promise<void> {
  const { pod, runtime, options, stderr, color } = context;
  const signal = context.interrupt?.signal;
  let identity = identifyPod(pod);
  const label = `pod/${identity.name}`;
  const started = Date.now();
  const say = (line: string) => (context.live ? context.live.print(line) : context.stdout.write(`${line}\n`));

  // Which images are local is asked while the pod is read back: a new pod needs the answer first.
  const presentImages = inspectPodImages(runtime, pod, context.infraImage);
  presentImages.catch(() => undefined); // startPod reports it, if it gets that far
  // A pod that is already there is reconciled with the manifest: kept, changed in part, or
  // recreated (reconcile.ts). A dry run asks the engine nothing and plans a new pod.
  let reconciled: ReconcileResult | undefined;
  if (!options.dryRun) {
    try {
      reconciled = await reconcilePod(
        { runtime, recorder: context.recorder },
        {
          pod,
          objects: context.objects,
          identity,
          infraImage: context.infraImage,
          publishAll: options.publishAll,
          replace: options.replace === true,
          // Not events: the kubelet records nothing for a container it leaves alone.
          onPlan: (plan) => {
            if (plan.action !== "keep" || options.json) return;
            for (const name of plan.keep) say(color.dim(`${label}[${name}] unchanged`));
            for (const init of pod.spec!.initContainers ?? []) {
              if (isSidecar(init)) context.live?.set(`${label}[${init.name}]`, "Running", "active");
              else context.live?.set(`${label}[${init.name}]`, "Completed", "done");
            }
          },
        },
      );
    } catch (error) {
      // An engine that is down, or an engine command that failed: one line saying which.
      if (!(error instanceof PodrunError)) return explainCommandFailure(runtime.name, error);
      context.live?.stop();
      stderr.write(`${color.red(`Error: ${error.reason}: ${label}: ${error.message}`)}\n`);
      throw new ExitError(ExitCode.Failed);
    }
    identity = reconciled.identity;
  }
  const plan = reconciled?.plan;
  const keptPod = plan?.action === "keep" ? { ...(reconciled!.infra ? { sandboxId: reconciled!.infra.id } : {}), create: [...plan.recreate, ...plan.create] } : undefined;

  try {
    // Even with every container unchanged, startPod runs: it rewrites the kept pod's volume files in
    // place (a ConfigMap that changed), as the kubelet updates them in a running pod.
    const created = await startPod(
      { runtime, recorder: context.recorder, images: context.images },
      {
        pod,
        objects: context.objects,
        ...(context.authFile ? { authFile: context.authFile } : {}),
        identity,
        infraImage: context.infraImage,
        publishAll: options.publishAll,
        runHooks: !options.dryRun,
        stateDir: context.stateDir,
        dryRun: options.dryRun,
        presentImages,
        ...(signal ? { signal } : {}),
        ...(keptPod ? { keptPod } : {}),
      },
    );
    const result = keptPod ? withKeptContainers(created, pod, reconciled!) : created;
    if (options.wait && !options.dryRun) {
      await waitUntilReady({ ...context, identity, started: result, since: started });
      return;
    }
    if (!options.json && !options.dryRun) {
      const summary = formatUpSummary({ label, ...(plan ? { plan } : {}), started: created, seconds: (Date.now() - started) / 1000, runtime: runtime.name });
      context.stdout.write(`${color.green(summary)}\n`);
    }
  } catch (error) {
    if (error instanceof StartPodInterrupted) {
      context.live?.stop();
      await undoInterrupted(runtime, error.created, stderr);
      throw new ExitError(ExitCode.Interrupted);
    }
    if (!(error instanceof StartPodError)) throw error;
    context.live?.stop(); // stderr from here on: the live block must not be redrawn over it
    const count = error.created.containerIds.length + (error.created.sandbox ? 1 : 0);
    // Volumes and the pod directory go too, even when no container was made (a hostNetwork pod whose image failed).
    const anything = count > 0 || (error.created.volumes?.length ?? 0) > 0 || error.created.podDir !== undefined;
    if (anything && !options.keepOnFailure && !options.dryRun) {
      try {
        await undoStart(runtime, error.created);
        if (count > 0) stderr.write(`podrun: removed the ${plural(count, "container")} this run created for ${label} (--keep-on-failure keeps them)\n`);
      } catch (cleanupError) {
        stderr.write(`podrun: could not remove everything this run created for ${label}: ${(cleanupError as Error).message.split("\n")[0]}\n`);
      }
    }
    if (error.details) stderr.write(`${error.details}\n`);
    // The last line says which container failed and why.
    stderr.write(`${color.red(`Error: ${error.reason}: ${label}: ${error.message}`)}\n`);
    throw new ExitError(ExitCode.Failed);
  }
}

/** Ctrl-C while the pod was starting: what this run made goes, whatever --keep-on-failure says. */
async function undoInterrupted(runtime: ContainerRuntime, created: StartPodInterrupted["created"], stderr: NodeJS.WritableStream): Promise<void> {
  const count = created.containerIds.length + (created.sandbox ? 1 : 0);
  try {
    await undoStart(runtime, created);
    stderr.write(count === 0 ? "podrun: interrupted; this run had created no container\n" : `podrun: interrupted; removed the ${plural(count, "container")} this run created\n`);
  } catch (error) {
    stderr.write(`podrun: interrupted; could not remove everything this run created: ${(error as Error).message.split("\n")[0]}\n`);
  }
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
    ...(reconciled.infra ? { sandboxId: reconciled.infra.id } : {}),
    containerIds: created?.containerIds ?? [],
    containers,
    initContainers: created?.initContainers ?? 0,
    appContainers: created?.appContainers ?? 0,
  };
}

/** `--wait`: the pod's readiness, then a summary line; or why not, or what Ctrl-C left. */
async function waitUntilReady(context: Parameters<typeof upPod>[0] & { identity: PodIdentity; started: StartedPod; since: number }): Promise<void> {
  const { pod, runtime, options, stdout, stderr, color, live, identity, started } = context;
  const label = `pod/${identity.name}`;
  const say = (line: string) => (live ? live.print(line) : stdout.write(`${line}\n`));
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  try {
    // A Ctrl-C while the pod was starting is answered now, before any wait.
    if (context.interrupt?.signal.aborted) throw new WaitInterruptedError("interrupted");
    const podIP = await findPodIP(runtime, started, pod.spec!.hostNetwork === true);
    if (!options.json && !live) say(color.dim(`${label}: ${plural(started.appContainers, "container")}${started.sidecars ? ` and ${plural(started.sidecars, "sidecar")}` : ""} started; waiting up to ${formatHumanDuration(timeoutMs)} for readiness`));
    const ready = await waitForPodReady({
      runtime,
      recorder: context.recorder,
      pod,
      identity,
      containers: started.containers,
      podIP,
      timeoutMs,
      ...(context.interrupt ? { signal: context.interrupt.signal } : {}),
      ...(live ? { onProgress: (list) => list.forEach((c) => live.set(`${label}[${c.name}]`, c.state, c.failed ? "failed" : c.ready ? "done" : "active")) } : {}),
    });
    const seconds = ((Date.now() - context.since) / 1000).toFixed(1);
    if (context.lastPod) live?.stop(); // the summary goes below the final frame
    if (!options.json) say(color.green(`${label}: ready: ${ready.containers}/${plural(ready.containers, "container")} (${seconds}s)`));
  } catch (error) {
    live?.stop();
    if (error instanceof WaitInterruptedError) {
      await answerInterrupt({ pod, source: context.source, runtime, options, stderr, identity, started, stateDir: context.stateDir });
      throw new ExitError(ExitCode.Interrupted);
    }
    if (!(error instanceof PodrunError)) throw error;
    // Left running on purpose: its logs and state are what the user needs to look at next.
    stderr.write(`podrun: ${label} left as it is (podrun down ${downTarget(context.source, identity)} removes it)\n`);
    if (error.details) stderr.write(`${error.details}\n`);
    stderr.write(`${color.red(`Error: ${error.reason}: ${label}: ${error.message}`)}\n`);
    throw new ExitError(ExitCode.Failed);
  }
}

/** Ctrl-C during `--wait`: the pod stays, unless --rm-on-interrupt; either way, say so. */
async function answerInterrupt(context: { pod: Pod; source: string; runtime: ContainerRuntime; options: UpOptions; stderr: NodeJS.WritableStream; identity: PodIdentity; started: StartedPod; stateDir: string }): Promise<void> {
  const { runtime, options, stderr, identity, started } = context;
  const label = `pod/${identity.name}`;
  if (!options.rmOnInterrupt) {
    stderr.write(`podrun: interrupted; ${label} left running (podrun down ${downTarget(context.source, identity)} removes it)\n`);
    return;
  }
  try {
    // The whole pod, kept containers included (`up` of a pod that was already there).
    const containerIds = [...new Set([...started.containerIds, ...started.containers.map((c) => c.id)])];
    const volumes = planPodVolumes(context.pod.spec!, identity).map((volume) => volume.name);
    const podDir = podDirectory(context.stateDir, runtime.name, identity);
    await undoStart(runtime, { ...(started.sandboxId !== undefined ? { sandbox: sandboxRuntimeName(identity) } : {}), containerIds, volumes, podDir });
    stderr.write(`podrun: interrupted; removed ${label} (--rm-on-interrupt)\n`);
  } catch (error) {
    stderr.write(`podrun: interrupted; could not remove everything of ${label}: ${(error as Error).message.split("\n")[0]}\n`);
  }
}

// What to give `podrun down`: the pod's file, unless it was standard input.
function downTarget(source: string, identity: PodIdentity): string {
  return source === "<stdin>" ? identity.name : source;
}

/**
 * Moves each container's live line along with its events (Pulling, Creating, Starting…). An event
 * of an init container also means the ones before it have completed; of an app container, all.
 */
function createLiveStatusSink(live: LiveStatus, pods: readonly Pod[]): EventSink {
  return {
    write(event) {
      const container = containerNameOf(event.involvedObject);
      if (container === undefined) return;
      const status = statusOfEvent(event.reason);
      if (status) live.set(formatObjectLabel(event), status.text, status.tone);
      const pod = pods.find((p) => p.metadata!.name === event.involvedObject.name);
      // Init containers run one at a time: those before the one this event is about have completed
      // (sidecars among them keep running: their line stays as their own events and the wait set it).
      const inits = pod?.spec!.initContainers ?? [];
      const isApp = event.involvedObject.fieldPath?.startsWith("spec.containers{") === true;
      const done = isApp ? inits.length : inits.findIndex((init) => init.name === container);
      for (const init of inits.slice(0, Math.max(0, done))) if (!isSidecar(init)) live.set(`pod/${event.involvedObject.name}[${init.name}]`, "Completed", "done");
    },
  };
}
