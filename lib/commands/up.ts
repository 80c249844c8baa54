import type { Pod } from "kubernetes-types/core/v1.js";
import { ExitCode, ExitError, PodrunError, UsageError } from "../errors.js";
import { createConsoleSink } from "../events/console-sink.js";
import { openEventLog, type EventLog } from "../events/event-log.js";
import { createJsonSink } from "../events/json-sink.js";
import { createRecorder, type EventSink } from "../events/recorder.js";
import { createImageManager } from "../images/manager.js";
import { createImagePuller } from "../images/puller.js";
import { loadManifest } from "../manifest/load-manifest.js";
import { configureColor } from "../output/color.js";
import { identifyPod, podSelector } from "../pod/identity.js";
import { inspectPodImages, startPod, StartPodError, undoStart } from "../pod/start-pod.js";
import { createRuntime } from "../runtime/cli-runtime.js";
import { detectRuntime, runtimeNamedInEnv, type DetectedRuntime, type RuntimeName } from "../runtime/detect.js";
import { quoteCommand } from "../runtime/quote.js";
import type { ContainerRuntime, RuntimeCommand } from "../runtime/types.js";
import { createFileBackoffStore, createMemoryBackoffStore } from "../state/backoff-store.js";
import { resolveStateDir } from "../state/paths.js";

/** The kubelet's default sandbox image (kubelet.md §9). */
export const DEFAULT_INFRA_IMAGE = "registry.k8s.io/pause:3.10";

export interface UpOptions {
  file: string;
  runtime?: RuntimeName;
  infraImage?: string;
  publishAll: boolean;
  parallelPulls: number;
  keepOnFailure: boolean;
  dryRun: boolean;
  json: boolean;
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream;
}

/** `podrun up`: picks the output, the engine and the state, then brings each pod of the file up. */
export async function up(options: UpOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr } = options;
  const color = configureColor(env);
  const manifest = await loadManifest(options.file);
  for (const warning of manifest.warnings) stderr.write(`${color.yellow(warning)}\n`);
  if (manifest.pods.length === 0) throw new UsageError(`${manifest.source}: no Pod to run (the file holds only ConfigMaps or Secrets)`);

  const detected = await chooseRuntime(options.runtime, env);
  const commands: RuntimeCommand[] = [];
  const runtime = createRuntime(detected, options.dryRun ? { dryRun: { record: (command: RuntimeCommand) => commands.push(command) } } : {});
  const stateDir = options.stateDir ?? resolveStateDir(env);

  // Every object label known up front keeps the event columns aligned from the first line.
  const objects = manifest.pods.flatMap((pod) => [
    `pod/${pod.metadata!.name}`,
    ...[...(pod.spec!.initContainers ?? []), ...pod.spec!.containers].map((c) => `pod/${pod.metadata!.name}[${c.name}]`),
  ]);
  const consoleSink = options.json || options.dryRun ? undefined : createConsoleSink({ stream: stdout, env, objects });
  const sinks: EventSink[] = options.dryRun ? [] : [consoleSink ?? createJsonSink(stdout)];
  // A dry run changes nothing on disk: no event log, and back-off kept in memory.
  const log: EventLog | undefined = options.dryRun ? undefined : await openEventLog(stateDir);
  const recorder = createRecorder({ sinks, ...(log ? { log } : {}) });
  const warnOnce = (message: string) => stderr.write(`${color.yellow(`Warning: ${message}`)}\n`);
  const backoff = options.dryRun ? createMemoryBackoffStore() : createFileBackoffStore(stateDir, { onWarning: warnOnce });
  const images = createImageManager({
    recorder,
    backoff,
    puller: createImagePuller({ runtime, maxParallel: options.parallelPulls }),
    clock: Date.now,
    ...(consoleSink ? { startProgress: consoleSink.startProgress } : {}),
  });
  const infraImage = options.infraImage || env.PODRUN_INFRA_IMAGE || DEFAULT_INFRA_IMAGE;

  try {
    for (const pod of manifest.pods) {
      await upPod({ pod, runtime, recorder, images, infraImage, options, stdout, stderr, color });
    }
  } finally {
    await recorder.flush().catch((error: unknown) => warnOnce(`event log not written: ${(error as Error).message}`));
    await log?.close();
    if (options.dryRun) {
      stdout.write(`# podrun up --dry-run: the ${detected.name} commands podrun would run, in order; none was run.\n`);
      stdout.write(`# (every image is assumed absent; environment values go through a file, never argv)\n`);
      for (const command of commands) stdout.write(`${quoteCommand(command.binary, command.args)}\n`);
    }
  }
}

async function upPod(context: {
  pod: Pod;
  runtime: ContainerRuntime;
  recorder: ReturnType<typeof createRecorder>;
  images: ReturnType<typeof createImageManager>;
  infraImage: string;
  options: UpOptions;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  color: ReturnType<typeof configureColor>;
}): Promise<void> {
  const { pod, runtime, options, stderr, color } = context;
  const identity = identifyPod(pod);
  const label = `pod/${identity.name}`;

  // Both questions go to the engine at once: is the pod already there, and which images are local.
  const presentImages = inspectPodImages(runtime, pod, context.infraImage);
  presentImages.catch(() => undefined); // startPod reports it, if it gets that far
  // A pod that is already up is not silently duplicated or replaced (idempotent re-runs come with `down`).
  if (!options.dryRun) {
    const existing = await runtime.listContainers(podSelector(identity)).catch((error: unknown) => explainEngineFailure(runtime, error));
    if (existing.length > 0) {
      throw new PodrunError(
        "PodExists",
        `${label} already exists in namespace ${identity.namespace} (${existing.length} containers): remove it first (${runtime.binary} rm -f $(${runtime.binary} ps -aq --filter label=io.kubernetes.pod.name=${identity.name}))`,
      );
    }
  }

  const started = Date.now();
  try {
    const result = await startPod(
      { runtime, recorder: context.recorder, images: context.images },
      { pod, identity, infraImage: context.infraImage, publishAll: options.publishAll, runHooks: !options.dryRun, presentImages },
    );
    if (!options.json && !options.dryRun) {
      const init = result.initContainers > 0 ? `, ${result.initContainers} init container${result.initContainers === 1 ? "" : "s"} completed` : "";
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      context.stdout.write(`${color.green(`${label}: ${result.appContainers} container${result.appContainers === 1 ? "" : "s"} started${init} (${seconds}s, ${runtime.name})`)}\n`);
    }
  } catch (error) {
    if (!(error instanceof StartPodError)) throw error;
    const count = error.created.containerIds.length + (error.created.sandbox ? 1 : 0);
    if (count > 0 && !options.keepOnFailure && !options.dryRun) {
      try {
        await undoStart(runtime, error.created);
        stderr.write(`podrun: removed the ${count} container${count === 1 ? "" : "s"} this run created for ${label} (--keep-on-failure keeps them)\n`);
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

// With --runtime or $PODRUN_RUNTIME the engine is not probed first (one process less on every
// `up`): the first real command tells whether it answers, and explainEngineFailure says why not.
async function chooseRuntime(preferred: RuntimeName | undefined, env: NodeJS.ProcessEnv): Promise<DetectedRuntime> {
  const chosen = preferred ?? runtimeNamedInEnv(env);
  if (chosen) return { name: chosen, binary: chosen, clientVersion: "", serverVersion: "" };
  return detectRuntime({ env });
}

/** A failed first command: the probe's one-line account (not installed, daemon down) if it fails too. */
async function explainEngineFailure(runtime: ContainerRuntime, error: unknown): Promise<never> {
  await detectRuntime({ preferred: runtime.name });
  throw error;
}
