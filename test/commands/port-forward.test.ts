import { createServer, connect } from "node:net";
import t from "tap";
import { startPortForwarding } from "../../lib/apply/port-forward.js";
import { parsePortSpecs } from "../../lib/commands/port-forward.js";
import { UsageError } from "../../lib/errors.js";

// port-forward's ports as kubectl reads them (a table), and the forwarder against a TCP server on
// loopback standing for the pod. The engines: kubectl-verbs.ts.

t.test("[LOCAL:]REMOTE, :REMOTE, LOCAL:NAME", async (t) => {
  t.same(parsePortSpecs(["8080:80", "5432", ":80", "9000:http"]), [
    { local: 8080, remote: "80" },
    { local: 5432, remote: "5432" },
    { local: 0, remote: "80" },
    { local: 9000, remote: "http" },
  ]);
  const refused: Array<[string, string]> = [
    ["a:80", "Error parsing local port 'a'"],
    ["80:0", "Error parsing remote port '0'"],
    ["80:99999", "Error parsing remote port '99999'"],
    ["1:2:3", "invalid port format '1:2:3'"],
    ["http", "invalid port format 'http': a named port needs a LOCAL: port"],
  ];
  for (const [spec, message] of refused) t.throws(() => parsePortSpecs([spec]), new UsageError(message), spec);
  t.throws(() => parsePortSpecs([]), new UsageError("at least 1 PORT is required for port-forward"));
});

t.test("direct: each connection piped to the pod's port, kubectl's lines; close ends them", async (t) => {
  const pod = createServer((socket) => socket.end("pong\n"));
  await new Promise<void>((resolve) => pod.listen(0, "127.0.0.1", resolve));
  t.teardown(() => pod.close());
  const remote = (pod.address() as { port: number }).port;
  const lines: string[] = [];
  const forwarding = await startPortForwarding(
    {
      execAttached: () => Promise.reject(new Error("not the engine path")),
      dial: () => Promise.reject(new Error("not the relay")),
    },
    {
      ports: [{ local: 0, remote }],
      addresses: ["127.0.0.1"],
      podIP: "127.0.0.1",
      containerId: "c",
      via: "auto",
      onLine: (l) => lines.push(l),
      onError: (l) => lines.push(l),
    },
  );
  const local = forwarding.listening[0]!.local;
  const answer = await readAll(local);
  t.equal(answer, "pong\n");
  t.same(lines, [`Forwarding from 127.0.0.1:${local} -> ${remote}`, `Handling connection for ${local}`]);
  await forwarding.close();
  await t.rejects(
    new Promise((resolve, reject) => connect(local, "127.0.0.1").on("connect", resolve).on("error", reject)),
    "closed",
  );
});

t.test("no pod IP: through the engine, the connection on the exec's stdin and stdout", async (t) => {
  const commands: string[][] = [];
  const forwarding = await startPortForwarding(
    {
      execAttached: async (_id, command, options) => {
        commands.push([...command]);
        options.stdout.write("through nc\n");
        return 0;
      },
      dial: () => Promise.reject(new Error("not the relay")),
    },
    {
      ports: [{ local: 0, remote: 5432 }],
      addresses: ["127.0.0.1"],
      podIP: "",
      containerId: "c",
      via: "auto",
      onLine: () => undefined,
      onError: () => undefined,
    },
  );
  const local = forwarding.listening[0]!.local;
  const answer = await readAll(local);
  t.equal(answer, "through nc\n");
  t.same(commands, [["nc", "127.0.0.1", "5432"]]);
  await forwarding.close();
});

/** Everything a connection to the local port receives, until it closes. */
function readAll(port: number): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    connect(port, "127.0.0.1")
      .on("data", (d) => (text += d.toString()))
      .on("close", () => resolve(text));
  });
}

t.test("relay: each connection through the engine's relay, to the pod's IP and port", async (t) => {
  const pod = createServer((socket) => socket.end("via relay\n"));
  await new Promise<void>((resolve) => pod.listen(0, "127.0.0.1", resolve));
  t.teardown(() => pod.close());
  const port = (pod.address() as { port: number }).port;
  const dialed: string[] = [];
  const forwarding = await startPortForwarding(
    {
      execAttached: () => Promise.reject(new Error("not the exec path")),
      // The relay's stand-in: it reaches the "pod" (a server here) whatever address is asked.
      dial: (host, remote) => {
        dialed.push(`${host}:${remote}`);
        return new Promise((resolve, reject) => {
          const socket = connect(port, "127.0.0.1");
          socket.once("connect", () => resolve(socket));
          socket.once("error", reject);
        });
      },
    },
    {
      ports: [{ local: 0, remote: 8080 }],
      addresses: ["127.0.0.1"],
      podIP: "10.255.255.1",
      containerId: "c",
      via: "relay",
      onLine: () => undefined,
      onError: () => undefined,
    },
  );
  t.teardown(() => forwarding.close());
  t.equal(await readAll(forwarding.listening[0]!.local), "via relay\n");
  t.same(dialed, ["10.255.255.1:8080"], "the pod's own IP and port, dialed by the relay");
});
