import type { Pod, Service } from "kubernetes-types/core/v1.js";
import { reachPods } from "../apply/reach-pods.js";
import { resolveProxyImage } from "../services/proxy-config.js";
import type { ContainerRuntime } from "../runtime/types.js";
import { UsageError } from "../errors.js";
import { startPortForwarding, type ForwardedPort } from "../apply/port-forward.js";
import { parseResourceRef } from "../kinds/workload-ref.js";
import { readPodRecord } from "../pod/pod-record.js";
import { currentContainers } from "../pod/status/find-pods.js";
import { stopSignal } from "../process/stop-signal.js";
import { resolveStateDir } from "../state/paths.js";
import { failWith, findOnePod, openEngine, type EngineCommandOptions } from "./engine-command.js";

// `podrun port-forward POD|TYPE/NAME|svc/NAME [LOCAL:]REMOTE…`: kubectl's port-forward, in the
// foreground until SIGINT or SIGTERM (then exit 0), with its lines. A Service's port is mapped to
// its targetPort on one of the pods its selector picks, as kubectl maps it; a port may be named
// (a container port's name). The connections themselves: lib/apply/port-forward.ts.

export interface PortForwardOptions extends EngineCommandOptions {
  target: string;
  /** `[LOCAL:]REMOTE`, `:REMOTE` (a free local port), or `LOCAL:NAME`. */
  ports: string[];
  /** Where to listen, comma-separated (default 127.0.0.1). */
  address?: string;
  /** auto (default): direct to the pod IP when the host reaches it, else through the engine. */
  via?: "auto" | "direct" | "engine";
}

interface PortSpec {
  local: number;
  remote: string;
}

/** kubectl's `[LOCAL:]REMOTE` (a usage error, exit 2, for anything else). */
export function parsePortSpecs(specs: readonly string[]): PortSpec[] {
  if (specs.length === 0) throw new UsageError("at least 1 PORT is required for port-forward");
  return specs.map((spec) => {
    const parts = spec.split(":");
    if (parts.length > 2) throw new UsageError(`invalid port format '${spec}'`);
    const remote = parts.at(-1)!;
    const named = /^(?=.*[a-z])[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(remote) && remote.length <= 15;
    if (!named && (!/^[1-9]\d{0,4}$/.test(remote) || Number(remote) > 65535))
      throw new UsageError(`Error parsing remote port '${remote}'`);
    if (parts.length === 1) {
      if (named) throw new UsageError(`invalid port format '${spec}': a named port needs a LOCAL: port`);
      return { local: Number(remote), remote };
    }
    const localText = parts[0]!;
    if (!/^\d*$/.test(localText) || Number(localText) > 65535)
      throw new UsageError(`Error parsing local port '${localText}'`);
    return { local: localText === "" ? 0 : Number(localText), remote };
  });
}

export async function portForward(options: PortForwardOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr } = options;
  // 1. The ports and addresses, read before the engine is asked.
  const specs = parsePortSpecs(options.ports);
  const addresses = (options.address ?? "127.0.0.1")
    .split(",")
    .map((a) => (a.trim() === "localhost" ? "127.0.0.1" : a.trim()));
  parseResourceRef(options.target, "port-forward"); // a bad TYPE/NAME: exit 2 before the engine is asked
  const runtime = await openEngine(options, env);
  const namespace = options.namespace ?? "default";
  const stateDir = options.stateDir ?? resolveStateDir(env);
  // 2. The pod (a Service's: one its selector picks), its spec, and each port on it.
  const request = { target: options.target, command: "port-forward", stateDir };
  const { record, service } = await findOnePod(runtime, namespace, request, stderr);
  const spec = await readPodRecord(stateDir, runtime.name, record);
  const ports = specs.map((p): ForwardedPort => ({ local: p.local, remote: resolveRemote(p.remote, service, spec) }));
  const container = currentContainers(record.appContainers).find((c) => c.running) ?? record.appContainers[0];
  if (!container) return failWith(stderr, `error: pod ${record.name} has no container to forward through`);
  const hostNetwork = spec?.spec?.hostNetwork === true;
  const via = await chooseVia(runtime, options.via ?? "auto", { hostNetwork, env });
  // 3. Listen, until SIGINT or SIGTERM.
  const stop = stopSignal(options.signal);
  try {
    const forwarding = await startPortForwarding(runtime, {
      ports,
      addresses,
      podIP: hostNetwork ? "127.0.0.1" : (record.infra?.ip ?? ""),
      containerId: container.id,
      via,
      onLine: (line) => stdout.write(`${line}\n`),
      onError: (line) => stderr.write(`${line}\n`),
    }).catch((error: NodeJS.ErrnoException) =>
      failWith(stderr, `error: unable to listen on any of the requested ports: ${error.message}`),
    );
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      stop.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await forwarding.close();
  } finally {
    stop.release();
  }
}

/**
 * `auto`: through the engine's relay where this host cannot reach the pods (reach-pods.ts: the
 * engine's place, asked once), else as before (direct, falling back to the engine's exec). A
 * hostNetwork pod's ports are the engine host's: the relay, on the cluster network, is not there.
 */
async function chooseVia(
  runtime: ContainerRuntime,
  via: NonNullable<PortForwardOptions["via"]>,
  context: { hostNetwork: boolean; env: NodeJS.ProcessEnv },
): Promise<NonNullable<PortForwardOptions["via"]> | "relay"> {
  if (via !== "auto" || context.hostNetwork) return via;
  return (await reachPods(runtime, undefined, resolveProxyImage(undefined, context.env))) ? "relay" : "auto";
}

/** The pod's port: a Service port mapped to its targetPort; a name resolved against the containers' ports. */
function resolveRemote(remote: string, service: Service | undefined, pod: Pod | undefined): number {
  let target: string | number = /^\d+$/.test(remote) ? Number(remote) : remote;
  if (service) {
    const port = service.spec?.ports?.find((p) => p.port === target || p.name === target);
    if (!port) throw new UsageError(`Service ${service.metadata?.name} does not have a service port ${remote}`);
    target = port.targetPort ?? port.port;
  }
  if (typeof target === "number") return target;
  const containers = [...(pod?.spec?.initContainers ?? []), ...(pod?.spec?.containers ?? [])];
  const named = containers.flatMap((c) => c.ports ?? []).find((p) => p.name === target);
  if (!named) throw new UsageError(`Pod '${pod?.metadata?.name ?? ""}' does not have a named port '${target}'`);
  return named.containerPort;
}
