import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { formatHandlerUrl, httpGet, MAX_BODY_BYTES } from "../../lib/probes/http-get.js";
import { runHttpProbe } from "../../lib/probes/http-probe.js";

// httpGet probes against real HTTP servers on the loopback: status classes, same-host redirects
// only, headers, time limit, body limit, HTTPS without certificate checks, and Go's error words.

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(t: { teardown(fn: () => unknown): void }, handler: Handler, server: Server = createServer()) {
  const requests: IncomingMessage[] = [];
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    requests.push(req);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.teardown(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(resolve);
      }),
  );
  return { port: (server.address() as { port: number }).port, requests };
}

const probe = (port: number, path: string, extra: Partial<Parameters<typeof runHttpProbe>[0]> = {}) =>
  runHttpProbe({ scheme: "http", host: "127.0.0.1", port, path, headers: [], timeoutMs: 2000, ...extra });

t.test("2xx passes with the body; 4xx and 5xx fail with the kubelet's words", async (t) => {
  const { port } = await serve(t, (req, res) => {
    res.statusCode = req.url === "/ok" ? 204 : req.url === "/missing" ? 404 : 503;
    res.end(req.url === "/ok" ? "" : "down");
  });
  t.same(await probe(port, "/ok"), { result: "success", output: "" });
  t.same(await probe(port, "/missing"), { result: "failure", output: "HTTP probe failed with statuscode: 404" });
  t.same(await probe(port, "/healthz"), { result: "failure", output: "HTTP probe failed with statuscode: 503" });
});

t.test("redirects are followed on the same host only; another host's 3xx passes with a warning", async (t) => {
  const { port, requests } = await serve(t, (req, res) => {
    if (req.url === "/start") res.writeHead(302, { location: "/ready?x=1" }).end();
    else if (req.url === "/away") res.writeHead(301, { location: `http://localhost:${port}/ready` }).end();
    else if (req.url === "/loop") res.writeHead(307, { location: "/loop" }).end();
    else res.end("ready");
  });
  t.same(await probe(port, "/start"), { result: "success", output: "ready" });
  t.same(
    requests.map((r) => r.url),
    ["/start", "/ready?x=1"],
  );
  requests.length = 0;
  t.same(await probe(port, "/away"), { result: "warning", output: "Probe terminated redirects" });
  t.equal(requests.length, 1, "the other host was not asked");
  requests.length = 0;
  t.same(await probe(port, "/loop"), {
    result: "failure",
    output: `Get "http://127.0.0.1:${port}/loop": stopped after 10 redirects`,
  });
  t.equal(requests.length, 10);
});

t.test("headers: the kubelet's User-Agent and Accept unless set; Host and custom headers as given", async (t) => {
  const { port, requests } = await serve(t, (_req, res) => res.end());
  await probe(port, "/a");
  t.match(requests[0]!.headers, { "user-agent": "kube-probe/1.30", accept: "*/*", host: `127.0.0.1:${port}` });
  await probe(port, "/b", {
    headers: [
      { name: "Host", value: "web.example" },
      { name: "X-Token", value: "a" },
      { name: "x-token", value: "b" },
      { name: "Accept", value: "" },
      { name: "User-Agent", value: "mine" },
    ],
  });
  t.match(requests[1]!.headers, { host: "web.example", "x-token": "a, b", "user-agent": "mine" });
  t.notOk("accept" in requests[1]!.headers, "an empty Accept removes it");
});

t.test("a refused connection and a slow answer fail in Go's words", async (t) => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const closedPort = (closed.address() as { port: number }).port;
  await new Promise((resolve) => closed.close(resolve));
  t.same(await probe(closedPort, "/healthz"), {
    result: "failure",
    output: `Get "http://127.0.0.1:${closedPort}/healthz": dial tcp 127.0.0.1:${closedPort}: connect: connection refused`,
  });

  const { port } = await serve(t, (_req, res) => void setTimeout(() => res.end("late"), 1500));
  const started = Date.now();
  t.same(await probe(port, "/slow", { timeoutMs: 200 }), {
    result: "failure",
    output: `Get "http://127.0.0.1:${port}/slow": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
  });
  t.ok(Date.now() - started < 1500, "timeoutSeconds is the limit: no waiting for the late answer");
});

t.test("the body is read up to 10 KiB only", async (t) => {
  const { port } = await serve(t, (_req, res) => {
    res.write("a".repeat(MAX_BODY_BYTES));
    res.write("b".repeat(MAX_BODY_BYTES)); // then never ends: the probe must not wait for it
  });
  const result = await httpGet({ url: formatHandlerUrl("http", "127.0.0.1", port, "/big"), timeoutMs: 2000 });
  t.equal(result.status, 200);
  t.equal(result.body, "a".repeat(MAX_BODY_BYTES));
});

t.test("HTTPS: certificates are not verified, as the kubelet does", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "podrun-https-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=podrun-test",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  const server = createHttpsServer({
    key: readFileSync(join(dir, "key.pem")),
    cert: readFileSync(join(dir, "cert.pem")),
  });
  const { port } = await serve(t, (_req, res) => res.end("secure"), server);
  t.same(await probe(port, "/healthz", { scheme: "https" }), { result: "success", output: "secure" });
});

t.test("the URL joins scheme, host, port and path as the kubelet's formatURL", async (t) => {
  t.equal(formatHandlerUrl("HTTP", "10.88.0.5", 8080, "/healthz?full=1").href, "http://10.88.0.5:8080/healthz?full=1");
  t.equal(formatHandlerUrl("https", "fd00::5", 8443, "ready").href, "https://[fd00::5]:8443/ready");
});
