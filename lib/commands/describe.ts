import { hostname } from "node:os";
import { ExitCode, ExitError, UsageError } from "../errors.js";
import { fieldText } from "../events/event-key.js";
import { readEventLog } from "../events/event-log.js";
import { foldEvents, type FoldedRow } from "../events/fold.js";
import type { KubeEvent } from "../events/types.js";
import { entryOfType } from "../kinds/resource-names.js";
import {
  formatNotFound,
  formatOwner,
  ownerOf,
  parseResourceRef,
  selectByRefs,
  type ResourceRef,
} from "../kinds/workload-ref.js";
import { parseLabelSelector } from "../manifest/label-selector.js";
import { formatPodDescription } from "../output/describe-pod.js";
import { formatServiceDescription } from "../output/describe-service.js";
import { findServices } from "../services/list-services.js";
import { readPodRecord } from "../pod/pod-record.js";
import { findPods, selectByLabels } from "../pod/status/find-pods.js";
import { toPodObject } from "../pod/status/pod-object.js";
import { summarizePod } from "../pod/status/pod-status.js";
import { resolveStateDir } from "../state/paths.js";
import type { ContainerRuntime } from "../runtime/types.js";
import { openEngine, type EngineCommandOptions } from "./engine-command.js";

// `podrun describe POD|pod/NAME|TYPE/NAME… | -l`: each pod in kubectl's layout
// (output/describe-pod.ts), from the engine (its status), its record (its spec) and the event log
// (its events). A workload stands for its pods: podrun keeps no workload object to describe. A
// Service (`svc/NAME`, `svc NAME`) is described from what `get svc` lists (output/describe-service.ts).

export interface DescribeOptions extends EngineCommandOptions {
  /** Pod names, `TYPE/NAME`s, or a TYPE followed by names (`pod web db`); a TYPE alone with `selector`. */
  args: string[];
  /** `-l`: the pods whose labels match. */
  selector?: string;
  now?: () => number;
}

export async function describe(options: DescribeOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr, now = Date.now } = options;
  // 1. The pods and Services asked for, read before the engine is asked.
  const refs = readRefs(options);
  const serviceRefs = refs?.filter((ref) => ref.kind === "Service") ?? [];
  const podRefs = refs?.filter((ref) => ref.kind !== "Service");
  const runtime = await openEngine(options, env);
  const namespace = options.namespace ?? "default";
  // 2. The pods, as the engine holds them.
  const records = podRefs?.length === 0 ? [] : await findPods(runtime, { namespace });
  const { selected, missing } =
    podRefs === undefined
      ? { selected: selectByLabels(records, parseLabelSelector(options.selector!)), missing: [] as ResourceRef[] }
      : selectByRefs(records, podRefs);
  // 3. Each one's spec and events, then its description; then each Service's.
  const stateDir = options.stateDir ?? resolveStateDir(env);
  const wanted = [
    ...selected.map((record) => ({ kind: "Pod", namespace: record.namespace, name: record.name })),
    ...serviceRefs.map((ref) => ({ kind: "Service", namespace, name: ref.name })),
  ];
  const events = await eventsOf(stateDir, wanted);
  const descriptions: string[] = [];
  for (const record of selected) {
    const spec = await readPodRecord(stateDir, runtime.name, record);
    const owner = ownerOf(record);
    descriptions.push(
      formatPodDescription({
        status: toPodObject(summarizePod(record, runtime.name)),
        spec,
        controlledBy: owner ? formatOwner(owner) : undefined,
        node: hostname(),
        events: events.get(`Pod/${record.namespace}/${record.name}`) ?? [],
        nowMs: now(),
      }),
    );
  }
  const services = await describeServices(runtime, { stateDir, namespace, refs: serviceRefs, events, nowMs: now() });
  descriptions.push(...services.descriptions);
  missing.push(...services.missing);
  stdout.write(descriptions.join("\n\n"));
  for (const ref of missing) stderr.write(`${formatNotFound(ref)}\n`);
  if (selected.length === 0 && refs === undefined) stderr.write(`No resources found in ${namespace} namespace.\n`);
  if (missing.length > 0) throw new ExitError(ExitCode.Failed);
}

/** Each Service asked for, described; those not there. */
async function describeServices(
  runtime: ContainerRuntime,
  context: {
    stateDir: string;
    namespace: string;
    refs: readonly ResourceRef[];
    events: ReadonlyMap<string, FoldedRow[]>;
    nowMs: number;
  },
): Promise<{ descriptions: string[]; missing: ResourceRef[] }> {
  const { refs, namespace, events, nowMs } = context;
  if (refs.length === 0) return { descriptions: [], missing: [] };
  const services = await findServices(runtime, { stateDir: context.stateDir, namespace });
  const descriptions: string[] = [];
  const missing: ResourceRef[] = [];
  for (const ref of refs) {
    const found = services.find((listed) => listed.service.metadata?.name === ref.name);
    if (!found) missing.push(ref);
    else
      descriptions.push(
        formatServiceDescription({ ...found, events: events.get(`Service/${namespace}/${ref.name}`) ?? [], nowMs }),
      );
  }
  return { descriptions, missing };
}

function readRefs(options: DescribeOptions): ResourceRef[] | undefined {
  const { args } = options;
  const type = args.length > 0 && !args[0]!.includes("/") ? entryOfType(args[0]!) : undefined;
  const words = type ? args.slice(1) : args;
  if (options.selector !== undefined) {
    if (words.length > 0) throw new UsageError("name cannot be provided when a selector is specified");
    if (type && type.kind !== "Pod") throw new UsageError("-l selects pods: give a workload as TYPE/NAME");
    parseLabelSelector(options.selector);
    return undefined;
  }
  if (words.length === 0)
    throw new UsageError(
      "you must specify the type of resource to describe: a pod's name, pod/NAME or TYPE/NAME, or -l",
    );
  return words.map((word) =>
    type ? { kind: type.kind, name: word } : (parseResourceRef(word, "describe") ?? { kind: "Pod", name: word }),
  );
}

/** The events of each object (`Kind/namespace/name`: pods and Services), folded, oldest first. */
async function eventsOf(
  stateDir: string,
  objects: readonly { kind: string; namespace: string; name: string }[],
): Promise<Map<string, FoldedRow[]>> {
  const wanted = new Set(objects.map((o) => `${o.kind}/${o.namespace}/${o.name}`));
  const keyOf = (event: KubeEvent) => {
    const object = event.involvedObject ?? {};
    const namespace = fieldText(object.namespace || event.metadata.namespace || "default");
    const key = `${fieldText(object.kind) || "Pod"}/${namespace}/${fieldText(object.name)}`;
    return wanted.has(key) ? key : undefined;
  };
  const byObject = new Map<string, KubeEvent[]>();
  if (wanted.size === 0) return new Map();
  for await (const event of readEventLog(stateDir)) {
    const key = keyOf(event);
    if (!key) continue;
    const list = byObject.get(key);
    if (list) list.push(event);
    else byObject.set(key, [event]);
  }
  return new Map([...byObject].map(([key, list]) => [key, foldEvents(list).sort((a, b) => a.lastMs - b.lastMs)]));
}
