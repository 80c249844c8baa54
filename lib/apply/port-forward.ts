import { connect, createServer, type Server, type Socket } from "node:net";
import { PassThrough } from "node:stream";
import type { ContainerRuntime } from "../runtime/types.js";

// `podrun port-forward`: a listener on the host per port, each connection piped to the pod's port.
// Two ways to reach it:
// - direct: a TCP connection to the pod's IP, where the host routes to the engine's bridge (docker
//   and rootful podman on Linux);
// - through the engine: `exec -i` of `nc 127.0.0.1 PORT` in one of the pod's containers, which
//   shares the pod's network namespace, the connection's bytes on the exec's stdin and stdout.
//   It works wherever `exec` does (rootless podman, a remote DOCKER_HOST, a VM), and needs `nc` in
//   the image (busybox has it), as kubectl's needs socat on the node.
// - through the engine's relay (runtime/relay.ts): where the host cannot reach the pods (an engine
//   in a VM or on another host), a connection from the relay container on the cluster network
//   to the pod's IP; no tool needed in the image. `auto` takes it when the engine's place says so
//   (commands/port-forward.ts asks once, before listening).
// With `auto` otherwise, a connection goes direct when the pod has an IP and it answers (or
// refuses) in time; a connection that cannot reach it switches every later one to the engine.

export interface ForwardedPort {
  /** 0: a free port, picked by the system. */
  local: number;
  remote: number;
}

export interface PortForwardRequest {
  ports: readonly ForwardedPort[];
  addresses: readonly string[];
  /** The pod's IP ("" when the engine gives none). */
  podIP: string;
  /** The container the engine path runs `nc` in. */
  containerId: string;
  /** `relay`: through the runtime's relay (its `relay` set: apply/reach-pods.ts). */
  via: "auto" | "direct" | "engine" | "relay";
  /** kubectl's lines: `Forwarding from …`, `Handling connection for …`. */
  onLine: (line: string) => void;
  /** A connection that failed: kubectl's error line; the forward goes on. */
  onError: (line: string) => void;
}

export interface PortForwarding {
  /** The ports listened on, in the order asked, with the local port each got. */
  listening: readonly { address: string; local: number; remote: number }[];
  close(): Promise<void>;
}

/** How long a direct connection may take before the pod is taken as unreachable from the host. */
const DIRECT_CONNECT_MS = 1500;
const UNREACHABLE = new Set(["ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

export async function startPortForwarding(
  runtime: Pick<ContainerRuntime, "execAttached" | "dial">,
  request: PortForwardRequest,
): Promise<PortForwarding> {
  let via = request.via === "auto" && request.podIP === "" ? "engine" : request.via;
  const sockets = new Set<Socket>();
  const servers: Server[] = [];
  const listening: { address: string; local: number; remote: number }[] = [];

  const handle = (client: Socket, local: number, remote: number) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    request.onLine(`Handling connection for ${local}`);
    const fail = (why: string) => {
      request.onError(`E0000 portforward: an error occurred forwarding ${local} -> ${remote}: ${why}`);
      client.destroy();
    };
    if (via === "engine")
      return void throughEngine(runtime, request.containerId, remote, client).catch((e: Error) => fail(e.message));
    if (via === "relay")
      return void runtime.dial(request.podIP, remote).then(
        (upstream) => {
          upstream.on("error", () => client.destroy());
          client.once("close", () => upstream.destroy());
          client.pipe(upstream).pipe(client);
        },
        (error: Error) => fail(`error forwarding port ${remote} to pod: ${error.message}`),
      );
    const upstream = connect({ host: request.podIP, port: remote, timeout: DIRECT_CONNECT_MS });
    upstream.once("connect", () => {
      upstream.setTimeout(0);
      client.pipe(upstream).pipe(client);
    });
    upstream.once("timeout", () =>
      upstream.destroy(Object.assign(new Error("connect timed out"), { code: "ETIMEDOUT" })),
    );
    upstream.once("error", (error: NodeJS.ErrnoException) => {
      if (request.via === "auto" && UNREACHABLE.has(error.code ?? "") && !upstream.readable) {
        via = "engine";
        return void throughEngine(runtime, request.containerId, remote, client).catch((e: Error) => fail(e.message));
      }
      fail(`error forwarding port ${remote} to pod: ${error.message}`);
    });
    client.once("close", () => upstream.destroy());
  };

  try {
    for (const port of request.ports)
      for (const address of request.addresses) {
        // The first address picks a free port; the others take the same one.
        const local = port.local !== 0 ? port.local : (listening.find((l) => l.remote === port.remote)?.local ?? 0);
        const server = createServer((client) => handle(client, bound(server), port.remote));
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(local, address, () => resolve());
        });
        servers.push(server);
        listening.push({ address, local: bound(server), remote: port.remote });
        request.onLine(
          `Forwarding from ${address.includes(":") ? `[${address}]` : address}:${bound(server)} -> ${port.remote}`,
        );
      }
  } catch (error) {
    await closeAll(servers, sockets);
    throw error;
  }
  return { listening, close: () => closeAll(servers, sockets) };
}

function bound(server: Server): number {
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}

/** One connection through the engine: `nc` in the pod's network namespace, on the exec's stdio. */
async function throughEngine(
  runtime: Pick<ContainerRuntime, "execAttached">,
  containerId: string,
  remote: number,
  client: Socket,
): Promise<void> {
  const stderr = new PassThrough();
  let said = "";
  stderr.on("data", (chunk: Buffer) => (said += chunk.toString()));
  const code = await runtime.execAttached(containerId, ["nc", "127.0.0.1", String(remote)], {
    stdin: client,
    stdout: client,
    stderr,
  });
  client.end();
  if (code !== 0 && said.trim() !== "") throw new Error(`through the engine: ${said.trim().split("\n")[0]}`);
}

async function closeAll(servers: readonly Server[], sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
}
