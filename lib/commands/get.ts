import type { Pod, PodSpec } from "kubernetes-types/core/v1.js";
import { ExitCode, ExitError, UsageError } from "../errors.js";
import { entryOfType } from "../kinds/resource-names.js";
import type { KindEntry } from "../kinds/types.js";
import { formatNotFound, ownerOf, withOwner } from "../kinds/workload-ref.js";
import { workloadObjects } from "../kinds/workload-objects.js";
import type { WorkloadKind } from "../manifest/kinds.js";
import { parseOutputFormat, type ResolvedFormat } from "../output/output-format.js";
import { formatObjects, resolveFormatFiles, type KubeObject } from "../output/print-objects.js";
import { formatTable } from "../output/table.js";
import { applyActiveDeadline } from "../pod/active-deadline.js";
import { readPodRecord } from "../pod/pod-record.js";
import { findPods } from "../pod/status/find-pods.js";
import { toPodObject } from "../pod/status/pod-object.js";
import { summarizePod } from "../pod/status/pod-status.js";
import { resolveStateDir } from "../state/paths.js";
import { listJobRecords } from "../workloads/job-state.js";
import { openEngine, type EngineCommandOptions } from "./engine-command.js";
import type { PsOptions } from "./ps.js";

// `podrun get deploy|rs|sts|ds|job [NAME…]`: the workloads, as `kubectl get` lists them, made
// from the pods the engine holds (kinds/workload-objects.ts) and printed in the kind's columns
// (the kind table's `columns`) or as objects (-o json|yaml|name|jsonpath|custom-columns). Pods
// and Services are `ps`'s (commands/ps.ts); cli.ts sends `get pods|svc` there.

export interface GetOptions extends EngineCommandOptions {
  /** The kind, as the kind table names it (`Deployment`). */
  kind: WorkloadKind;
  /** Only these (each one missing: kubectl's NotFound line, exit 1). */
  names: readonly string[];
  allNamespaces: boolean;
  output: ResolvedFormat;
  noHeaders?: boolean;
  now?: () => number;
}

/** `podrun get`'s arguments and flags, as cli.ts reads them. */
export interface GetCommandOptions extends Omit<
  PsOptions,
  "names" | "wide" | "json" | "nameOnly" | "objectFormat" | "single"
> {
  /** TYPE, or TYPE/NAME. */
  type: string;
  names: string[];
  /** `-o`, as given. */
  output?: string;
  noHeaders?: boolean;
}

const TYPES =
  "pods (po), deployments (deploy), replicasets (rs), statefulsets (sts), daemonsets (ds), jobs, services (svc), persistentvolumeclaims (pvc), events (ev)";

/** `get TYPE [NAME…]` or `get TYPE/NAME…`: the type as one word, and the names. */
function readTarget(type: string, names: readonly string[]): { type: string; names: string[] } {
  const args = [type, ...names];
  if (type.includes(",")) throw new UsageError(`"${type}": podrun get lists one type at a time: one command per type`);
  if (!type.includes("/")) {
    const typed = names.find((name) => name.includes("/"));
    if (typed !== undefined)
      throw new UsageError(
        `"${typed}": there is no need to specify a resource type as a separate argument when passing arguments in resource/name form`,
      );
    return { type, names: [...names] };
  }
  const types = new Set(args.map((arg) => (arg.includes("/") ? arg.slice(0, arg.indexOf("/")).toLowerCase() : "")));
  if (types.size > 1 || types.has(""))
    throw new UsageError(`podrun get lists one type at a time: give TYPE/NAME arguments of one type, or TYPE NAME…`);
  return { type: type.slice(0, type.indexOf("/")), names: args.map((arg) => arg.slice(arg.indexOf("/") + 1)) };
}

/** `podrun get`: pods and Services through `ps`, claims through `ps --volumes`, events through `events`, workloads here. */
export async function runGet(options: GetCommandOptions): Promise<void> {
  const format = parseOutputFormat(options.output);
  const { type, names } = readTarget(options.type, options.names);
  const entry = entryOfType(type);
  const lower = type.toLowerCase();
  const output = await resolveFormatFiles(format);
  const objects = output.kind === "table" ? undefined : output;
  const single = names.length === 1 && options.selector === undefined;
  if (entry?.kind === "Pod" || entry?.kind === "Service") {
    const { ps } = await import("./ps.js");
    const wide = output.kind === "table" && output.wide;
    const psNames = entry.kind === "Service" ? ["svc", ...names] : names;
    return ps({ ...options, names: psNames, wide, json: false, objectFormat: objects, single });
  }
  if (["events", "event", "ev"].includes(lower)) return getEvents(options, names, output);
  if (["persistentvolumeclaims", "persistentvolumeclaim", "pvc"].includes(lower)) {
    if (objects && objects.kind !== "json")
      throw new UsageError("podrun get pvc prints its table or -o json: its rows are the claims' engine volumes");
    const { ps } = await import("./ps.js");
    return ps({ ...options, names, volumes: true, wide: false, json: objects !== undefined });
  }
  const kind = workloadKindOfType(type);
  if (!kind) throw new UsageError(`podrun get does not list "${type}": it lists ${TYPES}`);
  if (options.selector !== undefined || options.fieldSelector !== undefined)
    throw new UsageError(
      `-l and --field-selector select pods: podrun keeps no ${kind}'s own labels (podrun get pods -l … lists its pods)`,
    );
  return get({ ...options, kind, names, output });
}

/** `get events`: the event log, as `podrun events` prints it (its table, or -o json). */
async function getEvents(options: GetCommandOptions, names: readonly string[], output: ResolvedFormat): Promise<void> {
  if (output.kind !== "table" && output.kind !== "json")
    throw new UsageError("podrun get events prints its table, -o wide or -o json (`podrun events` has its filters)");
  if (names.length > 0) throw new UsageError("podrun get events takes no names: podrun events POD shows a pod's");
  const { events } = await import("./events.js");
  const { selector, runtime, createRuntime, stateDir, env, stdout, stderr, now } = options;
  return events({
    ...(options.allNamespaces ? {} : { namespace: options.namespace ?? "default" }),
    ...{ selector, runtime, createRuntime, stateDir, env, stdout, stderr, now },
    wide: output.kind === "table" && output.wide,
    json: output.kind === "json",
    watch: false,
  });
}

/** The kind `type` names when `get` lists it from its pods (it has columns in the kind table); else undefined. */
export function workloadKindOfType(type: string): WorkloadKind | undefined {
  const entry = entryOfType(type);
  return entry?.columns ? (entry.kind as WorkloadKind) : undefined;
}

export async function get(options: GetOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr, now = Date.now } = options;
  // 1. The output format, its file read: a bad one is exit 2 before the engine is asked.
  const output = await resolveFormatFiles(options.output);
  const runtime = await openEngine(options, env);
  const namespace = options.allNamespaces ? undefined : (options.namespace ?? "default");
  const stateDir = options.stateDir ?? resolveStateDir(env);
  // 2. The pods as `ps -o json` shows them, each with its record's spec, and the Jobs' records.
  const records = await findPods(runtime, namespace === undefined ? {} : { namespace });
  const pods = records.map((record) =>
    withOwner(toPodObject(applyActiveDeadline(summarizePod(record, runtime.name), record, now())), ownerOf(record)),
  );
  // A workload's template is one of its pods' records: one read per owner (a Deployment's
  // ReplicaSet, another workload itself), none for bare pods.
  const firstOfOwner = new Map<string, number>();
  pods.forEach((pod, i) => {
    const owner = pod.metadata?.ownerReferences?.[0];
    const key = owner && `${records[i]!.namespace}/${owner.kind}/${owner.name}`;
    if (key && !firstOfOwner.has(key)) firstOfOwner.set(key, i);
  });
  const specs = new Map<Pod, PodSpec | undefined>(
    await Promise.all(
      [...firstOfOwner.values()].map(
        async (i) => [pods[i]!, (await readPodRecord(stateDir, runtime.name, records[i]!))?.spec] as const,
      ),
    ),
  );
  const jobs = (await listJobRecords(stateDir, runtime.name)).filter(
    (job) => namespace === undefined || job.namespace === namespace,
  );
  // 3. The kind's objects, those named.
  const all = workloadObjects(options.kind, { pods, specOf: (pod) => specs.get(pod), jobs });
  const objects = options.names.length === 0 ? all : all.filter((o) => options.names.includes(o.metadata.name));
  const missing = [...new Set(options.names)].filter((name) => !all.some((o) => o.metadata.name === name));
  // 4. Printed; each name not found, kubectl's line after them.
  try {
    if (output.kind !== "table") {
      const single = options.names.length === 1;
      stdout.write(formatObjects(objects as unknown as KubeObject[], output, { single, noHeaders: options.noHeaders }));
    } else if (objects.length > 0) {
      const entry = entryOfType(options.kind) as KindEntry & { columns: NonNullable<KindEntry["columns"]> };
      const table = workloadTable(entry, objects as unknown as Record<string, unknown>[], {
        namespaceColumn: namespace === undefined,
        wide: output.wide,
        nowMs: now(),
        noHeaders: options.noHeaders === true,
      });
      stdout.write(`${table.join("\n")}\n`);
    } else if (missing.length === 0)
      stderr.write(
        namespace === undefined ? "No resources found\n" : `No resources found in ${namespace} namespace.\n`,
      );
  } finally {
    for (const name of missing) stderr.write(`${formatNotFound({ kind: options.kind, name })}\n`);
  }
  if (missing.length > 0) throw new ExitError(ExitCode.Failed);
}

/** The kind's table: NAMESPACE first with -A, the wide columns after AGE with -o wide. */
function workloadTable(
  entry: KindEntry & { columns: NonNullable<KindEntry["columns"]> },
  objects: readonly Record<string, unknown>[],
  options: { namespaceColumn: boolean; wide: boolean; nowMs: number; noHeaders: boolean },
): string[] {
  const { columns } = entry;
  const header = [
    ...(options.namespaceColumn ? ["NAMESPACE"] : []),
    ...columns.headers,
    ...(options.wide ? columns.wideHeaders : []),
  ];
  const rows = objects.map((object) => [
    ...(options.namespaceColumn ? [(object.metadata as { namespace: string }).namespace] : []),
    ...columns.row(object, options.nowMs),
    ...(options.wide ? columns.wideRow(object) : []),
  ]);
  const lines = formatTable([header, ...rows]);
  return options.noHeaders ? lines.slice(1) : lines;
}
