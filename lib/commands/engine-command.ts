import { chooseRuntime } from "../runtime/choose-runtime.js";
import { createRuntime, type RuntimeFactory } from "../runtime/cli-runtime.js";
import type { RuntimeName } from "../runtime/detect.js";
import { resolveRequestTimeout } from "../runtime/request-timeout.js";
import type { ContainerRuntime } from "../runtime/types.js";
import type { Service } from "kubernetes-types/core/v1.js";
import { ExitCode, ExitError, UsageError } from "../errors.js";
import { entryOfType } from "../kinds/resource-names.js";
import { readServiceRecords } from "../services/service-record.js";
import { formatNotFound, isWorkloadRef, parseResourceRef, selectPods } from "../kinds/workload-ref.js";
import { parseLabelSelector } from "../manifest/label-selector.js";
import { sortMostActive } from "../pod/status/exec-target.js";
import { findPods, selectByLabels, type PodRecord } from "../pod/status/find-pods.js";
import { summarizePod } from "../pod/status/pod-status.js";

// What the kubectl verbs that act on running pods (exec, wait, rollout status, cp, describe,
// port-forward) take alike: the engine, the namespace, the state directory, the streams a test
// replaces; and the one pod exec and port-forward act in.

export interface EngineCommandOptions {
  /** The engine to talk to; a fake in engine-free tests. Default: the container CLI. */
  createRuntime?: RuntimeFactory;
  /** The pods' namespace (default "default"). */
  namespace?: string;
  runtime?: RuntimeName;
  /** `--runtime-request-timeout`: each engine command's deadline (default $PODRUN_RUNTIME_REQUEST_TIMEOUT, else 2m). */
  runtimeRequestTimeout?: string;
  /** podrun's state directory: the pods' records, the event log (default: resolveStateDir). */
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** Ends the command (default: SIGINT or SIGTERM). */
  signal?: AbortSignal;
}

/** The engine the options name (--runtime, else $PODRUN_RUNTIME, else the first that answers). */
export async function openEngine(options: EngineCommandOptions, env: NodeJS.ProcessEnv): Promise<ContainerRuntime> {
  // The flag first: a bad --runtime-request-timeout is exit 2 before any engine is asked.
  const requestTimeoutMs = resolveRequestTimeout(options.runtimeRequestTimeout, env);
  return (options.createRuntime ?? createRuntime)(await chooseRuntime(options.runtime, env), { requestTimeoutMs });
}

/**
 * The one pod a command acts in (exec, port-forward): the pod named, or the most active of a
 * workload's, of a Service's (`svc/NAME`: the pods its selector picks; the Service returned too)
 * or of those `selector` matches, as kubectl's AttachablePodForObject picks it. None: kubectl's
 * line on stderr, exit 1.
 */
export async function findOnePod(
  runtime: ContainerRuntime,
  namespace: string,
  request: { target?: string | undefined; selector?: string | undefined; command: string; stateDir: string },
  stderr: NodeJS.WritableStream,
): Promise<{ record: PodRecord; service?: Service }> {
  const serviceName = serviceTargetName(request.target);
  const service =
    serviceName === undefined
      ? undefined
      : await findService(request.stateDir, runtime.name, namespace, serviceName, stderr);
  const selector = service ? serviceSelector(service) : request.selector;
  let records: PodRecord[];
  let notFound: string;
  if (selector !== undefined) {
    records = selectByLabels(await findPods(runtime, { namespace }), parseLabelSelector(selector));
    notFound = `error: no pods found for selector "${selector}"`;
  } else {
    const target = request.target!;
    const ref = parseResourceRef(target, request.command) ?? { kind: "Pod", name: target };
    const filter = isWorkloadRef(ref) ? { namespace } : { namespace, name: ref.name };
    records = selectPods(await findPods(runtime, filter), ref);
    notFound = formatNotFound(ref);
  }
  if (records.length === 0) return failWith(stderr, notFound);
  const summaries = new Map(records.map((record) => [summarizePod(record, runtime.name), record]));
  const record = summaries.get(sortMostActive([...summaries.keys()])[0]!)!;
  return service ? { record, service } : { record };
}

/** A failure already worded in kubectl's line: the line on stderr, then exit 1. */
export function failWith(stderr: NodeJS.WritableStream, line: string): never {
  stderr.write(`${line}\n`);
  throw new ExitError(ExitCode.Failed);
}

/** `svc/NAME` (in any spelling of the Service type: `service/x`, `services/x`): the Service's name; undefined otherwise. */
function serviceTargetName(target: string | undefined): string | undefined {
  const slash = target?.indexOf("/") ?? -1;
  if (target === undefined || slash < 0) return undefined;
  return entryOfType(target.slice(0, slash))?.kind === "Service" ? target.slice(slash + 1) : undefined;
}

/** The Service `up` recorded (services/service-record.ts); none: kubectl's NotFound line, exit 1. */
async function findService(
  stateDir: string,
  engine: string,
  namespace: string,
  name: string,
  stderr: NodeJS.WritableStream,
): Promise<Service> {
  const records = await readServiceRecords(stateDir, engine);
  const found = records.find(
    (r) => (r.service.metadata?.namespace || "default") === namespace && r.service.metadata?.name === name,
  );
  if (!found) return failWith(stderr, `Error from server (NotFound): services "${name}" not found`);
  return found.service;
}

/** The Service's selector as `-l` text, for the pod it stands for (kubectl's error for a Service without one). */
function serviceSelector(service: Service): string {
  const selector = Object.entries(service.spec?.selector ?? {});
  if (selector.length === 0)
    throw new UsageError(
      `cannot attach to *v1.Service: invalid service '${service.metadata?.name}': Service is defined without a selector`,
    );
  return selector.map(([k, v]) => `${k}=${v}`).join(",");
}
