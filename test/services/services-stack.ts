import { createHash } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Service } from "kubernetes-types/core/v1.js";
import type { Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli, type CliResult } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, missing, requireImage, requirePodEngine } from "../harness/engine.js";
import { uniqueName } from "../harness/engine-pod.js";
import { loadTestEnv } from "../harness/env.js";

// Services and cluster DNS end to end, checked from inside the pods (servicesTest, run on docker by
// services.docker.e2e.test.ts and on podman by services.podman.e2e.test.ts): an API
// Deployment of two behind a ClusterIP Service (80 → the container port named http, 8080), a
// NodePort and a LoadBalancer one, a StatefulSet behind its headless Service, a Service of the same
// name in a second namespace, an ExternalName Service, a bare Pod's `<hostname>.<subdomain>`, a UDP
// Service, and a client that is Ready only once the names answer. Then a template change of the
// API (its pods replaced, the Services and the client kept; a selector change configured in place;
// `up` returning only once the proxies relay to the new pods), a scale to 0 (refused at once),
// `down` (nothing left), and a node port this machine already uses (one error, nothing left). One
// directory per engine, brought up once: each `up` of a stack this size costs more than the checks.
// Name lookups get 20 s: podman's aardvark-dns asks the host's resolvers for what it does not hold
// (a name's AAAA record), which on a machine without a network answer only at their timeout, and
// a client's resolver waits 5 s twice (resolv.conf's defaults) for that answer: 10 s was met once.

const SERVE = (port: number) =>
  `["sh", "-c", "mkdir -p /www && hostname > /www/index.html && exec httpd -f -p ${port} -h /www"]`;

interface AppOptions {
  replicas?: number;
  version?: string;
  /** The LoadBalancer's port, on 127.0.0.1. */
  lbPort: number;
  /** The UDP responder's image (images/test-udp-responder). */
  responder: string;
}

function app(ns: string, other: string, options: AppOptions): string {
  const api = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: ${ns}}
spec:
  replicas: ${options.replicas ?? 2}
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: web
          image: ${BUSYBOX}
          command: ${SERVE(8080)}
          env: [{name: VERSION, value: "${options.version ?? "1"}"}]
          ports: [{name: http, containerPort: 8080}]
`;
  const services = `apiVersion: v1
kind: Service
metadata: {name: api, namespace: ${ns}}
spec:
  selector: {app: api}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: ${ns}}
spec:
  type: NodePort
  selector: {app: api}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: ${ns}}
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{port: 5432}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: ${ns}}
spec:
  serviceName: db
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{name: db, image: ${BUSYBOX}, command: ${SERVE(5432)}}]
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: ${other}}
spec:
  selector: {app: other}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: ${other}, labels: {app: other}}
spec:
  terminationGracePeriodSeconds: 1
  containers: [{name: web, image: ${BUSYBOX}, command: ${SERVE(8080)}}]
`;
  // Ready only once the names answer: the Service by its short and its full name, the StatefulSet's pod by `<pod>.<service>`.
  const client = `apiVersion: apps/v1
kind: Deployment
metadata: {name: client, namespace: ${ns}}
spec:
  replicas: 1
  selector: {matchLabels: {app: client}}
  template:
    metadata: {labels: {app: client}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: client
          image: ${BUSYBOX}
          command: ["sh", "-c", "trap 'exit 0' TERM; sleep 600 & wait"]
          readinessProbe:
            exec:
              command: ["sh", "-c", "timeout 10 wget -qO- http://api/ && timeout 10 wget -qO- http://api.${ns}.svc.cluster.local:80/ && timeout 10 wget -qO- http://db-0.db:5432/"]
            periodSeconds: 1
            timeoutSeconds: 30
`;
  return [api, services, extras(ns, options), client].join("---\n");
}

/**
 * A LoadBalancer on the API; an ExternalName Service whose target is the API Service's full name
 * (so it resolves offline); `sel`, whose selector moves from the API to the bare Pod `named` at
 * version 2 (configured in place); `named` as `h1.sub` through the headless Service `sub`; and a UDP
 * Service, 53 → the container port named dns (5353). busybox has no UDP server and its only UDP
 * client is `nslookup NAME SERVER`, so the pod behind it runs images/test-udp-responder, a DNS
 * responder that answers every A question with its pod's IP.
 */
function extras(ns: string, options: AppOptions): string {
  return `apiVersion: v1
kind: Service
metadata: {name: lb, namespace: ${ns}}
spec:
  type: LoadBalancer
  selector: {app: api}
  ports: [{port: ${options.lbPort}, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: ext, namespace: ${ns}}
spec:
  type: ExternalName
  externalName: api.${ns}.svc.cluster.local
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: sel, namespace: ${ns}}
spec:
  selector: {app: ${(options.version ?? "1") === "1" ? "api" : "named"}}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: sub, namespace: ${ns}}
spec:
  clusterIP: None
  selector: {app: named}
  ports: [{port: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: named, namespace: ${ns}, labels: {app: named}}
spec:
  hostname: h1
  subdomain: sub
  terminationGracePeriodSeconds: 1
  containers: [{name: web, image: ${BUSYBOX}, command: ${SERVE(8080)}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: dns, namespace: ${ns}}
spec:
  replicas: 1
  selector: {matchLabels: {app: dns}}
  template:
    metadata: {labels: {app: dns}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: dns
          image: ${options.responder}
          args: ["-port", "5353"]
          ports: [{name: dns, containerPort: 5353, protocol: UDP}]
---
apiVersion: v1
kind: Service
metadata: {name: udp, namespace: ${ns}}
spec:
  selector: {app: dns}
  ports: [{name: dns, protocol: UDP, port: 53, targetPort: dns}]
`;
}

async function setup(t: Test, runtime: RuntimeName) {
  if (!(await requirePodEngine(t, runtime))) return undefined;
  const ns = uniqueName("svc");
  const other = uniqueName("svc-other");
  const dir = await mkdtemp(join(tmpdir(), "podrun-services-"));
  const stateDir = join(dir, "state");
  const file = join(dir, "app.yaml");
  const env = { PODRUN_STATE_DIR: stateDir };
  t.teardown(async () => {
    await runCli(["down", "--runtime", runtime, file], { env });
    for (const namespace of [ns, other])
      await removeManagedContainers(runtime, { "io.kubernetes.pod.namespace": namespace });
    for (const namespace of [ns, other])
      await removeManagedContainers(runtime, { "io.podrun.service.namespace": namespace });
    await rm(dir, { recursive: true, force: true });
  });
  const up = async (yaml: string, extra: string[] = []): Promise<CliResult> => {
    await writeFile(file, yaml);
    return runCli(["up", "--runtime", runtime, file, ...extra], { env, timeoutMs: 180_000 });
  };
  const podsOf = async (namespace: string, prefix: string) =>
    (
      await runCommand(runtime, [
        "ps",
        "--filter",
        `label=io.kubernetes.pod.namespace=${namespace}`,
        "--filter",
        "label=io.kubernetes.container.name=POD",
        "--format",
        "{{.Names}}",
      ])
    ).stdout
      .split("\n")
      .filter((n) => n.startsWith(`${namespace}_${prefix}`))
      .map((n) => n.slice(namespace.length + 1, -"_POD".length));
  const containerOf = async (namespace: string, prefix: string, container: string) =>
    `${namespace}_${(await podsOf(namespace, prefix))[0]}_${container}`;
  const sh = async (container: string, script: string) =>
    runCommand(runtime, ["exec", container, "sh", "-c", script], { reject: false });
  return { ns, other, file, env, up, podsOf, containerOf, sh };
}

/**
 * `ps svc` as kubectl get svc (the proxied Services from the engine, the headless one from its
 * record), its --json, `events svc/NAME`, a name not found, and `down svc/<headless>`. Returns
 * `ps svc -o wide`'s table.
 */
async function checkListing(
  t: Test,
  runtime: RuntimeName,
  s: { ns: string; env: Record<string, string>; nodePort: number; upOutput: string },
): Promise<string> {
  const cli = (args: string[], engine = ["--runtime", runtime]) =>
    runCli([...args, ...engine, "-n", s.ns], { env: s.env });
  const ipOf = (name: string) => new RegExp(`service/${name} created \\(\\w+ ([\\d.]+)`).exec(s.upOutput)?.[1] ?? "?";
  const wide = await cli(["ps", "svc", "-o", "wide"]);
  t.equal(wide.exitCode, 0, wide.stderr);
  const rows = (names: string[]) =>
    wide.stdout
      .trimEnd()
      .split("\n")
      .filter((line) => names.some((name) => line.startsWith(`${name} `)));
  const ep = String.raw`\d+\.\d+\.\d+\.\d+`;
  const ip = (name: string) => ipOf(name).replaceAll(".", "\\.");
  t.match(
    rows(["NAME", "api", "db", "web"]),
    [
      /^NAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\(S\) +AGE +SELECTOR +ENDPOINTS$/,
      new RegExp(`^api +ClusterIP +${ip("api")} +<none> +80/TCP +\\S+ +app=api +${ep}:8080,${ep}:8080$`),
      new RegExp(`^db +ClusterIP +None +<none> +5432/TCP +\\S+ +app=db +${ep}:5432$`),
      new RegExp(`^web +NodePort +${ip("web")} +<none> +80:${s.nodePort}/TCP +\\S+ +app=api +${ep}:8080,${ep}:8080$`),
    ],
    "ps svc -o wide",
  );
  t.match(
    rows(["ext", "udp"]),
    [
      new RegExp(`^ext +ExternalName +<none> +api\\.${s.ns}\\.svc\\.cluster\\.local +80/TCP +\\S+ +<none>`),
      new RegExp(`^udp +ClusterIP +${ip("udp")} +<none> +53/UDP +\\S+ +app=dns +${ep}:5353$`),
    ],
    "an ExternalName's name as its EXTERNAL-IP; a UDP Service",
  );
  const json = await cli(["ps", "svc/web", "service/db", "-o", "json"]);
  const items = (JSON.parse(json.stdout) as { items: Service[] }).items;
  t.same(
    items.map((i) => [i.kind, i.metadata?.name, i.spec?.clusterIP, i.spec?.ports?.[0]?.nodePort]),
    [
      ["Service", "db", "None", undefined],
      ["Service", "web", ipOf("web"), s.nodePort],
    ],
    "--json: spec.clusterIP, spec.ports[].nodePort",
  );
  const events = await cli(["events", "svc/api"], []);
  t.match(
    events.stdout,
    /Normal +(Pulling|Pulled) +service\/api +.*service-proxy/,
    "the proxy image's events are the Service's",
  );
  const missing = await cli(["ps", "svc", "db", "nope"]);
  t.equal(missing.exitCode, 1, "a name not found: exit 1");
  t.match(missing.stdout, /\ndb +ClusterIP +None/, "the others still listed");
  t.equal(missing.stderr, 'Error from server (NotFound): services "nope" not found\n');
  const down = await cli(["down", "svc/db"]);
  t.match(down.stdout, "service/db deleted", "a headless Service is found by its record");
  t.notMatch((await cli(["ps", "svc"])).stdout, /\ndb /, "and is gone");
  return wide.stdout;
}

/** The distinct answers of `count` requests. */
async function answers(ask: () => Promise<string>, count: number): Promise<string[]> {
  const seen = new Set<string>();
  // A request that failed (its lookup timed out on a loaded machine: get() says so) answers nothing.
  for (let i = 0; i < count; i++) seen.add((await ask()).trim());
  seen.delete("");
  return [...seen].sort();
}

/**
 * The distinct answers (the pods' hostnames) of `count` requests from inside `container`, each its
 * own wget (its own lookup and connection), all in one exec: an exec costs the engine more than the
 * request does (podman: a process of its own, conmon, runc).
 */
async function answersFrom(
  sh: (container: string, script: string) => Promise<{ stdout: string; stderr: string }>,
  container: string,
  url: string,
  count: number,
  comment: (line: string) => void,
): Promise<string[]> {
  const r = await sh(
    container,
    `for i in $(seq ${count}); do timeout 20 wget -qO- ${url} || echo "$i: exit $?" >&2; done`,
  );
  if (r.stderr) comment(`${url}: ${r.stderr}`);
  // A request that failed (its lookup timed out on a loaded machine: stderr says so) answers nothing.
  return [...new Set(r.stdout.split("\n").filter(Boolean))].sort();
}

/**
 * The whole case on one engine; services.docker.e2e.test.ts and services.podman.e2e.test.ts each run
 * it on theirs, so that tap runs the two engines' halves in two of its slots (each case has its own
 * namespaces, state directory and a random LoadBalancer port).
 */
export async function servicesTest(t: Test, runtime: RuntimeName): Promise<void> {
  const responder = loadTestEnv()?.images.udpResponder;
  if (!responder) return void missing(t, "images.udpResponder in env.json");
  const s = await setup(t, runtime);
  if (!s || !(await requireImage(t, runtime, responder))) return;
  const { ns, other } = s;
  const lbPort = 20000 + Math.floor(Math.random() * 9000);
  const options = { lbPort, responder };

  const first = await s.up(app(ns, other, options), ["--wait", "--timeout", "90s"]);
  t.equal(first.exitCode, 0, `up --wait: ${first.stderr}`);
  t.match(first.stdout, /service\/api created \(ClusterIP \d+\.\d+\.\d+\.\d+, 80\/TCP\)/);
  t.match(first.stdout, /service\/db created \(headless/);
  t.match(first.stdout, `service/ext created (ExternalName → api.${ns}.svc.cluster.local, 80/TCP)`);
  t.match(first.stdout, /service\/udp created \(ClusterIP [\d.]+, 53\/UDP\)/);
  t.notMatch(first.stderr, /ProxyNotSynced/, "every proxy applied its config in time");
  const nodePort = Number(
    /service\/web created \(NodePort [\d.]+, 80:(\d+)\/TCP on 127\.0\.0\.1\)/.exec(first.stdout)?.[1],
  );
  t.ok(nodePort >= 30000 && nodePort <= 32767, `a node port was taken from 30000-32767: ${nodePort}`);
  const listed = await checkListing(t, runtime, { ns, env: s.env, nodePort, upOutput: first.stdout });

  const client = await s.containerOf(ns, "client", "client");
  const get = async (url: string) => {
    const r = await s.sh(client, `timeout 20 wget -qO- ${url}`);
    if (r.exitCode !== 0) t.comment(`${url}: exit ${r.exitCode}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const apiPods = (await s.podsOf(ns, "api-")).sort();
  t.equal(apiPods.length, 2, "two API pods");
  t.same(
    await answersFrom(s.sh, client, "http://api/", 12, (line) => t.comment(line)),
    apiPods,
    "http://api/ reaches both replicas (80 → the port named http)",
  );
  t.ok(apiPods.includes(await get(`http://api.${ns}.svc:80/`)), "api.<ns>.svc answers too");
  t.equal(await get("http://db-0.db:5432/"), "db-0", "db-0.db is the StatefulSet's pod");
  t.equal(await get(`http://db-0.db.${ns}.svc.cluster.local:5432/`), "db-0", "and so is its full name");
  t.equal(await get("http://db:5432/"), "db-0", "the headless name answers with its pod");
  t.equal(await get(`http://api.${other}/`), "other", "api.<other namespace> is the other namespace's api");
  const otherPod = `${other}_other_web`;
  t.equal(
    (await s.sh(otherPod, "timeout 20 wget -qO- http://api/")).stdout.trim(),
    "other",
    "there, api is its own namespace's",
  );
  t.ok(apiPods.includes(await get("http://ext/")), "http://ext/ reaches the API through its external name");
  t.ok(apiPods.includes(await get(`http://ext.${ns}.svc.cluster.local:80/`)), "so does its full name");
  t.equal(await get("http://h1.sub:8080/"), "h1", "<hostname>.<subdomain> is the bare Pod");
  t.ok(apiPods.includes(await get("http://sel/")), "sel selects the API");

  const env = (await s.sh(client, "env")).stdout;
  const host = /^API_SERVICE_HOST=(.+)$/m.exec(env)?.[1];
  t.match(host, /^\d+\.\d+\.\d+\.\d+$/, "API_SERVICE_HOST");
  t.match(env, /^API_SERVICE_PORT=80$/m, "API_SERVICE_PORT");
  t.match(env, new RegExp(`^API_PORT_80_TCP=tcp://${host?.replaceAll(".", "\\.")}:80$`, "m"), "the docker-links form");
  t.match(env, /^WEB_SERVICE_PORT=80$/m, "every Service of the namespace");
  t.notMatch(env, /^DB_SERVICE_HOST=/m, "not the headless one");
  t.notMatch(env, /^EXT_/m, "none for the ExternalName Service, as the kubelet gives none");
  t.notMatch(env, /^KUBERNETES_SERVICE_HOST=/m, "no API server");

  // The UDP Service by its name (the engine's DNS gives the proxy's address), its port 53 relayed
  // to the responder's 5353: the answer is the endpoint's IP, which only the responder pod gives
  // (both from `ps svc -o wide` above).
  const [, udpIP, endpoint] =
    /^udp +ClusterIP +([\d.]+) +<none> +53\/UDP +\S+ +app=dns +([\d.]+):5353$/m.exec(listed) ?? [];
  const lookup = await s.sh(client, "timeout 10 nslookup -type=a anything.example udp");
  const escaped = (ip = "?") => ip.replaceAll(".", "\\.");
  t.match(
    lookup.stdout,
    new RegExp(
      `Server:\\s+udp\\nAddress:\\s+${escaped(udpIP)}:53\\n\\nName:\\s+anything\\.example\\nAddress: ${escaped(endpoint)}\\n`,
    ),
    `nslookup by the Service's name: asked its cluster IP on 53, answered by the pod: ${lookup.stdout}${lookup.stderr}`,
  );

  // From this machine: the NodePort, and the LoadBalancer on its port and its node port.
  const fromHost = async (port: number) =>
    (await runCommand("curl", ["-s", "--max-time", "3", `http://127.0.0.1:${port}/`], { reject: false })).stdout;
  t.same(await answers(() => fromHost(nodePort), 12), apiPods, "the NodePort reaches both replicas from this machine");
  const lbNodePort = Number(
    new RegExp(`service/lb created \\(LoadBalancer [\\d.]+, ${lbPort}:(\\d+)/TCP on 127\\.0\\.0\\.1`).exec(
      first.stdout,
    )?.[1],
  );
  for (const published of [lbPort, lbNodePort])
    t.ok(
      apiPods.includes((await fromHost(published)).trim()),
      `the LoadBalancer's 127.0.0.1:${published} reaches the API`,
    );

  // A template change: the API's pods are replaced; the Services and the client are kept. sel's
  // selector changed: configured in place, its address kept, its endpoints the new selector's.
  // Right after `up` returns, the Service reaches the new pods (up waits for its proxies), asked
  // by address: a slow lookup must not hide what the proxy does.
  const clientId = (await runCommand(runtime, ["inspect", "--format", "{{.Id}}", client])).stdout.trim();
  const ipOf = (name: string) => new RegExp(`service/${name} created \\(ClusterIP ([\\d.]+),`).exec(first.stdout)?.[1];
  const changed = await s.up(app(ns, other, { ...options, version: "2" }), ["--wait", "--timeout", "90s"]);
  const firstAnswer = await get(`http://${ipOf("api")}/`);
  t.equal(changed.exitCode, 0, changed.stderr);
  t.notMatch(changed.stderr, /ProxyNotSynced/);
  t.match(changed.stdout, /service\/api unchanged \(ClusterIP /, "the Service is kept");
  t.match(
    changed.stdout,
    `service/sel configured (ClusterIP ${ipOf("sel")}, 80/TCP)`,
    "sel configured, same cluster IP",
  );
  const newPods = (await s.podsOf(ns, "api-")).sort();
  t.equal(newPods.filter((p) => apiPods.includes(p)).length, 0, "the API's pods were replaced");
  t.ok(newPods.includes(firstAnswer), `the first request after up reaches a new pod: ${firstAnswer}`);
  t.same(
    await answersFrom(s.sh, client, "http://api/", 12, (line) => t.comment(line)),
    newPods,
    "the Service answers from the new pods",
  );
  t.equal(await get(`http://${ipOf("sel")}/`), "h1", "sel reaches what its new selector selects");
  const clientAfter = (await runCommand(runtime, ["inspect", "--format", "{{.Id}}", client])).stdout.trim();
  t.equal(clientAfter, clientId, "the client was not restarted");
  t.match((await s.sh(client, "env")).stdout, `API_SERVICE_HOST=${host}\n`, "its Service address is the same");
  const services = join(s.env.PODRUN_STATE_DIR, "services", runtime);
  for (const name of ["api", "ext", "sel", "udp", "web", "lb"]) {
    const dir = join(services, `${ns}_${name}`);
    const config = await readFile(join(dir, "proxy", "service.json"));
    const applied = (await readFile(join(dir, "status", "applied"), "utf8")).trim();
    t.equal(
      applied,
      createHash("sha256").update(config).digest("hex"),
      `${name}'s proxy applied the config written last`,
    );
  }

  // Scaled to 0: the Service refuses at once.
  const none = await s.up(app(ns, other, { ...options, replicas: 0, version: "2" }));
  t.equal(none.exitCode, 0, none.stderr);
  // By its address (API_SERVICE_HOST): what is asked is the refusal, not a name lookup. "At once"
  // is timed inside the pod: a connection left hanging is cut by the 2 s timeout (exit 143, no
  // "refused"), and the exec's own start, slow on a busy machine, is not counted.
  const refused = await s.sh(client, 'timeout 2 wget -qO- "http://$API_SERVICE_HOST/" 2>&1; echo exit=$?');
  t.match(refused.stdout, /refused[\s\S]*exit=1\b/i, `connection refused within 2 s: ${refused.stdout.trim()}`);

  const down = await runCli(["down", "--runtime", runtime, s.file], { env: s.env });
  t.equal(down.exitCode, 0, down.stderr);
  t.match(down.stdout, "service/api deleted");
  for (const namespace of [ns, other]) {
    const left = await runCommand(runtime, [
      "ps",
      "-a",
      "-q",
      "--filter",
      `label=io.kubernetes.pod.namespace=${namespace}`,
    ]);
    t.equal(left.stdout.trim(), "", `no pod container of ${namespace} is left`);
    const proxies = await runCommand(runtime, [
      "ps",
      "-a",
      "-q",
      "--filter",
      `label=io.podrun.service.namespace=${namespace}`,
    ]);
    t.equal(proxies.stdout.trim(), "", `no Service proxy of ${namespace} is left`);
  }

  // A node port this machine already uses: the Service's proxy cannot publish it.
  const holder = createServer().listen(0, "127.0.0.1");
  await once(holder, "listening");
  t.teardown(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const held = (holder.address() as AddressInfo).port;
  const failed = await s.up(`apiVersion: v1
kind: Service
metadata: {name: taken, namespace: ${ns}}
spec:
  type: LoadBalancer
  selector: {app: none}
  ports: [{port: ${held}, targetPort: 8080}]
`);
  t.equal(failed.exitCode, 1, "exit 1");
  t.match(failed.stderr, /service\/taken: a port it publishes on this machine is taken/, failed.stderr);
  const half = await runCommand(runtime, ["ps", "-a", "-q", "--filter", `name=${ns}_taken_SVC`]);
  t.equal(half.stdout.trim(), "", "no proxy left half-made");
}
