import { once } from "node:events";
import { ExitCode, ExitError, UsageError } from "../errors.js";
import { parseDurationOption } from "../events/parse-duration.js";
import { currentContainers, findPods, selectByLabels, type PodRecord } from "../pod/status/find-pods.js";
import { chooseExecContainer } from "../pod/status/exec-target.js";
import { readPodRecord } from "../pod/pod-record.js";
import { resolveStateDir } from "../state/paths.js";
import { parseLabelSelector } from "../manifest/label-selector.js";
import { describeNotStarted, selectLogTargets, type LogTarget } from "../pod/status/log-targets.js";
import type { RuntimeFactory } from "../runtime/cli-runtime.js";
import { openEngine } from "./engine-command.js";
import type { RuntimeName } from "../runtime/detect.js";
import type { ContainerRuntime, LogLine } from "../runtime/types.js";
import { stopSignal } from "../process/stop-signal.js";
import { watchOutputClosed } from "../output/output-closed.js";
import { formatNotFound, isWorkloadRef, parseResourceRef, selectPods } from "../kinds/workload-ref.js";

// `podrun logs POD`: the containers found by label, their engine's `logs` piped through line by
// line as they come (never held whole), like `kubectl logs`: stdout and stderr of the container
// both on standard output, `--prefix` as `[pod/web/app] `, `--timestamps` as the engine stamped
// each line. With --follow several containers are read at once, each line prefixed. Ctrl-C
// (or SIGTERM) ends a follow normally, exit 0: stopping is the only way a follow of a running
// container ends. A workload (`deploy/web`) is every pod of it, one after the other (with
// --follow at once), each line prefixed with its pod, as `kubectl logs -l … --prefix` prints them.

export interface LogsOptions {
  /** The engine to talk to; a fake in engine-free tests. Default: the container CLI. */
  createRuntime?: RuntimeFactory;
  /** A pod's name or TYPE/NAME; absent when `selector` is given (one or the other). */
  pod?: string;
  /** `-l`: the pods whose labels match (kubectl's grammar), with the last 10 lines each unless `tail` is given. */
  selector?: string;
  /** With `selector` and `follow`: at most this many containers followed at once (kubectl's default 5). */
  maxLogRequests?: number;
  container?: string;
  follow: boolean;
  /** The last `tail` lines of each container; undefined: all. */
  tail?: number;
  timestamps: boolean;
  /** A duration (`90s`, `5m`, `1h30m`): only lines received within it. */
  since?: string;
  allContainers: boolean;
  prefix: boolean;
  namespace?: string;
  /** podrun's state directory: the pods' records, for their default container (default: resolveStateDir). */
  stateDir?: string;
  runtime?: RuntimeName;
  /** `--runtime-request-timeout`: the deadline of each engine command but the log stream itself (default $PODRUN_RUNTIME_REQUEST_TIMEOUT, else 2m). */
  runtimeRequestTimeout?: string;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** Ends a follow (default: SIGINT or SIGTERM). */
  signal?: AbortSignal;
  now?: () => number;
}

/**
 * kubectl's default container for a pod of several when no -c is given (as exec picks it:
 * exec-target.ts): the one its default-container annotation names, else its first, with
 * kubectl's "Defaulted container" note on stderr. The request as it is otherwise.
 */
async function withDefaultContainer(
  record: PodRecord,
  options: LogsOptions,
  context: { runtime: ContainerRuntime; env: NodeJS.ProcessEnv; stderr: NodeJS.WritableStream },
): Promise<LogsOptions> {
  if (options.container !== undefined || options.allContainers) return options;
  if (currentContainers(record.appContainers).length < 2) return options;
  const stateDir = options.stateDir ?? resolveStateDir(context.env);
  const spec = await readPodRecord(stateDir, context.runtime.name, record);
  const choice = chooseExecContainer(record, spec, undefined, false);
  if (!choice.ok) return options;
  if (choice.note !== undefined) context.stderr.write(`${choice.note}\n`);
  return { ...options, container: choice.name };
}

export async function logs(options: LogsOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr, now = Date.now } = options;
  const sinceMs = parseSince(options.since);
  if (options.container !== undefined && options.allContainers) {
    throw new UsageError(`--all-containers=true should not be specified with container name ${options.container}`);
  }
  const runtime = await openEngine(options, env);
  const namespace = options.namespace ?? "default";
  const { records, selector, tail } = await findLogPods(runtime, namespace, options, stderr);
  if (records.length === 0) {
    if (selector) return void stderr.write(`No resources found in ${namespace} namespace.\n`);
    throw new ExitError(ExitCode.Failed);
  }
  const sources: { pod: string; target: LogTarget }[] = [];
  for (const record of records) {
    const targets = selectLogTargets(record, await withDefaultContainer(record, options, { runtime, env, stderr }));
    const notStarted = targets.length === 1 ? describeNotStarted(record.name, targets[0]!) : undefined;
    // One pod: kubectl's error. A workload's pod still starting is said and left out; the others are read.
    if (notStarted && records.length === 1) return fail(stderr, `Error from server (BadRequest): ${notStarted}`);
    if (notStarted) stderr.write(`${notStarted}\n`);
    else sources.push(...targets.map((target) => ({ pod: record.name, target })));
  }
  if (sources.length === 0) throw new ExitError(ExitCode.Failed);
  const maxRequests = options.maxLogRequests ?? DEFAULT_MAX_LOG_REQUESTS;
  if (selector && options.follow && sources.length > maxRequests)
    return fail(
      stderr,
      `error: you are attempting to follow ${sources.length} log streams, but maximum allowed concurrency is ${maxRequests}, use --max-log-requests to increase the limit`,
    );

  const output = openOutput(stdout);
  const stop = stopSignal(options.signal, output.closed);
  // Followed at once, the lines of several containers interleave: each must say whose it is.
  const concurrent = options.follow && sources.length > 1;
  // A workload's pods say whose each line is; `-l`'s, as kubectl's, only with --prefix.
  const prefixed = options.prefix || concurrent || (records.length > 1 && !selector);
  const request = {
    follow: options.follow,
    tail,
    since: sinceMs === undefined ? undefined : new Date(now() - sinceMs),
    signal: stop.signal,
  };
  const copy = ({ pod, target }: { pod: string; target: LogTarget }) =>
    copyLines(runtime, target, request, (line) =>
      output.write(formatLine(line, { pod, target, prefixed, timestamps: options.timestamps })),
    );
  try {
    if (concurrent) {
      const results = await Promise.allSettled(sources.map(copy));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed) throw failed.reason;
    } else {
      for (const source of sources) if (!stop.signal.aborted) await copy(source);
    }
  } catch (error) {
    // Interrupted: the engine's `logs` may have died of the same Ctrl-C first. Not a failure.
    if (stop.signal.aborted) return;
    throw error;
  } finally {
    await output.flush();
    stop.release();
  }
}

/** kubectl's defaults with `-l`: the last 10 lines of each container, 5 followed at once. */
const SELECTOR_TAIL = 10;
const DEFAULT_MAX_LOG_REQUESTS = 5;

/**
 * The pods to read: the one named, a workload's (a missing one said on stderr, then none), or
 * those `-l` selects in the namespace (then the tail defaults to 10 lines, as kubectl's).
 */
async function findLogPods(
  runtime: ContainerRuntime,
  namespace: string,
  options: LogsOptions,
  stderr: NodeJS.WritableStream,
): Promise<{ records: PodRecord[]; selector: boolean; tail: number | undefined }> {
  if (options.selector !== undefined && options.pod !== undefined)
    throw new UsageError("only a selector (-l) or a POD name is allowed");
  if (options.selector !== undefined) {
    const selector = parseLabelSelector(options.selector);
    const records = selectByLabels(await findPods(runtime, { namespace }), selector);
    return { records, selector: true, tail: options.tail ?? SELECTOR_TAIL };
  }
  if (options.pod === undefined)
    throw new UsageError("expected POD or TYPE/NAME is a required argument for the logs command");
  const ref = parseResourceRef(options.pod, "logs") ?? { kind: "Pod", name: options.pod };
  const filter = isWorkloadRef(ref) ? { namespace } : { namespace, name: ref.name };
  const records = selectPods(await findPods(runtime, filter), ref);
  if (records.length === 0) stderr.write(`${formatNotFound(ref)}\n`);
  return { records, selector: false, tail: options.tail };
}

async function copyLines(
  runtime: ContainerRuntime,
  target: LogTarget,
  request: { follow: boolean; tail?: number; since?: Date; signal: AbortSignal },
  write: (line: LogLine) => Promise<void>,
): Promise<void> {
  for await (const line of runtime.streamLogs(target.state.id, request)) {
    await write(line);
    if (request.signal.aborted) break;
  }
}

export function formatLine(
  line: LogLine,
  context: { pod: string; target: LogTarget; prefixed: boolean; timestamps: boolean },
): string {
  const prefix = context.prefixed ? `[pod/${context.pod}/${context.target.name}] ` : "";
  const time = context.timestamps && line.time ? `${line.time} ` : "";
  return `${prefix}${time}${line.text}\n`;
}

function fail(stderr: NodeJS.WritableStream, message: string): never {
  stderr.write(`${message}\n`);
  throw new ExitError(ExitCode.Failed);
}

function parseSince(value: string | undefined): number | undefined {
  return value === undefined ? undefined : parseDurationOption(value, "--since");
}

/** Bytes gathered before a write: one write per line would be one system call per line. */
const WRITE_BATCH = 64 * 1024;

/**
 * Writes to `stream` in batches (what is gathered goes out at the latest on the next turn of the
 * event loop, so a follow shows each line at once), waiting when the stream is full (a slow
 * reader slows the engine's `logs`, not podrun's memory), and notices when the reader goes away
 * (`podrun logs web | head -3`: EPIPE): the rest is dropped and the exit is quiet.
 */
function openOutput(stream: NodeJS.WritableStream): {
  write(text: string): Promise<void>;
  flush(): Promise<void>;
  closed: AbortSignal;
} {
  const closed = watchOutputClosed(stream);
  let pending = "";
  let scheduled = false;
  // True when the stream can take more at once.
  const writePending = (): boolean => {
    const text = pending;
    pending = "";
    return text === "" || closed.aborted || stream.write(text);
  };
  const flush = async () => {
    // The output closed while waiting for it to drain: there is nothing more to write.
    if (!writePending()) await Promise.race([once(stream, "drain"), once(closed, "abort")]).catch(() => undefined);
  };
  return {
    closed,
    async write(text) {
      pending += text;
      if (pending.length >= WRITE_BATCH) return flush();
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        writePending();
      });
    },
    flush,
  };
}
