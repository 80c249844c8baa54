import type { ChalkInstance } from "chalk";
import { ExitCode, ExitError, UsageError } from "../errors.js";
import { configureColor } from "../output/color.js";
import { formatHumanDuration } from "../text/human-duration.js";
import { formatTable } from "../output/table.js";
import type { ObjectFormat } from "../output/output-format.js";
import { formatObjects, type KubeObject } from "../output/print-objects.js";
import { findPods, selectByLabels } from "../pod/status/find-pods.js";
import { podFields, POD_SELECTABLE_FIELDS, toPodList } from "../pod/status/pod-object.js";
import { parseLabelSelector } from "../manifest/label-selector.js";
import { matchesFieldSelector, parseFieldSelector } from "../manifest/field-selector.js";
import { applyActiveDeadline } from "../pod/active-deadline.js";
import { addTerminationMessages } from "../pod/termination-message.js";
import { podDirectory } from "../pod/volumes/pod-dir.js";
import { reachFiles } from "../apply/reach-files.js";
import { resolveProxyImage } from "../services/proxy-config.js";
import { resolveStateDir } from "../state/paths.js";
import { formatRestarts, summarizePod, type PodSummary } from "../pod/status/pod-status.js";
import type { RuntimeFactory } from "../runtime/cli-runtime.js";
import { openEngine } from "./engine-command.js";
import type { RuntimeName } from "../runtime/detect.js";
import {
  formatNotFound,
  formatOwner,
  ownerOf,
  parseRefs,
  selectByRefs,
  withOwner,
  type WorkloadRef,
} from "../kinds/workload-ref.js";
import { listClaimVolumes } from "./ps-volumes.js";
import { listServices, serviceArguments } from "./ps-services.js";

// `podrun ps`: the pods podrun runs, read from the engine by label on every call (no cache, so
// it is always what is there), printed as `kubectl get pods` prints them. READY counts running
// app containers and started sidecars, as kubectl does: readiness probes are `up --wait`'s
// business, the engine knows nothing of them. `ps svc` lists the Services instead (ps-services.ts),
// `ps --volumes` the claims' volumes (ps-volumes.ts).

export interface PsOptions {
  /** The engine to talk to; a fake in engine-free tests. Default: the container CLI. */
  createRuntime?: RuntimeFactory;
  /**
   * Only these pods (kubectl get pods NAME…), or a workload's (`deploy/web`); one that is not there is an error, exit 1.
   * `svc` (or `service`, `services`) first, or `svc/NAME`s: the Services instead (ps-services.ts).
   */
  names?: string[];
  /** List the PersistentVolumeClaims' engine volumes instead of the pods (names: claim names). */
  volumes?: boolean;
  /** `-l`: only the pods whose labels match this label selector (kubectl's grammar: label-selector.ts). */
  selector?: string;
  /** `--field-selector`: only the pods whose metadata.name, metadata.namespace, status.phase or status.podIP match. */
  fieldSelector?: string;
  /** Only this namespace (default "default"), unless allNamespaces. */
  namespace?: string;
  allNamespaces: boolean;
  wide: boolean;
  json: boolean;
  /** `-o name`: one `pod/NAME` a line, as kubectl prints it. */
  nameOnly?: boolean;
  /** `get -o yaml|jsonpath|custom-columns|…`: the objects in that format (print-objects.ts), instead of json or the table. */
  objectFormat?: ObjectFormat;
  /** `get --no-headers`: the table without its header line. */
  noHeaders?: boolean;
  /** With objectFormat: one object was asked for by name, printed as itself rather than in a List (kubectl's get). */
  single?: boolean;
  runtime?: RuntimeName;
  /** `--runtime-request-timeout`: each engine command's deadline (default $PODRUN_RUNTIME_REQUEST_TIMEOUT, else 2m). */
  runtimeRequestTimeout?: string;
  /** podrun's state directory: each container's termination message file, each Service's record (default: resolveStateDir). */
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  now?: () => number;
}

/** Whether a container of the pod has ended (the only ones with a termination message). */
function hasTerminated(pod: PodSummary): boolean {
  return [...pod.initContainerStatuses, ...pod.containerStatuses].some(
    (status) => status.state?.terminated !== undefined || status.lastState?.terminated !== undefined,
  );
}

export async function ps(options: PsOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr, now = Date.now } = options;
  const services = options.volumes ? undefined : serviceArguments(options.names ?? []);
  const refs = options.volumes || services ? [] : parseRefs(options.names ?? [], "ps");
  const { labels, fields } = readSelectors(options, services !== undefined);
  const runtime = await openEngine(options, env);
  const namespace = options.allNamespaces ? undefined : (options.namespace ?? "default");
  if (options.volumes)
    return listClaimVolumes(runtime, { namespace, names: options.names ?? [], json: options.json, stdout, stderr });
  const stateDir = options.stateDir ?? resolveStateDir(env);
  if (services) {
    const { wide, json, objectFormat, single, noHeaders } = options;
    const format = objectFormat ?? (json ? { kind: "json" as const } : undefined);
    return listServices(runtime, {
      namespace,
      names: services,
      wide,
      format,
      single,
      noHeaders,
      stateDir,
      nowMs: now(),
      stdout,
      stderr,
    });
  }
  const records = await findPods(runtime, namespace === undefined ? {} : { namespace });
  const { selected, missing } = selectByRefs(labels ? selectByLabels(records, labels) : records, refs);
  const owners = new Map(selected.map((record) => [`${record.namespace}/${record.name}`, ownerOf(record)]));
  const pods = selected
    .map((record) => applyActiveDeadline(summarizePod(record, runtime.name), record, now()))
    .filter((pod) => !fields || matchesFieldSelector(fields, podFields(pod)));
  // Only the objects show messages: the table costs no file or log read.
  if (options.json || options.objectFormat) {
    // An engine that does not see this host's files holds the messages' files (lib/apply/reach-files.ts).
    if (pods.some((pod) => hasTerminated(pod)))
      await reachFiles(runtime, stateDir, resolveProxyImage(undefined, env), { env });
    await Promise.all(
      pods.map((pod) => addTerminationMessages(pod, runtime, podDirectory(stateDir, runtime.name, pod))),
    );
  }
  try {
    writePods(pods, namespace, options, { stdout, stderr, nowMs: now(), env, owners });
  } finally {
    for (const ref of missing) stderr.write(`${formatNotFound(ref)}\n`);
  }
  if (missing.length > 0) throw new ExitError(ExitCode.Failed);
}

/** `-l` and `--field-selector`, read before any engine is asked (a bad one: exit 2); pods only. */
function readSelectors(options: PsOptions, services: boolean) {
  const given = options.selector !== undefined || options.fieldSelector !== undefined;
  if (given && (services || options.volumes))
    throw new UsageError("-l and --field-selector select pods: ps svc and ps --volumes take names");
  if (given && (options.names?.length ?? 0) > 0)
    throw new UsageError("name cannot be provided when a selector is specified");
  return {
    labels: options.selector === undefined ? undefined : parseLabelSelector(options.selector),
    fields:
      options.fieldSelector === undefined
        ? undefined
        : parseFieldSelector(options.fieldSelector, POD_SELECTABLE_FIELDS),
  };
}

function writePods(
  pods: PodSummary[],
  namespace: string | undefined,
  options: PsOptions,
  {
    stdout,
    stderr,
    nowMs,
    env,
    owners,
  }: {
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream;
    nowMs: number;
    env: NodeJS.ProcessEnv;
    owners: ReadonlyMap<string, WorkloadRef | undefined>;
  },
): void {
  const ownerOfPod = (pod: PodSummary) => owners.get(`${pod.namespace}/${pod.name}`);

  if (options.nameOnly) {
    stdout.write(pods.map((pod) => `pod/${pod.name}\n`).join(""));
    return;
  }
  if (options.json || options.objectFormat) {
    const list = toPodList(pods);
    list.items.forEach((item, i) => withOwner(item, ownerOfPod(pods[i]!)));
    if (options.objectFormat)
      stdout.write(
        formatObjects(list.items as KubeObject[], options.objectFormat, {
          single: options.single === true,
          noHeaders: options.noHeaders === true,
        }),
      );
    else stdout.write(`${JSON.stringify(list, null, 4)}\n`);
    return;
  }
  if (pods.length === 0) {
    if (options.names?.length) return; // each missing name has its own line
    stderr.write(namespace === undefined ? "No resources found\n" : `No resources found in ${namespace} namespace.\n`);
    return;
  }
  const lines = formatPodTable(pods, {
    namespaceColumn: options.allNamespaces,
    wide: options.wide,
    nowMs,
    color: configureColor(env),
    owner: ownerOfPod,
  });
  stdout.write(`${(options.noHeaders ? lines.slice(1) : lines).join("\n")}\n`);
}

/** The table's lines, the header first; STATUS coloured when colour is on (after padding, so columns stay aligned). */
export function formatPodTable(
  pods: readonly PodSummary[],
  options: {
    namespaceColumn: boolean;
    wide: boolean;
    nowMs: number;
    color?: ChalkInstance;
    owner?: (pod: PodSummary) => WorkloadRef | undefined;
  },
): string[] {
  const header = [...(options.namespaceColumn ? ["NAMESPACE"] : []), "NAME", "READY", "STATUS", "RESTARTS", "AGE"];
  if (options.wide) header.push("IP", "CONTAINERS", "IMAGES", "CONTAINER IDS");
  // As NAMESPACE with -A: there only when it says something, so a list of bare pods keeps kubectl's columns.
  const ownerColumn =
    options.wide && options.owner !== undefined && pods.some((pod) => options.owner!(pod) !== undefined);
  if (ownerColumn) header.push("OWNER");
  const rows = pods.map((pod) => {
    const row = [
      ...(options.namespaceColumn ? [pod.namespace] : []),
      pod.name,
      `${pod.ready}/${pod.total}`,
      pod.status,
      formatRestarts(pod, options.nowMs, formatHumanDuration),
      pod.createdAt ? formatHumanDuration(options.nowMs - Date.parse(pod.createdAt)) : "<unknown>",
    ];
    if (options.wide) {
      const list = (values: string[]) => (values.length > 0 ? values.join(",") : "<none>");
      const containers = pod.containerStatuses;
      row.push(
        pod.podIP ?? "<none>",
        list(containers.map((c) => c.name)),
        list(containers.map((c) => c.image)),
        list(pod.appContainers.map((c) => c.id.slice(0, 12))),
      );
    }
    if (ownerColumn) row.push(formatOwner(options.owner!(pod)));
    return row;
  });
  const lines = formatTable([header, ...rows]);
  const color = options.color;
  if (!color || color.level === 0) return lines;
  const at = lines[0]!.indexOf("STATUS");
  return lines.map((line, i) => {
    if (i === 0) return line;
    const status = pods[i - 1]!.status;
    return `${line.slice(0, at)}${statusColor(color, status)(status)}${line.slice(at + status.length)}`;
  });
}

function statusColor(color: ChalkInstance, status: string): (text: string) => string {
  if (status === "Running" || status === "Completed" || status === "Succeeded") return color.green;
  if (status === "Pending" || status === "NotReady" || /^Init:\d+\/\d+$/.test(status)) return color.yellow;
  return color.red;
}
