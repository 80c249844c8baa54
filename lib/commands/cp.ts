import { UsageError } from "../errors.js";
import { readPodRecord } from "../pod/pod-record.js";
import { chooseExecContainer } from "../pod/status/exec-target.js";
import { findPods } from "../pod/status/find-pods.js";
import { summarizePod } from "../pod/status/pod-status.js";
import { resolveStateDir } from "../state/paths.js";
import { failWith, openEngine, type EngineCommandOptions } from "./engine-command.js";
import { formatNotFound } from "../kinds/workload-ref.js";

// `podrun cp POD:PATH LOCAL` and `podrun cp LOCAL POD:PATH`: kubectl's arguments
// (`[NAMESPACE/]POD:PATH`, -c, the default container as exec picks it), done by the engine's own
// `cp`, which copies a file or a directory whole and needs no tar in the image, nor a running
// container (a crashed one's files can be copied out).

export interface CpOptions extends EngineCommandOptions {
  source: string;
  destination: string;
  container?: string;
}

/** A `[NAMESPACE/]POD:PATH` argument, or undefined for a local path (`./a:b` is local: it starts with `.` or `/`). */
export function parseRemotePath(arg: string): { namespace?: string; pod: string; path: string } | undefined {
  if (arg.startsWith("/") || arg.startsWith(".")) return undefined;
  const colon = arg.indexOf(":");
  if (colon <= 0) return undefined;
  const target = arg.slice(0, colon);
  const path = arg.slice(colon + 1);
  if (path === "") throw new UsageError("filepath can not be empty");
  const slash = target.indexOf("/");
  return slash < 0 ? { pod: target, path } : { namespace: target.slice(0, slash), pod: target.slice(slash + 1), path };
}

export async function cp(options: CpOptions): Promise<void> {
  const { env = process.env, stderr = process.stderr } = options;
  // 1. Which side is the pod's, as kubectl reads them.
  const from = parseRemotePath(options.source);
  const to = parseRemotePath(options.destination);
  if (from && to) throw new UsageError("one of src or dest must be a local file specification");
  if (!from && !to) throw new UsageError("one of src or dest must be a remote file specification");
  const remote = (from ?? to)!;
  const namespace = remote.namespace ?? options.namespace ?? "default";
  const runtime = await openEngine(options, env);
  // 2. The pod and its container, as exec chooses it (a stopped one too).
  const [record] = await findPods(runtime, { namespace, name: remote.pod });
  if (!record) return failWith(stderr, formatNotFound({ kind: "Pod", name: remote.pod }));
  const spec = await readPodRecord(options.stateDir ?? resolveStateDir(env), runtime.name, record);
  const choice = chooseExecContainer(summarizePod(record, runtime.name), spec, options.container, false);
  if (!choice.ok) return failWith(stderr, `error: ${choice.message}`);
  if (choice.note !== undefined) stderr.write(`${choice.note}\n`);
  // 3. The engine's copy.
  const copied = await runtime.copyFiles(choice.state.id, {
    direction: from ? "out" : "into",
    containerPath: remote.path,
    hostPath: from ? options.destination : options.source,
  });
  if (!copied.ok) failWith(stderr, `error: ${copied.reason}`);
}
