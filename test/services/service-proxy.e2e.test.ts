import { randomBytes } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import {
  renderProxyConfig,
  SERVICE_PROXY_CONFIG_DIR,
  SERVICE_PROXY_CONFIG_FILE,
  SERVICE_PROXY_IMAGE,
  type ProxyConfig,
  type ProxyEndpoint,
} from "../../lib/services/proxy-config.js";
import { BUSYBOX, requireImage, requirePodEngine, requireTestEnv } from "../harness/engine.js";

// The Service proxy image (images/service-proxy) on the real engines, without podrun's Service
// kind: a network, two busybox endpoints, the proxy with its config directory bind-mounted, and a
// client container that asks through the proxy's address. The config is rewritten as podrun
// will: a temporary file in the directory, renamed over service.json.
//
// busybox here has no UDP server, so the UDP endpoints are DNS responders in this process,
// bound to the network's gateway (the host's address on the bridge), and the client is busybox
// nslookup, which asks port 53.

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;

// Each endpoint answers GET / with its name.
const httpd = (name: string) => `mkdir -p /www && echo ${name} > /www/index.html && exec httpd -f -p 8080 -h /www`;

interface Fixture {
  runtime: RuntimeName;
  /** Runs a shell script in the client container; resolves with its stdout. */
  client(script: string): Promise<string>;
  /** Rewrites service.json by an atomic rename. */
  configure(config: Omit<ProxyConfig, "service">): Promise<void>;
  endpoints: ProxyEndpoint[];
  proxyIp: string;
  gateway: string;
  proxyName: string;
}

async function setup(t: Test, runtime: RuntimeName): Promise<Fixture | undefined> {
  const env = requireTestEnv(t);
  if (!env || !(await requirePodEngine(t, runtime))) return undefined;
  // An env.json written before test-env.sh built the proxy lacks the field: the default name.
  const image = env.images.serviceProxy ?? SERVICE_PROXY_IMAGE;
  if (!(await requireImage(t, runtime, image))) return undefined;

  const run = async (args: string[]) => (await runCommand(runtime, args)).stdout.trim();
  const id = unique("podrun-proxy-e2e");
  const label = `io.podrun.test=${id}`;
  const containers: string[] = [];
  const dir = await mkdtemp(join(tmpdir(), "podrun-proxy-e2e-"));
  t.teardown(async () => {
    const force = runtime === "podman" ? ["rm", "-f", "-t", "0"] : ["rm", "-f"];
    if (containers.length > 0) await runCommand(runtime, [...force, ...containers], { reject: false });
    await runCommand(runtime, ["network", "rm", id], { reject: false });
    await rm(dir, { recursive: true, force: true });
  });

  await run(["network", "create", "--label", label, id]);
  const start = async (name: string, args: string[]) => {
    containers.push(name);
    await run(["run", "-d", "--name", name, "--label", label, "--network", id, ...args]);
    return run(["inspect", "-f", `{{(index .NetworkSettings.Networks "${id}").IPAddress}}`, name]);
  };
  const gateway = await run(
    runtime === "docker"
      ? ["network", "inspect", "-f", "{{(index .IPAM.Config 0).Gateway}}", id]
      : ["network", "inspect", "-f", "{{(index .Subnets 0).Gateway}}", id],
  );

  const endpoints: ProxyEndpoint[] = [];
  for (const name of ["ep-a", "ep-b"]) {
    const ip = await start(`${id}-${name}`, [BUSYBOX, "sh", "-c", httpd(name)]);
    endpoints.push({ ip, port: 8080, pod: name });
  }

  const configure = async (config: Omit<ProxyConfig, "service">) => {
    const tmp = join(dir, `.${SERVICE_PROXY_CONFIG_FILE}.tmp`);
    await writeFile(tmp, renderProxyConfig({ service: `default/${id}`, ...config }));
    await rename(tmp, join(dir, SERVICE_PROXY_CONFIG_FILE));
  };
  await configure({ ports: [{ name: "http", protocol: "TCP", port: 80, endpoints }] });
  // The least the proxy needs: its own network namespace, port 80, and a read-only view of the file.
  const proxyName = `${id}-proxy`;
  const proxyIp = await start(proxyName, [
    "--cap-drop",
    "ALL",
    "--cap-add",
    "NET_BIND_SERVICE",
    "--read-only",
    "-v",
    `${dir}:${SERVICE_PROXY_CONFIG_DIR}:ro`,
    image,
  ]);
  const clientName = `${id}-client`;
  await start(clientName, [BUSYBOX, "sleep", "600"]);
  const client = (script: string) => run(["exec", clientName, "sh", "-c", script]);
  // The endpoints' httpd and the proxy's first load: wait until the Service answers.
  await client(
    `for i in $(seq 1 100); do wget -q -O- http://${proxyIp}/ 2>/dev/null && exit 0; sleep 0.1; done; exit 1`,
  );
  return { runtime, client, configure, endpoints, proxyIp, gateway, proxyName };
}

/** The answers of `n` requests to the proxy, each on a new connection; "refused" for a refused one. */
async function ask(f: Fixture, n: number): Promise<string[]> {
  const out = await f.client(
    `for i in $(seq 1 ${n}); do timeout 5 wget -q -O- http://${f.proxyIp}/ 2>&1 | sed 's/.*Connection refused.*/refused/'; done`,
  );
  return out.split("\n").filter(Boolean);
}

const count = (answers: string[]) =>
  Object.fromEntries([...new Set(answers)].map((a) => [a, answers.filter((x) => x === a).length]));

/**
 * A DNS responder for the UDP cases: answers every A question with `address`, and remembers where
 * the questions came from (the proxy, not the client, if the proxy relays).
 */
async function dnsEndpoint(t: Test, host: string, address: string) {
  const socket: Socket = createSocket("udp4");
  const peers = new Set<string>();
  socket.on("message", (query, peer) => {
    peers.add(peer.address);
    socket.send(dnsAnswer(query, address), peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(0, host, () => resolve());
  });
  t.teardown(() => socket.close());
  return { port: socket.address().port, peers };
}

// RFC 1035 §4.1: the query's header and question, with QR set, and one A record when it asks A.
function dnsAnswer(query: Buffer, address: string): Buffer {
  let end = 12;
  while (end < query.length && query[end] !== 0) end += query[end]! + 1;
  const question = query.subarray(12, end + 5);
  const type = query.readUInt16BE(end + 1);
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(type === 1 ? 1 : 0, 6);
  if (type !== 1) return Buffer.concat([header, question]);
  const record = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...address.split(".").map(Number)]);
  return Buffer.concat([header, question, record]);
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: the Service proxy relays, refuses, follows its config, keeps affinity, relays UDP`, async (t) => {
    const f = await setup(t, runtime);
    if (!f) return;
    const startedAt = () => runCommand(runtime, ["inspect", "-f", "{{.State.StartedAt}}", f.proxyName]);
    const started = (await startedAt()).stdout;

    await t.test("port 80 reaches both endpoints on 8080", async (t) => {
      const answers = await ask(f, 30);
      const seen = count(answers);
      t.same(Object.keys(seen).sort(), ["ep-a", "ep-b"], `answers ${JSON.stringify(seen)}`);
      t.equal(answers.length, 30);
    });

    await t.test("no endpoints: connection refused at once", async (t) => {
      await f.configure({ ports: [{ name: "http", protocol: "TCP", port: 80, endpoints: [] }] });
      // Until the proxy has seen the file (a poll every 200 ms), then one timed attempt, in
      // hundredths of a second from /proc/uptime.
      const out = await f.client(`
        for i in $(seq 1 50); do wget -q -O- http://${f.proxyIp}/ 2>&1 | grep -q 'Connection refused' && break; sleep 0.1; done
        read a _ < /proc/uptime
        timeout 5 wget -q -O- http://${f.proxyIp}/ 2>&1
        read b _ < /proc/uptime
        echo "took $(echo "$a $b" | awk '{ printf "%d", ($2 - $1) * 1000 }') ms"`);
      t.match(out, /Connection refused/, out);
      const ms = Number(/took (\d+) ms/.exec(out)?.[1]);
      t.ok(ms < 500, `refused after ${ms} ms, well under 1 s`);
    });

    await t.test("endpoints back: answers again, the proxy not restarted", async (t) => {
      await f.configure({ ports: [{ name: "http", protocol: "TCP", port: 80, endpoints: f.endpoints }] });
      await f.client(
        `for i in $(seq 1 50); do wget -q -O- http://${f.proxyIp}/ >/dev/null 2>&1 && exit 0; sleep 0.1; done`,
      );
      const seen = count(await ask(f, 30));
      t.same(Object.keys(seen).sort(), ["ep-a", "ep-b"], `answers ${JSON.stringify(seen)}`);
      t.equal((await startedAt()).stdout, started, "the same start");
    });

    await t.test("ClientIP affinity: one endpoint for the client", async (t) => {
      await f.configure({
        sessionAffinity: "ClientIP",
        ports: [{ name: "http", protocol: "TCP", port: 80, endpoints: f.endpoints }],
      });
      // Wait for the reload: the proxy logs it.
      for (let i = 0; i < 50; i++) {
        const logs = await runCommand(runtime, ["logs", f.proxyName]);
        if (logs.stderr.includes("ClientIP affinity")) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const seen = count(await ask(f, 20));
      t.equal(Object.keys(seen).length, 1, `answers ${JSON.stringify(seen)}`);
      t.equal(Object.values(seen)[0], 20);
    });

    await t.test("UDP: datagrams and replies relayed, per client to one endpoint", async (t) => {
      const a = await dnsEndpoint(t, f.gateway, "203.0.113.1");
      const b = await dnsEndpoint(t, f.gateway, "203.0.113.2");
      await f.configure({
        ports: [
          { name: "http", protocol: "TCP", port: 80, endpoints: f.endpoints },
          {
            name: "dns",
            protocol: "UDP",
            port: 53,
            endpoints: [
              { ip: f.gateway, port: a.port, pod: "dns-a" },
              { ip: f.gateway, port: b.port, pod: "dns-b" },
            ],
          },
        ],
      });
      // Each nslookup is a new client port, so a new session and a new random pick.
      const out = await f.client(`
        for i in $(seq 1 50); do nslookup svc.test ${f.proxyIp} >/dev/null 2>&1 && break; sleep 0.1; done
        for i in $(seq 1 16); do nslookup svc.test ${f.proxyIp} 2>&1 | sed -n '/^Name:/,$p' | grep '^Address'; done`);
      const answers = out
        .split("\n")
        .map((line) => /(\d+\.\d+\.\d+\.\d+)/.exec(line)?.[1])
        .filter(Boolean);
      t.ok(answers.length >= 16, `${answers.length} answers:\n${out}`);
      t.same([...new Set(answers)].sort(), ["203.0.113.1", "203.0.113.2"], "both endpoints answered");
      t.same([...a.peers, ...b.peers], [f.proxyIp, f.proxyIp], "the endpoints saw the proxy's address");
      const logs = await runCommand(runtime, ["logs", f.proxyName]);
      t.match(logs.stderr, /UDP 53: listening on 0\.0\.0\.0:53 \(2 endpoints\)/);
      t.match(logs.stderr, /TCP 80: closed \(no endpoints\)/);
    });
  });
}
