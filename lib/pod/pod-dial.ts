import type { Dial } from "../probes/dial.js";
import type { ContainerRuntime } from "../runtime/types.js";

// How the probes and hooks of a run reach a pod: from this host (undefined: the probes' own
// connection), or through the engine once the run found the pods unreachable from here and set
// the runtime's relay (commands/up.ts, wait): every network check then goes the same way.

export function podDial(runtime: Pick<ContainerRuntime, "relay" | "dial">): Dial | undefined {
  return runtime.relay ? (host, port, signal) => runtime.dial(host, port, signal) : undefined;
}
