import { ExitCode, ExitError, UsageError } from "../errors.js";
import { reachPods } from "../apply/reach-pods.js";
import { resolveProxyImage } from "../services/proxy-config.js";
import { openEventLog } from "../events/event-log.js";
import { createRecorder } from "../events/recorder.js";
import { waitForPodReadiness } from "../apply/wait.js";
import { parseWaitTimeout } from "../kinds/wait-for.js";
import { formatNotFound, parseResourceRef, selectPods, type ResourceRef } from "../kinds/workload-ref.js";
import { findPods, podLabels, type PodRecord } from "../pod/status/find-pods.js";
import { stopSignal } from "../process/stop-signal.js";
import { resolveStateDir } from "../state/paths.js";
import { failWith, openEngine, type EngineCommandOptions } from "./engine-command.js";

// `podrun rollout status deploy/x|sts/x|ds/x`: kubectl's status lines
// (https://github.com/kubernetes/kubectl/blob/v0.34.0/pkg/polymorphichelpers/rollout_status.go)
// as the workload's pods become Ready, their probes run here as `podrun wait` runs them. podrun
// keeps no workload object: its replicas are the pods the engine holds, all of them "updated"
// (`up` replaces a changed pod), and available once Ready (minReadySeconds is not waited for).

export interface RolloutStatusOptions extends EngineCommandOptions {
  /** `TYPE/NAME`: a Deployment, StatefulSet or DaemonSet. */
  target: string;
  /** kubectl's duration; default 0: no limit. */
  timeout?: string;
}

/** The kinds with a status viewer, and how each words its progress and its end. */
const VIEWERS: Record<
  string,
  { waiting(ready: number, total: number, name: string): string; done(name: string, pods: PodRecord[]): string }
> = {
  Deployment: {
    waiting: (ready, total, name) =>
      `Waiting for deployment ${JSON.stringify(name)} rollout to finish: ${ready} of ${total} updated replicas are available...`,
    done: (name) => `deployment ${JSON.stringify(name)} successfully rolled out`,
  },
  DaemonSet: {
    waiting: (ready, total, name) =>
      `Waiting for daemon set ${JSON.stringify(name)} rollout to finish: ${ready} of ${total} updated pods are available...`,
    done: (name) => `daemon set ${JSON.stringify(name)} successfully rolled out`,
  },
  StatefulSet: {
    waiting: (ready, total) => `Waiting for ${total - ready} pods to be ready...`,
    done: (_name, pods) =>
      `statefulset rolling update complete ${pods.length} pods at revision ${podLabels(pods[0]!)["controller-revision-hash"] ?? ""}...`,
  },
};

export async function rolloutStatus(options: RolloutStatusOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr } = options;
  // 1. The workload and the limit, read before the engine is asked.
  const ref = readTarget(options.target);
  const viewer = VIEWERS[ref.kind]!;
  const limitMs = options.timeout === undefined ? 0 : parseWaitTimeout(options.timeout);
  const runtime = await openEngine(options, env);
  // Readiness is probed here: where this host cannot reach the pods, through the engine (reach-pods.ts).
  await reachPods(runtime, undefined, resolveProxyImage(undefined, env));
  const namespace = options.namespace ?? "default";
  // 2. Its pods, as the engine holds them.
  const pods = selectPods(await findPods(runtime, { namespace }), ref);
  if (pods.length === 0) return failWith(stderr, formatNotFound(ref));
  // 3. Each pod until Ready, a line each time the count changes; the end, kubectl's line.
  const stateDir = options.stateDir ?? resolveStateDir(env);
  const log = await openEventLog(stateDir);
  const recorder = createRecorder({ sinks: [], log });
  const stop = stopSignal(options.signal);
  let ready = 0;
  stdout.write(`${viewer.waiting(ready, pods.length, ref.name)}\n`);
  const limits = {
    stateDir,
    endsAtMs: limitMs === 0 ? Number.POSITIVE_INFINITY : Date.now() + limitMs,
    signal: stop.signal,
  };
  let results: string[];
  try {
    results = await Promise.all(
      pods.map(async (pod) => {
        const result = await waitForPodReadiness({ runtime, recorder }, limits, pod);
        if (result === "met" && ++ready < pods.length)
          stdout.write(`${viewer.waiting(ready, pods.length, ref.name)}\n`);
        return result;
      }),
    );
  } finally {
    stop.release();
    await recorder.flush().catch(() => undefined);
    await log.close();
  }
  // 4. The exit code: 0 once rolled out.
  if (results.includes("interrupted")) throw new ExitError(ExitCode.Interrupted);
  if (results.some((r) => r !== "met")) return failWith(stderr, "error: timed out waiting for the condition");
  stdout.write(`${viewer.done(ref.name, pods)}\n`);
}

function readTarget(target: string): ResourceRef {
  const ref = parseResourceRef(target, "rollout");
  if (!ref) throw new UsageError(`"${target}": rollout status takes TYPE/NAME: deploy/x, sts/x or ds/x`);
  if (!VIEWERS[ref.kind])
    throw new UsageError(
      `no status viewer has been implemented for ${ref.kind}: rollout status takes deploy/x, sts/x or ds/x`,
    );
  return ref;
}
