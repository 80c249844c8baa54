import { createServer, request, type ClientRequest } from "node:http";
import { once } from "node:events";
import { rm } from "node:fs/promises";

// An engine that hangs, made from a real one: an HTTP proxy on a unix socket in front of the
// engine's API socket (dockerd's, or `podman system service`'s), which forwards every request
// but those a rule picks, and answers those never. Pointing the CLI at it (DOCKER_HOST,
// CONTAINER_HOST) gives a daemon that accepts a request and then says nothing, while the real
// engine stays usable through its own socket to check what was left.

/**
 * What to do with one request: `request`, never forward it (the engine never hears of it);
 * `response`, forward it and let the engine carry it out, but never pass the answer on (the CLI
 * never hears back); undefined, forward it both ways.
 */
export type HoldRule = (method: string, path: string) => "request" | "response" | undefined;

export interface HangingEngineProxy {
  /** `unix://…`, for DOCKER_HOST or CONTAINER_HOST. */
  url: string;
  /** The requests held so far, as `METHOD path`. */
  held: string[];
  /** Stops listening and drops every connection, held ones included. */
  close(): Promise<void>;
}

export async function startHangingEngineProxy(options: {
  socket: string;
  target: string;
  hold: HoldRule;
}): Promise<HangingEngineProxy> {
  const held: string[] = [];
  const upstream = new Set<ClientRequest>();
  const server = createServer((req, res) => {
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    const action = options.hold(method, path);
    if (action === "request") {
      held.push(`${method} ${path}`);
      req.resume();
      return;
    }
    const forward = request({ socketPath: options.target, method, path, headers: req.headers }, (answer) => {
      if (action === "response") {
        held.push(`${method} ${path}`);
        answer.resume();
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.add(forward);
    forward.on("close", () => upstream.delete(forward));
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await rm(options.socket, { force: true });
  server.listen(options.socket);
  await once(server, "listening");
  return {
    url: `unix://${options.socket}`,
    held,
    close: async () => {
      for (const forward of upstream) forward.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(options.socket, { force: true });
    },
  };
}
