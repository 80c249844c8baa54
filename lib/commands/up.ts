import { EngineError, ExitCode, ExitError, UsageError } from "../errors.js";
import { createConsoleSink, isInteractive } from "../output/console-sink.js";
import { openEventLog, type EventLog } from "../events/event-log.js";
import { createJsonSink } from "../output/json-sink.js";
import { parseDurationOption } from "../events/parse-duration.js";
import { createRecorder, type EventSink } from "../events/recorder.js";
import { readAuthFile } from "../pod/pull-credentials.js";
import { createImageManager } from "../images/manager.js";
import { createImagePuller } from "../images/puller.js";
import { loadManifests } from "../kinds/read-manifests.js";
import { planObjects } from "../apply/plan-objects.js";
import { toInvolvedObject } from "../events/types.js";
import { identifyPod } from "../pod/identity.js";
import { findUnschedulable, formatHostPort, NO_FREE_PORTS_MESSAGE } from "../workloads/host-ports.js";
import { configureColor } from "../output/color.js";
import { plural } from "../text/plural.js";
import { createLiveStatus } from "../output/live-status.js";
import { createLiveStatusSink, showPodProgress } from "../output/live-status-sink.js";
import { formatPodOutcome, formatPodProgress } from "../output/pod-outcome.js";
import { runPod, type PodOutcome } from "../pod/run-pod.js";
import { runJobs } from "../workloads/run-jobs.js";
import { formatDeadlineWarnings } from "../pod/active-deadline.js";
import { watchInterrupt } from "../process/interrupt.js";
import { chooseRuntime } from "../runtime/choose-runtime.js";
import { createRuntime, type RuntimeFactory } from "../runtime/cli-runtime.js";
import { resolveRequestTimeout } from "../runtime/request-timeout.js";
import type { RuntimeName } from "../runtime/detect.js";
import { parseImagePullProgressDeadline } from "../runtime/pull-progress.js";
import { formatDryRun, formatLeftRunning, formatStalePodOutcome } from "../output/up-lines.js";
import { removeStaleWorkloadPods } from "../apply/stale-workload-pods.js";
import type { RuntimeCommand } from "../runtime/types.js";
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
  /** `--runtime-request-timeout`: each engine command's deadline (default $PODRUN_RUNTIME_REQUEST_TIMEOUT, else 2m). */
  runtimeRequestTimeout?: string;
  infraImage?: string;
  /** `--authfile`: registry credentials tried after the pod's imagePullSecrets (default: $REGISTRY_AUTH_FILE). */
  authFile?: string;
  publishAll: boolean;
  parallelPulls: number;
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
 * `podrun up`: picks the output, the engine and the state, then brings each pod of the files up
 * (pod/run-pod.ts), one after the other in file order (with `--wait`, each is waited for before
 * the next starts), and prints how each went (output/pod-outcome.ts). A pod that fails does not
 * stop those after it: the exit code is 1 if any failed. Ctrl-C stops the whole run (exit 130).
 */
export async function up(options: UpOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr } = options;
  const color = configureColor(env);
  if (!options.wait && (options.timeoutMs !== undefined || options.rmOnInterrupt))
    throw new UsageError("--timeout and --rm-on-interrupt apply only with --wait");
  const requestTimeoutMs = resolveRequestTimeout(options.runtimeRequestTimeout, env);
  const manifest = await loadManifests(options.files, { recursive: options.recursive === true });
  for (const warning of manifest.warnings) stderr.write(`${color.yellow(warning)}\n`);
  const plan = planObjects(manifest.items);
  if (!options.wait)
    for (const warning of formatDeadlineWarnings({
      pods: plan.pods.map(({ pod }) => pod),
      podSources: new Map(plan.pods.map(({ pod, source }) => [pod, source])),
      source: manifest.source,
    }))
      stderr.write(`${color.yellow(warning)}\n`);
  // The bare pods, then the pods of each workload in file order, as their controllers would make them.
  const { runs, jobs } = plan;
  if (!plan.runsAnything) {
    throw new UsageError(
      `${manifest.source}: no Pod to run (${manifest.sources.length === 1 ? "the file holds" : "the files hold"} only ConfigMaps or Secrets)`,
    );
  }
  // Read once, before anything is created: a missing or broken file is a usage error.
  const authFilePath = options.authFile || env["REGISTRY_AUTH_FILE"];
  const authFile = authFilePath ? await readAuthFile(authFilePath) : undefined;
  const pullProgressDeadlineMs =
    options.imagePullProgressDeadline !== undefined
      ? parseImagePullProgressDeadline(options.imagePullProgressDeadline)
      : parseImagePullProgressDeadline(
          env["PODRUN_IMAGE_PULL_PROGRESS_DEADLINE"],
          "PODRUN_IMAGE_PULL_PROGRESS_DEADLINE",
        );

  const detected = await chooseRuntime(options.runtime, env);
  for (const warning of manifest.engineWarnings?.[detected.name] ?? []) stderr.write(`${color.yellow(warning)}\n`);
  const commands: RuntimeCommand[] = [];
  // With several pods, the dry run says where each pod's commands begin.
  const podMarks: { at: number; line: string }[] = [];
  const runtime = (options.createRuntime ?? createRuntime)(
    detected,
    options.dryRun
      ? { dryRun: { record: (command: RuntimeCommand) => commands.push(command) } }
      : { requestTimeoutMs, pullProgressDeadlineMs },
  );
  const stateDir = options.stateDir ?? resolveStateDir(env);

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
  // A dry run changes nothing on disk: no event log, and back-off kept in memory.
  const log: EventLog | undefined = options.dryRun ? undefined : await openEventLog(stateDir);
  const recorder = createRecorder({ sinks, log });
  const warnOnce = (message: string) => stderr.write(`${color.yellow(`Warning: ${message}`)}\n`);
  const backoff = options.dryRun
    ? createMemoryBackoffStore()
    : createFileBackoffStore(stateDir, { onWarning: warnOnce });
  // Ctrl-C or SIGTERM: while starting, what this run made is removed (exit 130); during `--wait`,
  // the wait answers it. One watcher for the whole run; pulls under way are aborted through it.
  const interrupt = options.dryRun ? undefined : watchInterrupt();
  const images = createImageManager({
    recorder,
    backoff,
    puller: createImagePuller({ runtime, maxParallel: options.parallelPulls, signal: interrupt?.signal }),
    clock: Date.now,
    // The console sink's spinner while a pull runs (none with --json).
    startProgress: consoleSink && ((text: string) => consoleSink.startProgress(text)),
  });
  const infraImage = options.infraImage || env.PODRUN_INFRA_IMAGE || DEFAULT_INFRA_IMAGE;

  const several = runs.length + jobs.length > 1;
  // The scheduler's verdict on one node: a pod whose host port an earlier pod has stays Pending.
  const unschedulable = findUnschedulable(runs.map((run) => run.pod));
  // A line on standard output, above the live block when there is one.
  const say = (line: string) => (live ? live.print(line) : stdout.write(`${line}\n`));
  const printOutcome = (outcome: PodOutcome, lastPod: boolean) => {
    // Ready: the summary goes below the live block's final frame. Failed or interrupted: as for
    // "ending" (a pod whose reconciliation failed is told by its outcome alone).
    if (outcome.status === "ready" ? lastPod : outcome.status === "failed" || outcome.status === "interrupted")
      live?.stop();
    const lines = formatPodOutcome(outcome, { color, json: options.json });
    for (const line of lines.stdout) say(line);
    for (const line of lines.stderr) stderr.write(`${line}\n`);
  };
  const failed: string[] = [];
  const done: { name: string; source: string }[] = [];
  try {
    // First, the pods the workloads' specs no longer name (lib/workloads/stale-pods.ts): a
    // template changed, fewer replicas. A cluster's controllers would delete them.
    if (!options.dryRun) {
      for (const owner of plan.controllers) {
        for (const outcome of await removeStaleWorkloadPods({ runtime, recorder }, owner, { stateDir })) {
          const lines = formatStalePodOutcome(outcome, { color, json: options.json });
          for (const line of lines.stderr) stderr.write(`${line}\n`);
          if (outcome.failures.length > 0) failed.push(`pod/${outcome.name}`);
          for (const line of lines.stdout) say(line);
        }
      }
    }
    for (const { pod, source, owner } of runs) {
      const label = `pod/${pod.metadata!.name}`;
      // A Ctrl-C between two pods: the next one is not started.
      if (interrupt?.signal.aborted) throw new ExitError(ExitCode.Interrupted);
      if (several)
        podMarks.push({
          at: commands.length,
          line: `# ${label} (${source}${owner ? `, ${owner.kind.toLowerCase()}/${owner.name}` : ""})`,
        });
      const port = unschedulable.get(pod);
      if (port) {
        const identity = identifyPod(pod);
        recorder.event(toInvolvedObject(identity), "Warning", "FailedScheduling", NO_FREE_PORTS_MESSAGE);
        const line = `${label} Pending: hostPort ${formatHostPort(port)} is taken by an earlier pod of the set (FailedScheduling)`;
        if (options.dryRun) podMarks.push({ at: commands.length, line: `# ${line}` });
        else stderr.write(`${color[options.wait ? "red" : "yellow"](line)}\n`);
        // With --wait the pod never becomes Ready: a failure. Without, it is left Pending, as a cluster leaves it.
        if (options.wait) failed.push(label);
        continue;
      }
      const outcome = await runPod(
        { runtime, recorder, images },
        {
          pod,
          source,
          objects: manifest,
          authFile,
          infraImage,
          stateDir,
          publishAll: options.publishAll,
          replace: options.replace === true,
          keepOnFailure: options.keepOnFailure,
          dryRun: options.dryRun,
          wait: options.wait
            ? { timeoutMs: options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS, rmOnInterrupt: options.rmOnInterrupt === true }
            : undefined,
          signal: interrupt?.signal,
          onProgress: (progress) => {
            for (const line of formatPodProgress(progress, { color, json: options.json, live: live !== undefined }))
              say(line);
            // Ending: standard error from here on, and the live block must not be redrawn over it.
            if (progress.kind === "ending") live?.stop();
            else if (live) showPodProgress(live, pod, progress);
          },
        },
      );
      // One pod: an engine command that failed is reported as any command's (lib/cli.ts).
      if (outcome.status === "failed" && outcome.error instanceof EngineError && !several) throw outcome.error;
      printOutcome(outcome, pod === runs.at(-1)!.pod);
      if (outcome.status === "interrupted") throw new ExitError(ExitCode.Interrupted);
      if (outcome.status !== "failed") done.push({ name: pod.metadata!.name!, source });
      else if (several) failed.push(label);
      else throw new ExitError(ExitCode.Failed);
    }
    // Jobs, after the bare pods: each run as the Job controller would (lib/workloads/run-jobs.ts).
    const jobRuns = await runJobs(
      { runtime, recorder, images },
      {
        jobs,
        podOptions: {
          objects: manifest,
          authFile,
          infraImage,
          stateDir,
          publishAll: options.publishAll,
          dryRun: options.dryRun,
          signal: interrupt?.signal,
        },
        keepOnFailure: options.keepOnFailure,
        wait: options.wait
          ? { timeoutMs: options.timeoutMs, rmOnInterrupt: options.rmOnInterrupt === true }
          : undefined,
        signal: interrupt?.signal,
        // --json: standard output carries events only.
        say: options.json ? (line) => stderr.write(`${line}\n`) : say,
        warn: (line) => stderr.write(`${line}\n`),
        paint: color,
      },
    );
    if (jobRuns.interrupted) throw new ExitError(ExitCode.Interrupted);
    if (jobRuns.failed.length > 0 && failed.length === 0) throw new ExitError(ExitCode.Failed);
    failed.push(...jobRuns.failed);
  } catch (error) {
    // Ctrl-C answered the pod under way (undone, or as --rm-on-interrupt says); those already up
    // stay, and the user is told which.
    if (error instanceof ExitError && error.code === ExitCode.Interrupted && done.length > 0)
      stderr.write(`${formatLeftRunning(done)}\n`);
    throw error;
  } finally {
    live?.stop();
    interrupt?.dispose();
    await recorder.flush().catch((error: unknown) => warnOnce(`event log not written: ${(error as Error).message}`));
    await log?.close();
    if (options.dryRun) for (const line of formatDryRun(detected.name, commands, podMarks)) stdout.write(`${line}\n`);
  }
  if (failed.length > 0) {
    stderr.write(
      `${color.red(`podrun: ${failed.length} of ${plural(runs.length, "pod")} failed: ${failed.join(", ")}`)}\n`,
    );
    throw new ExitError(ExitCode.Failed);
  }
}
