// What a connection through a Service's proxy (images/service-proxy) costs against a direct
// connection to the endpoint's IP, from the host, on docker (its bridge IPs are reachable from
// the host). One endpoint container (bench/http-endpoint, a Go HTTP server answering "ok\n"),
// one proxy container relaying port 80 to it; short GETs, each on a new connection or all on
// kept-alive ones, from 1 and from N concurrent clients. Prints requests per second, the
// latency's p50 and p99, and the endpoint's and the proxy's CPU time per request; asserts nothing. Needs scripts/test-env.sh's images (busybox and the
// proxy) and Go.
// Usage: npx tsx bench/service-proxy.ts [seconds per run] [concurrency]
//        BENCH_PROXY_IMAGE=IMAGE npx tsx bench/service-proxy.ts   (another build of the proxy)
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "../lib/runtime/exec.js";
import {
  renderProxyConfig,
  SERVICE_PROXY_CONFIG_DIR,
  SERVICE_PROXY_CONFIG_FILE,
  SERVICE_PROXY_IMAGE,
} from "../lib/services/proxy-config.js";
import { loadTestEnv } from "../test/harness/env.js";

const SECONDS = Number(process.argv[2] ?? 5);
const CONCURRENCY = Number(process.argv[3] ?? 8);
const REQUEST = "GET / HTTP/1.1\r\nHost: bench\r\n\r\n";
const CLOSE_REQUEST = "GET / HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n";

const env = loadTestEnv();
// BENCH_PROXY_IMAGE: another build of the proxy to compare (images/service-proxy/build.sh docker IMAGE).
const image = process.env["BENCH_PROXY_IMAGE"] ?? env?.images.serviceProxy ?? SERVICE_PROXY_IMAGE;
if (!env) throw new Error("no env.json: run scripts/test-env.sh");
const id = `podrun-proxy-bench-${randomBytes(3).toString("hex")}`;
const dir = await mkdtemp(join(tmpdir(), "podrun-proxy-bench-"));
const docker = (args: string[]) => runCommand("docker", args).then((r) => r.stdout.trim());
const ipOf = (name: string) =>
  docker(["inspect", "-f", `{{(index .NetworkSettings.Networks "${id}").IPAddress}}`, name]);

async function cleanup() {
  await runCommand("docker", ["rm", "-f", `${id}-endpoint`, `${id}-proxy`], { reject: false });
  await runCommand("docker", ["network", "rm", id], { reject: false });
  await rm(dir, { recursive: true, force: true });
}
process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));

try {
  const source = fileURLToPath(new URL("http-endpoint/main.go", import.meta.url));
  await runCommand("go", ["build", "-trimpath", "-o", join(dir, "endpoint"), source], {
    env: { CGO_ENABLED: "0", GOPROXY: "off" },
  });
  await docker(["network", "create", "--label", `io.podrun.bench=${id}`, id]);
  const run = (name: string, mount: string, ...rest: string[]) =>
    docker(["run", "-d", "--name", `${id}-${name}`, "--network", id, "-v", mount, ...rest]);
  await run("endpoint", `${dir}/endpoint:/endpoint:ro`, env.images.busybox, "/endpoint");
  const endpoint = await ipOf(`${id}-endpoint`);
  const config = join(dir, "config");
  await mkdir(config);
  await writeFile(
    join(config, SERVICE_PROXY_CONFIG_FILE),
    renderProxyConfig({
      service: "bench/api",
      ports: [{ name: "http", protocol: "TCP", port: 80, endpoints: [{ ip: endpoint, port: 8080, pod: "endpoint" }] }],
    }),
  );
  await run("proxy", `${config}:${SERVICE_PROXY_CONFIG_DIR}:ro`, image);
  const proxy = await ipOf(`${id}-proxy`);
  await waitForAnswer(proxy, 80);

  const load = (await runCommand("cat", ["/proc/loadavg"])).stdout.split(" ").slice(0, 3).join(" ");
  console.log(`${SECONDS} s a run; host load average ${load}; endpoint ${endpoint}:8080, proxy ${proxy}:80`);
  const proxyId = await docker(["inspect", "-f", "{{.Id}}", `${id}-proxy`]);
  const endpointId = await docker(["inspect", "-f", "{{.Id}}", `${id}-endpoint`]);
  console.log("| connection | clients | target | req/s | p50 µs | p99 µs | endpoint CPU µs/req | proxy CPU µs/req |");
  console.log("|---|---:|---|---:|---:|---:|---:|---:|");
  for (const keepAlive of [false, true]) {
    for (const clients of [1, CONCURRENCY]) {
      for (const [target, host, port] of [
        ["direct", endpoint, 8080],
        ["proxy", proxy, 80],
      ] as const) {
        await measure(host, port, keepAlive, clients, 0.5); // warm-up
        const [endpointBefore, proxyBefore] = [await cpuNanoseconds(endpointId), await cpuNanoseconds(proxyId)];
        const r = await measure(host, port, keepAlive, clients, SECONDS);
        const [endpointAfter, proxyAfter] = [await cpuNanoseconds(endpointId), await cpuNanoseconds(proxyId)];
        const perRequest = (before?: number, after?: number) =>
          before === undefined || after === undefined ? "n/a" : ((after - before) / 1000 / r.requests).toFixed(1);
        const mode = keepAlive ? "keep-alive" : "new per request";
        const endpointCpu = perRequest(endpointBefore, endpointAfter);
        const proxyCpu = target === "proxy" ? perRequest(proxyBefore, proxyAfter) : "";
        console.log(
          `| ${mode} | ${clients} | ${target} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${endpointCpu} | ${proxyCpu} |`,
        );
      }
    }
  }
  const stats = await docker(["stats", "--no-stream", "--format", "{{.MemUsage}}", `${id}-proxy`]);
  const size = await docker(["image", "inspect", "-f", "{{.Size}}", image]);
  console.log(`proxy memory after the runs: ${stats}; image ${(Number(size) / 1024 / 1024).toFixed(2)} MiB`);
} finally {
  await cleanup();
}

interface Result {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
}

// `clients` loops, each sending one request after the other for `seconds`; latency per request in µs.
async function measure(
  host: string,
  port: number,
  keepAlive: boolean,
  clients: number,
  seconds: number,
): Promise<Result> {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      let socket: Socket | undefined;
      while (performance.now() < deadline) {
        const t0 = performance.now();
        if (keepAlive) {
          socket ??= await open(host, port);
          await exchange(socket, REQUEST);
        } else {
          const s = await open(host, port);
          await exchange(s, CLOSE_REQUEST);
          s.destroy();
        }
        latencies.push((performance.now() - t0) * 1000);
      }
      socket?.destroy();
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!);
  return { requests: latencies.length, rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99) };
}

function open(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true }, () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

// Writes one request and resolves when its whole response (headers and Content-Length bytes) is in.
function exchange(socket: Socket, request: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString("latin1");
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
      if (buffer.length >= end + 4 + length) {
        socket.off("data", onData);
        socket.off("error", reject);
        resolve();
      }
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.write(request);
  });
}

async function waitForAnswer(host: string, port: number) {
  for (let i = 0; i < 50; i++) {
    try {
      const socket = await open(host, port);
      await exchange(socket, CLOSE_REQUEST);
      socket.destroy();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`no answer from ${host}:${port}`);
}

// The CPU time a container has used, from its cgroup (v1 cpuacct, or v2 cpu.stat): the
// figure that the machine's load hardly moves, unlike latencies. Undefined where neither is found.
async function cpuNanoseconds(containerId: string): Promise<number | undefined> {
  try {
    return Number(await readFile(`/sys/fs/cgroup/cpuacct/docker/${containerId}/cpuacct.usage`, "utf8"));
  } catch {
    try {
      const stat = await readFile(`/sys/fs/cgroup/system.slice/docker-${containerId}.scope/cpu.stat`, "utf8");
      return Number(/usage_usec (\d+)/.exec(stat)?.[1]) * 1000;
    } catch {
      return undefined;
    }
  }
}
