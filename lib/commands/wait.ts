import { ExitCode, ExitError, UsageError } from "../errors.js";
import { reachPods } from "../apply/reach-pods.js";
import { resolveProxyImage } from "../services/proxy-config.js";
import { openEventLog } from "../events/event-log.js";
import { createRecorder } from "../events/recorder.js";
import { waitForTargets, type WaitOutcome, type WaitTarget } from "../apply/wait.js";
import { entryOfKind, entryOfType } from "../kinds/resource-names.js";
import { conditionOf, parseWaitFor, parseWaitTimeout, type WaitFor } from "../kinds/wait-for.js";
import { formatNotFound, parseResourceRef, type ResourceRef } from "../kinds/workload-ref.js";
import { parseLabelSelector } from "../manifest/label-selector.js";
import { findPods, selectByLabels } from "../pod/status/find-pods.js";
import { stopSignal } from "../process/stop-signal.js";
import type { ContainerRuntime } from "../runtime/types.js";
import { resolveStateDir } from "../state/paths.js";
import { failWith, openEngine, type EngineCommandOptions } from "./engine-command.js";

// `podrun wait --for=… TARGET…`: kubectl's wait, its arguments, lines and exit codes
// (`pod/web condition met`; `error: timed out waiting for the condition on pods/web`, exit 1).
// The targets are read here; lib/apply/wait.ts waits for them.

export interface WaitOptions extends EngineCommandOptions {
  /** `TYPE/NAME…`, `TYPE NAME…`, a pod's name, or a TYPE alone with `selector` or `all`. */
  args: string[];
  /** `--for`: delete, condition=NAME[=VALUE], jsonpath='{…}'[=VALUE]. */
  for?: string;
  /** `-l`: the pods whose labels match. */
  selector?: string;
  /** `--all`: every pod of the namespace. */
  all?: boolean;
  /** kubectl's duration (default 30s; 0: look once; negative: a week). */
  timeout?: string;
}

export async function wait(options: WaitOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr } = options;
  // 1. Everything read before the engine is asked: a typo is exit 2.
  const wanted = parseWaitFor(options.for);
  const timeoutMs = parseWaitTimeout(options.timeout);
  const namespace = options.namespace ?? "default";
  const named = readTargets(options, wanted);
  const runtime = await openEngine(options, env);
  // Readiness is probed here: where this host cannot reach the pods, through the engine (reach-pods.ts).
  if (wanted.kind === "condition") await reachPods(runtime, undefined, resolveProxyImage(undefined, env));
  // 2. The targets: those named, or the pods -l or --all selects now.
  const targets = named.refs
    ? named.refs.map((ref) => ({ ref, namespace }))
    : await selectedPods(runtime, namespace, options);
  if (targets.length === 0) {
    if (wanted.kind === "delete") return;
    return failWith(stderr, "error: no matching resources found");
  }
  // 3. Wait for them all, each line as its target is done; probe events go to the event log.
  const stateDir = options.stateDir ?? resolveStateDir(env);
  const log = await openEventLog(stateDir);
  const recorder = createRecorder({ sinks: [], log });
  const stop = stopSignal(options.signal);
  let outcomes: WaitOutcome[];
  try {
    outcomes = await waitForTargets(
      { runtime, recorder },
      { targets, for: wanted, timeoutMs, stateDir, signal: stop.signal },
      (outcome) => printOutcome(outcome, wanted, { stdout, stderr }),
    );
  } finally {
    stop.release();
    await recorder.flush().catch(() => undefined);
    await log.close();
  }
  // 4. The exit code: 0 when every condition was met.
  if (outcomes.some((o) => o.result === "interrupted")) throw new ExitError(ExitCode.Interrupted);
  if (outcomes.some((o) => o.result !== "met")) throw new ExitError(ExitCode.Failed);
}

/** The targets named (`refs`), or none yet when -l or --all selects pods; the condition checked against each kind. */
function readTargets(options: WaitOptions, wanted: WaitFor): { refs?: ResourceRef[] } {
  const { args } = options;
  const selecting = options.selector !== undefined || options.all === true;
  // `pod web db`, `pods -l app=x`: a TYPE first, then names (or a selector).
  const type = args.length > 0 && !args[0]!.includes("/") ? entryOfType(args[0]!) : undefined;
  if (type && type.kind !== "Pod" && selecting)
    throw new UsageError("-l and --all select pods: give a workload as TYPE/NAME");
  if (type && type.run === "service") throw new UsageError('podrun wait takes pods and workloads, not "service"');
  const words = type ? args.slice(1) : args;
  if (selecting) {
    if (words.length > 0) throw new UsageError("name cannot be provided when a selector is specified");
    if (options.selector !== undefined && options.all === true)
      throw new UsageError("cannot set --all and --selector at the same time");
    if (options.selector !== undefined) parseLabelSelector(options.selector);
    checkFor(wanted, "Pod");
    return {};
  }
  if (words.length === 0)
    throw new UsageError(
      type
        ? "resource(s) were provided, but no name was specified"
        : "you must specify the pods or workloads to wait for",
    );
  const refs = words.map((word) =>
    type ? { kind: type.kind, name: word } : (parseResourceRef(word, "wait") ?? { kind: "Pod", name: word }),
  );
  for (const ref of refs) checkFor(wanted, ref.kind);
  return { refs };
}

/** A condition the kind has (its spelling normalized in place), a JSONPath only on pods. */
function checkFor(wanted: WaitFor, kind: string): void {
  if (wanted.kind === "condition") wanted.condition = conditionOf(entryOfKind(kind)!, wanted.condition);
  if (wanted.kind === "jsonpath" && kind !== "Pod")
    throw new UsageError(`--for=jsonpath reads a pod's fields: podrun keeps no ${kind} object to read`);
}

async function selectedPods(runtime: ContainerRuntime, namespace: string, options: WaitOptions): Promise<WaitTarget[]> {
  const records = await findPods(runtime, { namespace });
  const chosen =
    options.selector === undefined ? records : selectByLabels(records, parseLabelSelector(options.selector));
  return chosen.map((record) => ({ ref: { kind: "Pod", name: record.name }, namespace }));
}

/** kubectl's lines: `pod/web condition met`, `deployment.apps/web condition met`, its timeout and NotFound errors. */
function printOutcome(
  { target, result }: WaitOutcome,
  wanted: WaitFor,
  streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): void {
  const names = entryOfKind(target.ref.kind)!.resource!;
  if (result === "met") {
    const resource = names.group ? `${names.singular}.${names.group}` : names.singular;
    streams.stdout.write(`${resource}/${target.ref.name} condition met\n`);
  } else if (result === "timeout") {
    streams.stderr.write(`error: timed out waiting for the condition on ${names.plural}/${target.ref.name}\n`);
  } else if (result === "notFound" && wanted.kind !== "delete") {
    streams.stderr.write(`${formatNotFound(target.ref)}\n`);
  }
}
