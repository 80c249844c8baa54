import type { ChalkInstance } from "chalk";
import { ExitCode, ExitError, UsageError } from "../errors.js";
import { createConsoleSink, isInteractive, type ConsoleSink } from "../output/console-sink.js";
import { openEventLog, type EventLog } from "../events/event-log.js";
import { createJsonSink } from "../output/json-sink.js";
import { parseDurationOption } from "../events/parse-duration.js";
import { createRecorder, type EventRecorder, type EventSink } from "../events/recorder.js";
import { readAuthFile } from "../pod/pull-credentials.js";
import { createImageManager, type ImageManager } from "../images/manager.js";
import { createImagePuller, DEFAULT_PARALLEL_PULLS } from "../images/puller.js";
import { loadManifests } from "../kinds/read-manifests.js";
import { parseImageOverrides } from "../manifest/image-overrides.js";
import { planObjects, type PodRun } from "../apply/plan-objects.js";
import { formatServiceOutcome } from "../output/service-lines.js";
import { resolveProxyImage } from "../services/proxy-config.js";
import { applyUp, type UpResult, type UpRunOptions, type UpStep } from "../apply/up.js";
import { configureColor } from "../output/color.js";
import { plural } from "../text/plural.js";
import { createLiveStatus, type LiveStatus } from "../output/live-status.js";
import { createLiveStatusSink, showPodProgress } from "../output/live-status-sink.js";
import { formatPodOutcome, formatPodProgress } from "../output/pod-outcome.js";
import { formatJobOutcome } from "../output/job-outcome.js";
import type { PodProgress } from "../pod/run-pod.js";
import { formatDeadlineWarnings } from "../pod/active-deadline.js";
import { watchInterrupt } from "../process/interrupt.js";
import { chooseRuntime } from "../runtime/choose-runtime.js";
import { createRuntime, type RuntimeFactory } from "../runtime/cli-runtime.js";
import { resolveRequestTimeout } from "../runtime/request-timeout.js";
import type { RuntimeName } from "../runtime/detect.js";
import { parseImagePullProgressDeadline } from "../runtime/pull-progress.js";
import {
  formatDryRun,
  formatHeld,
  formatLeftRunning,
  formatPodMark,
  formatStalePodOutcome,
  formatUnschedulable,
} from "../output/up-lines.js";
import type { ContainerRuntime, RuntimeCommand } from "../runtime/types.js";
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
  /** `-k DIR`: the kustomization of DIR (lib/manifest/kustomize.ts), instead of files. */
  kustomize?: string;
  runtime?: RuntimeName;
  /** `--runtime-request-timeout`: each engine command's deadline (default $PODRUN_RUNTIME_REQUEST_TIMEOUT, else 2m). */
  runtimeRequestTimeout?: string;
  infraImage?: string;
  /** `--service-proxy-image`: the Services' proxy (default $PODRUN_SERVICE_PROXY_IMAGE, else SERVICE_PROXY_IMAGE). */
  serviceProxyImage?: string;
  /** `--address`: where NodePort and LoadBalancer Services are published (default $PODRUN_ADDRESS, else 127.0.0.1). */
  address?: string;
  /** `--authfile`: registry credentials tried after the pod's imagePullSecrets (default: $REGISTRY_AUTH_FILE). */
  authFile?: string;
  publishAll: boolean;
  /** `--parallel-pulls` (default DEFAULT_PARALLEL_PULLS). */
  parallelPulls?: number | undefined;
  /** `--image-pull-progress-deadline`, as written (default: $PODRUN_IMAGE_PULL_PROGRESS_DEADLINE, else 5m). */
  imagePullProgressDeadline?: string;
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
  /** `--image NAME=REF` (and $PODRUN_IMAGES): the images put in place of those written (manifest/image-overrides.ts). */
  images?: readonly string[];
  /** `--pull-policy`: every container's pull policy for this run. */
  pullPolicy?: "IfNotPresent" | "Never";
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream;
}

export { DEFAULT_WAIT_TIMEOUT_MS } from "../apply/up.js";

/** `--timeout` as Go durations read (`90s`, `5m`, `1m30s`); anything else is a usage error. */
export function parseWaitTimeout(value: string): number {
  return parseDurationOption(value, "--timeout");
}

/**
 * `podrun up`: reads the files and the flags, picks the output, the engine and the state, then
 * hands the plan to the run (apply/up.ts: every pod together, the Jobs beside them) and prints each step as it ends (output/pod-outcome.ts, output/up-lines.ts). A pod that
 * fails does not stop those after it: the exit code is 1 if any failed. Ctrl-C stops the whole
 * run (exit 130).
 */
export async function up(options: UpOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr } = options;
  const color = configureColor(env);
  const warn = (warning: string) => stderr.write(`${color.yellow(warning)}\n`);
  const input = await readUpInput(options, env, warn);
  const { manifest, plan } = input;
  const detected = await chooseRuntime(options.runtime, env);
  for (const warning of manifest.engineWarnings?.[detected.name] ?? []) warn(warning);
  // A dry run's commands; with several pods, where each pod's commands begin.
  const dry = { commands: [] as RuntimeCommand[], marks: [] as { at: number; line: string }[] };
  const runtime = (options.createRuntime ?? createRuntime)(
    detected,
    options.dryRun
      ? { dryRun: { record: (command: RuntimeCommand) => dry.commands.push(command) } }
      : { requestTimeoutMs: input.requestTimeoutMs, pullProgressDeadlineMs: input.pullProgressDeadlineMs },
  );
  const stateDir = options.stateDir ?? resolveStateDir(env);
  const output = openUpOutput(options, plan.runs, { stdout, env, color });
  // A dry run changes nothing on disk: no event log, and back-off kept in memory.
  const log: EventLog | undefined = options.dryRun ? undefined : await openEventLog(stateDir);
  const recorder = createRecorder({ sinks: output.sinks, log });
  const warnOnce = (message: string) => warn(`Warning: ${message}`);
  const proxyImage = resolveProxyImage(options.serviceProxyImage, env);
  // Ctrl-C or SIGTERM: while starting, what this run made is removed (exit 130); during `--wait`,
  // the wait answers it. One watcher for the whole run; pulls under way are aborted through it.
  const interrupt = options.dryRun ? undefined : watchInterrupt();
  const images = createUpImages(options, { runtime, recorder, stateDir, warnOnce, output, signal: interrupt?.signal });
  const print = createStepPrinter(options, {
    stderr,
    color,
    output,
    dry,
    several: plan.runs.length + plan.jobs.length > 1,
  });
  let result: UpResult;
  try {
    result = await applyUp(
      { runtime, recorder, images },
      {
        plan,
        podOptions: podOptionsOf(options, { env, input, stateDir, signal: interrupt?.signal }),
        services: {
          image: proxyImage,
          // Loopback unless asked: a CI machine's test database must not be reachable from the network by accident.
          address: options.address || env.PODRUN_ADDRESS || "127.0.0.1",
        },
        replace: options.replace === true,
        keepOnFailure: options.keepOnFailure,
        parallelStarts: input.parallelStarts,
        wait: options.wait
          ? { timeoutMs: options.timeoutMs, rmOnInterrupt: options.rmOnInterrupt === true }
          : undefined,
        report: print.step,
        onProgress: print.progress,
      },
    );
    // Ctrl-C answered the pod under way (undone, or as --rm-on-interrupt says); those already up
    // stay, and the user is told which.
    if (result.status === "interrupted") {
      if (result.done.length > 0) stderr.write(`${formatLeftRunning(result.done)}\n`);
      throw new ExitError(ExitCode.Interrupted);
    }
    if (result.status === "failed") throw new ExitError(ExitCode.Failed);
  } finally {
    output.live?.stop();
    interrupt?.dispose();
    await recorder.flush().catch((error: unknown) => warnOnce(`event log not written: ${(error as Error).message}`));
    await log?.close();
    if (options.dryRun)
      for (const line of formatDryRun(detected.name, dry.commands, dry.marks)) stdout.write(`${line}\n`);
  }
  if (result.status === "done" && result.failed.length > 0) {
    stderr.write(
      `${color.red(`podrun: ${result.failed.length} of ${plural(plan.runs.length, "pod")} failed: ${result.failed.join(", ")}`)}\n`,
    );
    throw new ExitError(ExitCode.Failed);
  }
}

/** What every pod of the run, bare or a Job's, is brought up with. */
function podOptionsOf(
  options: UpOptions,
  io: { env: NodeJS.ProcessEnv; input: UpInput; stateDir: string; signal: AbortSignal | undefined },
): UpRunOptions["podOptions"] {
  return {
    objects: io.input.manifest,
    authFile: io.input.authFile,
    infraImage: options.infraImage || io.env.PODRUN_INFRA_IMAGE || DEFAULT_INFRA_IMAGE,
    stateDir: io.stateDir,
    publishAll: options.publishAll,
    dryRun: options.dryRun,
    signal: io.signal,
  };
}

type UpInput = Awaited<ReturnType<typeof readUpInput>>;

/** $PODRUN_PARALLEL_LIMIT: how many pods start at once; anything but a positive integer is a usage error. */
function parallelLimit(env: NodeJS.ProcessEnv): number | undefined {
  const value = env["PODRUN_PARALLEL_LIMIT"];
  if (value === undefined || value === "") return undefined;
  if (!/^[1-9]\d*$/.test(value))
    throw new UsageError(`invalid value "${value}" for PODRUN_PARALLEL_LIMIT: expected a positive integer`);
  return Number(value);
}

/** What `up` reads before anything is created: a missing or broken file, or a wrong flag, is a usage error. */
async function readUpInput(options: UpOptions, env: NodeJS.ProcessEnv, warn: (warning: string) => void) {
  if (!options.wait && (options.timeoutMs !== undefined || options.rmOnInterrupt))
    throw new UsageError("--timeout and --rm-on-interrupt apply only with --wait");
  const requestTimeoutMs = resolveRequestTimeout(options.runtimeRequestTimeout, env);
  const images = parseImageOverrides(options.images ?? [], env["PODRUN_IMAGES"]);
  const manifest = await loadManifests(options.files, {
    recursive: options.recursive === true,
    kustomize: options.kustomize,
    images,
  });
  for (const warning of manifest.warnings) warn(warning);
  if (options.pullPolicy !== undefined)
    warn(
      `Warning: --pull-policy ${options.pullPolicy}: every container's image is pulled ${options.pullPolicy === "Never" ? "never" : "only when absent"}, where a cluster pulls as its imagePullPolicy says`,
    );
  // The bare pods, then the pods of each workload in file order, as their controllers would make them.
  const plan = planObjects(manifest.items);
  if (!options.wait)
    for (const warning of formatDeadlineWarnings({
      pods: plan.pods.map(({ pod }) => pod),
      podSources: new Map(plan.pods.map(({ pod, source }) => [pod, source])),
      source: manifest.source,
    }))
      warn(warning);
  if (!plan.runsAnything) {
    throw new UsageError(
      `${manifest.source}: no Pod to run (${manifest.sources.length === 1 ? "the file holds" : "the files hold"} only ConfigMaps or Secrets)`,
    );
  }
  const authFilePath = options.authFile || env["REGISTRY_AUTH_FILE"];
  const authFile = authFilePath ? await readAuthFile(authFilePath) : undefined;
  const pullProgressDeadlineMs =
    options.imagePullProgressDeadline !== undefined
      ? parseImagePullProgressDeadline(options.imagePullProgressDeadline)
      : parseImagePullProgressDeadline(
          env["PODRUN_IMAGE_PULL_PROGRESS_DEADLINE"],
          "PODRUN_IMAGE_PULL_PROGRESS_DEADLINE",
        );
  return { manifest, plan, authFile, requestTimeoutMs, pullProgressDeadlineMs, parallelStarts: parallelLimit(env) };
}

/** Where `up` writes: the event sinks, the live block of `--wait` on a terminal, and its lines. */
interface UpOutput {
  sinks: EventSink[];
  live: LiveStatus | undefined;
  consoleSink: ConsoleSink | undefined;
  /** A line on standard output, above the live block when there is one. */
  say: (line: string) => void;
}

function openUpOutput(
  options: UpOptions,
  runs: readonly PodRun[],
  io: { stdout: NodeJS.WritableStream & { isTTY?: boolean }; env: NodeJS.ProcessEnv; color: ChalkInstance },
): UpOutput {
  const { stdout, env, color } = io;
  // Every object label known up front keeps the event columns aligned from the first line.
  const objects = runs.flatMap(({ pod }) => [
    `pod/${pod.metadata!.name}`,
    ...[...(pod.spec!.initContainers ?? []), ...pod.spec!.containers].map(
      (c) => `pod/${pod.metadata!.name}[${c.name}]`,
    ),
  ]);
  // `--wait` on a terminal: one live line per container, with the event lines above it.
  const live =
    options.wait && !options.json && !options.dryRun && isInteractive(stdout, env)
      ? createLiveStatus({ stream: stdout, chalk: color, labels: objects.filter((o) => o.endsWith("]")) })
      : undefined;
  const consoleSink =
    options.json || options.dryRun ? undefined : createConsoleSink({ stream: stdout, env, objects, live });
  const sinks: EventSink[] = options.dryRun
    ? []
    : [
        ...(live
          ? [
              createLiveStatusSink(
                live,
                runs.map((run) => run.pod),
              ),
            ]
          : []),
        consoleSink ?? createJsonSink(stdout),
      ];
  const say = (line: string) => (live ? live.print(line) : stdout.write(`${line}\n`));
  return { sinks, live, consoleSink, say };
}

function createUpImages(
  options: UpOptions,
  io: {
    runtime: ContainerRuntime;
    recorder: EventRecorder;
    stateDir: string;
    warnOnce: (message: string) => void;
    output: UpOutput;
    signal: AbortSignal | undefined;
  },
): ImageManager {
  const { consoleSink } = io.output;
  const backoff = options.dryRun
    ? createMemoryBackoffStore()
    : createFileBackoffStore(io.stateDir, { onWarning: io.warnOnce });
  return createImageManager({
    recorder: io.recorder,
    backoff,
    puller: createImagePuller({
      runtime: io.runtime,
      maxParallel: options.parallelPulls ?? DEFAULT_PARALLEL_PULLS,
      signal: io.signal,
    }),
    clock: Date.now,
    // The console sink's spinner while a pull runs (none with --json).
    startProgress: consoleSink && ((text: string) => consoleSink.startProgress(text)),
    ...(options.pullPolicy !== undefined && { pullPolicyOverride: options.pullPolicy }),
  });
}

/** Prints each step of the run as it ends, and each pod's progress. */
function createStepPrinter(
  options: UpOptions,
  io: {
    stderr: NodeJS.WritableStream;
    color: ChalkInstance;
    output: UpOutput;
    dry: { commands: readonly RuntimeCommand[]; marks: { at: number; line: string }[] };
    several: boolean;
  },
): { step: (step: UpStep) => void; progress: (run: PodRun, progress: PodProgress) => void } {
  const { stderr, color, output, dry } = io;
  const { live, say } = output;
  const format = { color, json: options.json };
  const writeErr = (line: string) => stderr.write(`${line}\n`);
  const mark = (line: string) => dry.marks.push({ at: dry.commands.length, line });
  const step = (step: UpStep) => {
    if (step.kind === "stale") {
      const lines = formatStalePodOutcome(step.outcome, format);
      for (const line of lines.stderr) stderr.write(`${line}\n`);
      for (const line of lines.stdout) say(line);
    } else if (step.kind === "begin") {
      if (io.several) mark(formatPodMark(step.run));
    } else if (step.kind === "unschedulable") {
      const line = formatUnschedulable(step.run, step.port);
      if (options.dryRun) mark(`# ${line}`);
      else stderr.write(`${color[options.wait ? "red" : "yellow"](line)}\n`);
    } else if (step.kind === "held") {
      const line = formatHeld(step.run, step.after);
      stderr.write(`${color[options.wait ? "red" : "yellow"](line)}\n`);
    } else if (step.kind === "service") {
      const line = formatServiceOutcome(step.outcome);
      if (options.dryRun) mark(`# ${line}`);
      else (options.json ? writeErr : say)(line);
    } else if (step.kind === "job") {
      const lines = formatJobOutcome(step.outcome, format);
      // --json: standard output carries events only.
      for (const line of lines.stdout) (options.json ? writeErr : say)(line);
      for (const line of lines.stderr) stderr.write(`${line}\n`);
    } else {
      const { outcome } = step;
      // Ready: the summary goes below the live block's final frame. Failed or interrupted: as for
      // "ending" (a pod whose reconciliation failed is told by its outcome alone).
      if (outcome.status === "ready" ? step.last : outcome.status === "failed" || outcome.status === "interrupted")
        live?.stop();
      const lines = formatPodOutcome(outcome, format);
      for (const line of lines.stdout) say(line);
      for (const line of lines.stderr) stderr.write(`${line}\n`);
    }
  };
  const progress = (run: PodRun, progress: PodProgress) => {
    for (const line of formatPodProgress(progress, { ...format, live: live !== undefined })) say(line);
    // Ending: standard error from here on, and the live block must not be redrawn over it.
    if (progress.kind === "ending") live?.stop();
    else if (live) showPodProgress(live, run.pod, progress);
  };
  return { step, progress };
}
