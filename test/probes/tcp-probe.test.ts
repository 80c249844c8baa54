import { createServer, type Server } from "node:net";
import t from "tap";
import { runTcpProbe } from "../../lib/probes/tcp-probe.js";

// Against real sockets on the loopback.

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
  );
const close = (server: Server) => new Promise((resolve) => server.close(resolve));

t.test("a port that accepts connections passes", async (t) => {
  const server = createServer((socket) => socket.destroy());
  const port = await listen(server);
  t.teardown(() => close(server));
  t.same(await runTcpProbe({ host: "127.0.0.1", port, timeoutMs: 1000 }), { result: "success", output: "" });
});

t.test("a closed port fails with Go's words", async (t) => {
  const server = createServer();
  const port = await listen(server);
  await close(server);
  t.same(await runTcpProbe({ host: "127.0.0.1", port, timeoutMs: 1000 }), {
    result: "failure",
    output: `dial tcp 127.0.0.1:${port}: connect: connection refused`,
  });
});

t.test("an aborted probe does not connect", async (t) => {
  const connections: unknown[] = [];
  const server = createServer((socket) => connections.push(socket.destroy()));
  const port = await listen(server);
  t.teardown(() => close(server));
  const controller = new AbortController();
  controller.abort();
  t.same(await runTcpProbe({ host: "127.0.0.1", port, timeoutMs: 1000, signal: controller.signal }), {
    result: "unknown",
    output: `dial tcp 127.0.0.1:${port}: operation was canceled`,
  });
  t.equal(connections.length, 0);
});
