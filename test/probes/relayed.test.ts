import t, { type Test } from "tap";
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { httpGet } from "../../lib/probes/http-get.js";
import { runTcpProbe } from "../../lib/probes/tcp-probe.js";
import { buildDialArgs, buildRelayRunArgs, relayName, relayNetworkFor } from "../../lib/runtime/relay.js";

// Network checks through a dial of the caller's (the engine's relay, where this host cannot reach
// the pods): the probe's semantics stay the same, only the connection is another's. Here the
// "relay" connects to a server on this host, while the URL names an address that is nowhere.

const NOWHERE = "10.255.255.1";

async function server(t: Test): Promise<number> {
  const http = createServer((req, res) => {
    if (req.url === "/moved") res.writeHead(302, { Location: "/ok" }).end();
    else res.writeHead(req.url === "/ok" ? 200 : 503).end(`${req.headers["user-agent"]} ${req.headers.host}`);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  t.teardown(() => new Promise<void>((resolve) => http.close(() => resolve())));
  return (http.address() as AddressInfo).port;
}

const relayTo = (port: number, seen: string[]) => (host: string, wanted: number) => {
  seen.push(`${host}:${wanted}`);
  return new Promise<Duplex>((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
};

t.test("httpGet through the dial: the answer, redirects on the same host, the kubelet's headers", async (t) => {
  const port = await server(t);
  const seen: string[] = [];
  const response = await httpGet({
    url: new URL(`http://${NOWHERE}:8080/moved`),
    timeoutMs: 2000,
    dial: relayTo(port, seen),
  });
  t.equal(response.status, 200);
  t.match(response.body, /^kube-probe\/\S+ 10\.255\.255\.1:8080$/, "the pod's Host, as if reached directly");
  t.same(seen, [`${NOWHERE}:8080`, `${NOWHERE}:8080`], "each request dialed the pod's address through the relay");
  const failing = await httpGet({ url: new URL(`http://${NOWHERE}:8080/x`), timeoutMs: 2000, dial: relayTo(port, []) });
  t.equal(failing.status, 503);
});

t.test("httpGet: a dial that fails is the request's failure, in the relay's words", async (t) => {
  const refused = () => Promise.reject(new Error(`dial tcp ${NOWHERE}:8080: connect: connection refused`));
  await t.rejects(httpGet({ url: new URL(`http://${NOWHERE}:8080/`), timeoutMs: 2000, dial: refused }), {
    message: `Get "http://${NOWHERE}:8080/": dial tcp ${NOWHERE}:8080: connect: connection refused`,
  });
});

t.test("tcpSocket through the dial: open, refused, timed out", async (t) => {
  const port = await server(t);
  t.same(await runTcpProbe({ host: NOWHERE, port: 8080, timeoutMs: 1000, dial: relayTo(port, []) }), {
    result: "success",
    output: "",
  });
  const refused = () => Promise.reject(new Error(`dial tcp ${NOWHERE}:8080: connect: connection refused`));
  t.same(await runTcpProbe({ host: NOWHERE, port: 8080, timeoutMs: 1000, dial: refused }), {
    result: "failure",
    output: `dial tcp ${NOWHERE}:8080: connect: connection refused`,
  });
  const never = (_host: string, _port: number, signal: AbortSignal) =>
    new Promise<Duplex>((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("canceled"))));
  t.match(await runTcpProbe({ host: NOWHERE, port: 8080, timeoutMs: 200, dial: never }), {
    result: "failure",
    output: /^dial tcp 10\.255\.255\.1:8080: i\/o timeout$/,
  });
});

t.test("the relay's argv", async (t) => {
  t.equal(relayName("podrun"), "podrun-relay-podrun");
  t.same(buildRelayRunArgs("podrun", "ghcr.io/podrun/service-proxy:0.1.0"), [
    "run",
    "-d",
    "--name",
    "podrun-relay-podrun",
    "--network",
    "podrun",
    "--label",
    "io.podrun.relay=podrun",
    "ghcr.io/podrun/service-proxy:0.1.0",
    "-relay",
  ]);
  t.same(buildDialArgs("podrun", "10.244.0.7", 8080), [
    "exec",
    "-i",
    "podrun-relay-podrun",
    "/service-proxy",
    "-dial",
    "10.244.0.7:8080",
  ]);
  t.same(buildDialArgs("podrun", "fd00::7", 80).at(-1), "[fd00::7]:80");
});

t.test("a loopback address is the engine host's: relayed from the host network", async (t) => {
  t.equal(relayNetworkFor("127.0.0.1", "podrun"), "host");
  t.equal(relayNetworkFor("127.0.0.53", "podrun"), "host");
  t.equal(relayNetworkFor("::1", "podrun"), "host");
  t.equal(relayNetworkFor("10.244.0.7", "podrun"), "podrun");
  t.equal(relayNetworkFor("fd00::7", "podrun"), "podrun");
});
