import type { Duplex } from "node:stream";

// How a network probe or hook opens its connection: from this host to the pod's address, as a
// kubelet does from its node, or, where this host cannot reach the pods (an engine in a VM or on
// another host), through the engine (runtime/relay.ts). What is sent and how the answer is judged
// stay the same either way.

/** Opens a TCP connection to host:port; rejects with the dial's failure in Go's words. */
export type Dial = (host: string, port: number, signal: AbortSignal) => Promise<Duplex>;
