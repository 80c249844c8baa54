import type { Pod } from "kubernetes-types/core/v1.js";
import type { ContainerRuntime } from "../../runtime/types.js";
import type { StartedContainer } from "./prober-types.js";

// Where the host reaches the pod for a network probe: the pod IP the engine reports, or a
// published hostPort on the loopback when it reports none.

/** The pod's IP address as the engine reports it: the sandbox's, else an app container's ("" if none). */
export async function findPodIP(
  runtime: Pick<ContainerRuntime, "inspectContainers">,
  started: { sandboxId?: string | undefined; containers: readonly StartedContainer[] },
  hostNetwork: boolean,
): Promise<string> {
  if (hostNetwork) return "127.0.0.1";
  const ids = [
    ...(started.sandboxId ? [started.sandboxId] : []),
    ...started.containers.filter((c) => c.kind !== "init").map((c) => c.id),
  ];
  // No address (the inspect failed) is as none yet: resolveProbeAddress then uses a hostPort, or the probe errors.
  const states = await runtime.inspectContainers(ids).catch(() => []);
  return states.find((s) => s.ip)?.ip ?? "";
}

/**
 * Where the host reaches a container port of the pod: the pod IP, or else the port's hostPort on
 * the loopback (an engine without routable pod addresses, such as rootless podman).
 */
export function resolveProbeAddress(podIP: string, pod: Pod, port: number): { host: string; port: number } | undefined {
  if (podIP) return { host: podIP, port };
  const published = [...(pod.spec!.initContainers ?? []), ...pod.spec!.containers]
    .flatMap((c) => c.ports ?? [])
    .find((p) => p.containerPort === port && p.hostPort && (p.protocol ?? "TCP") === "TCP");
  if (!published?.hostPort) return undefined;
  const host = published.hostIP && published.hostIP !== "0.0.0.0" ? published.hostIP : "127.0.0.1";
  return { host, port: published.hostPort };
}
