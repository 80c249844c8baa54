import type { Pod } from "kubernetes-types/core/v1.js";
import { CLUSTER_NETWORK_NAME } from "../pod/cluster-network.js";
import { networkChecks } from "../pod/spec/network-checks.js";
import type { ContainerRuntime } from "../runtime/types.js";

// How a command that probes pods (up, wait, rollout status) reaches them. Where the engine's pods
// are not reachable from this host (an engine in a VM or namespace of its own, rootless, or
// remote: runtime/engine-location.ts), their httpGet and tcpSocket probes and hooks go through
// the engine instead: a relay container on the cluster network, of the Service proxy's image
// (runtime/relay.ts). The engine is asked where it is only when some pod has such a check.

/**
 * Sets the runtime's relay when the pods have network checks (undefined: pods not known yet, as
 * `wait` finds them) and this host cannot reach them; true then.
 */
export async function reachPods(
  runtime: Pick<ContainerRuntime, "locate" | "relay">,
  pods: readonly Pod[] | undefined,
  image: string,
): Promise<boolean> {
  if (pods && !pods.some((pod) => networkChecks(pod).length > 0)) return false;
  const location = await runtime.locate(CLUSTER_NETWORK_NAME);
  if (location.podIPsRoutable) return false;
  runtime.relay = { network: CLUSTER_NETWORK_NAME, image };
  return true;
}
