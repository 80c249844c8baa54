import { Duplex } from "node:stream";
import { spawnPiped } from "./exec.js";
import { LABEL_RELAY } from "./types.js";

// podrun's way to a pod whose address this host cannot reach (an engine in a VM or on another
// host: engine-location.ts): one relay container per engine and cluster network, running the
// Service proxy's image idle (`-relay`), and for each connection `exec -i RELAY /service-proxy
// -dial IP:PORT`, whose stdin and stdout carry the connection (images/service-proxy/dial.go). The
// exec goes through the engine's API, so it works wherever `exec` does; it costs some 65 ms on
// docker and 170 ms on podman per connection (bench/RESULTS.md, "A connection to a pod through
// the engine"), and needs no tool in the user's image.

/** The engine's host network, as `--network` names it on every engine. */
export const HOST_NETWORK = "host";

/**
 * The network a connection to `host` is relayed from: a loopback address is the engine host's
 * own (a hostNetwork pod's checks go to 127.0.0.1, as a kubelet's go to its node's), reached from
 * a relay on the host network; any other, from the relay on the cluster network.
 */
export function relayNetworkFor(host: string, clusterNetwork: string): string {
  return /^127\.|^::1$|^localhost$/i.test(host) ? HOST_NETWORK : clusterNetwork;
}

/** The relay container of a network: one per engine, named after the network. */
export function relayName(network: string): string {
  return `podrun-relay-${network}`;
}

/** `run -d` of the relay: on the network, labelled (not as podrun's pods: `down` removes it with the network). */
export function buildRelayRunArgs(network: string, image: string): string[] {
  return [
    "run",
    "-d",
    "--name",
    relayName(network),
    "--network",
    network,
    "--label",
    `${LABEL_RELAY}=${network}`,
    image,
    "-relay",
  ];
}

/** The connection's argv: `exec -i RELAY /service-proxy -dial HOST:PORT`. */
export function buildDialArgs(network: string, host: string, port: number): string[] {
  const address = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  return ["exec", "-i", relayName(network), "/service-proxy", "-dial", address];
}

/**
 * One connection through the relay: a Duplex that is the connection, once the relay says it is
 * open ("dialed" on its stderr). A dial that fails rejects with the relay's line, Go's words
 * (`dial tcp 10.244.0.7:8080: connect: connection refused`), as a kubelet's prober reports them.
 */
export function dialThroughRelay(binary: string, args: readonly string[], signal?: AbortSignal): Promise<Duplex> {
  const child = spawnPiped(binary, args);
  const socket = Duplex.from({ readable: child.stdout, writable: child.stdin });
  // node:http asks a socket for these; a relayed connection has nothing to tune.
  Object.assign(socket, { setNoDelay: () => socket, setKeepAlive: () => socket, setTimeout: () => socket });
  socket.once("close", () => child.kill("SIGTERM"));
  // The relay's end (a pod that closed, a dial that failed) is the reader's business, or nobody's.
  socket.on("error", () => undefined);
  return new Promise((resolve, reject) => {
    let stderr = "";
    let open = false;
    const onAbort = () => (child.kill("SIGTERM"), reject(new Error("operation was canceled")));
    signal?.addEventListener("abort", onAbort, { once: true });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      if (!open && /^dialed$/m.test(stderr)) {
        open = true;
        signal?.removeEventListener("abort", onAbort);
        resolve(socket);
      }
    });
    child.once("error", (error) => reject(error));
    child.once("close", (code) => {
      signal?.removeEventListener("abort", onAbort);
      if (!open) reject(new Error(stderr.trim().split("\n").at(-1) || `the relay exited with code ${code}`));
    });
  });
}
