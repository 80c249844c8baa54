import { createHash } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Service } from "kubernetes-types/core/v1.js";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli, type CliResult } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, missing, requireImage, requirePodEngine } from "../harness/engine.js";
import { uniqueName } from "../harness/engine-pod.js";
import { loadTestEnv } from "../harness/env.js";

// Services and cluster DNS end to end, on docker and podman, checked from inside the pods: an API
// Deployment of two behind a ClusterIP Service (80 → the container port named http, 8080) and a
// NodePort one, a StatefulSet behind its headless Service, a Service of the same name in a second
// namespace, and a client that is Ready only once the names answer. Then a template change of the
// API (its pods replaced, the Service and the client kept), a scale to 0 (refused at once), and
// `down` (nothing left). One directory per engine, brought up once. Name lookups get 10 s: podman's
// aardvark-dns asks the host's resolvers for what it does not hold (a name's AAAA record), which
// on a machine without a network answer only at their timeout.

const SERVE = (port: number) =>
  `["sh", "-c", "mkdir -p /www && hostname > /www/index.html && exec httpd -f -p ${port} -h /www"]`;

function app(ns: string, other: string, options: { replicas?: number; version?: string } = {}): string {
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
  return [api, services, client].join("---\n");
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
 * record), its --json, `events svc/NAME`, a name not found, and `down svc/<headless>`.
 */
async function checkListing(
  t: Test,
  runtime: RuntimeName,
  s: { ns: string; env: Record<string, string>; nodePort: number; upOutput: string },
) {
  const cli = (args: string[], engine = ["--runtime", runtime]) =>
    runCli([...args, ...engine, "-n", s.ns], { env: s.env });
  const ipOf = (name: string) => new RegExp(`service/${name} created \\(\\w+ ([\\d.]+)`).exec(s.upOutput)?.[1] ?? "?";
  const wide = await cli(["ps", "svc", "-o", "wide"]);
  t.equal(wide.exitCode, 0, wide.stderr);
  const ep = String.raw`\d+\.\d+\.\d+\.\d+`;
  const ip = (name: string) => ipOf(name).replaceAll(".", "\\.");
  t.match(
    wide.stdout.trimEnd().split("\n"),
    [
      /^NAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\(S\) +AGE +SELECTOR +ENDPOINTS$/,
      new RegExp(`^api +ClusterIP +${ip("api")} +<none> +80/TCP +\\S+ +app=api +${ep}:8080,${ep}:8080$`),
      new RegExp(`^db +ClusterIP +None +<none> +5432/TCP +\\S+ +app=db +${ep}:5432$`),
      new RegExp(`^web +NodePort +${ip("web")} +<none> +80:${s.nodePort}/TCP +\\S+ +app=api +${ep}:8080,${ep}:8080$`),
    ],
    "ps svc -o wide",
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
}

/** The distinct answers of `count` requests. */
async function answers(ask: () => Promise<string>, count: number): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) seen.add((await ask()).trim());
  return [...seen].sort();
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: Services by name, port mapping, NodePort, headless, namespaces, env, follow the pods`,
    async (t) => {
      t.setTimeout(400_000);
      const s = await setup(t, runtime);
      if (!s) return;
      const { ns, other } = s;

      const first = await s.up(app(ns, other), ["--wait", "--timeout", "60s"]);
      t.equal(first.exitCode, 0, `up --wait: ${first.stderr}`);
      t.match(first.stdout, /service\/api created \(ClusterIP \d+\.\d+\.\d+\.\d+, 80\/TCP\)/);
      t.match(first.stdout, /service\/db created \(headless/);
      const nodePort = Number(
        /service\/web created \(NodePort [\d.]+, 80:(\d+)\/TCP on 127\.0\.0\.1\)/.exec(first.stdout)?.[1],
      );
      t.ok(nodePort >= 30000 && nodePort <= 32767, `a node port was taken from 30000-32767: ${nodePort}`);
      await checkListing(t, runtime, { ns, env: s.env, nodePort, upOutput: first.stdout });

      const client = await s.containerOf(ns, "client", "client");
      const apiPods = (await s.podsOf(ns, "api-")).sort();
      t.equal(apiPods.length, 2, "two API pods");
      t.same(
        await answers(async () => (await s.sh(client, "timeout 10 wget -qO- http://api/")).stdout, 12),
        apiPods,
        "http://api/ reaches both replicas (80 → the port named http)",
      );
      t.same(
        await answers(async () => (await s.sh(client, `timeout 10 wget -qO- http://api.${ns}.svc:80/`)).stdout, 1).then(
          (a) => a.length,
        ),
        1,
        "api.<ns>.svc answers too",
      );
      t.equal(
        (await s.sh(client, "timeout 10 wget -qO- http://db-0.db:5432/")).stdout.trim(),
        "db-0",
        "db-0.db is the StatefulSet's pod",
      );
      t.equal(
        (await s.sh(client, `timeout 10 wget -qO- http://db-0.db.${ns}.svc.cluster.local:5432/`)).stdout.trim(),
        "db-0",
        "and so is its full name",
      );
      t.equal(
        (await s.sh(client, "timeout 10 wget -qO- http://db:5432/")).stdout.trim(),
        "db-0",
        "the headless name answers with its pod",
      );
      t.equal(
        (await s.sh(client, `timeout 10 wget -qO- http://api.${other}/`)).stdout.trim(),
        "other",
        "api.<other namespace> is the other namespace's api",
      );
      const otherPod = `${other}_other_web`;
      t.equal(
        (await s.sh(otherPod, "timeout 10 wget -qO- http://api/")).stdout.trim(),
        "other",
        "there, api is its own namespace's",
      );

      const env = (await s.sh(client, "env")).stdout;
      const host = /^API_SERVICE_HOST=(.+)$/m.exec(env)?.[1];
      t.match(host, /^\d+\.\d+\.\d+\.\d+$/, "API_SERVICE_HOST");
      t.match(env, /^API_SERVICE_PORT=80$/m, "API_SERVICE_PORT");
      t.match(
        env,
        new RegExp(`^API_PORT_80_TCP=tcp://${host?.replaceAll(".", "\\.")}:80$`, "m"),
        "the docker-links form",
      );
      t.match(env, /^WEB_SERVICE_PORT=80$/m, "every Service of the namespace");
      t.notMatch(env, /^DB_SERVICE_HOST=/m, "not the headless one");
      t.notMatch(env, /^KUBERNETES_SERVICE_HOST=/m, "no API server");

      const fromHost = async () => {
        const r = await runCommand("curl", ["-s", "--max-time", "3", `http://127.0.0.1:${nodePort}/`], {
          reject: false,
        });
        return r.stdout;
      };
      t.same(await answers(fromHost, 12), apiPods, "the NodePort reaches both replicas from this machine");

      // A template change: the API's pods are replaced; the Service and the client are kept.
      const clientId = (await runCommand(runtime, ["inspect", "--format", "{{.Id}}", client])).stdout.trim();
      const changed = await s.up(app(ns, other, { version: "2" }), ["--wait", "--timeout", "60s"]);
      t.equal(changed.exitCode, 0, changed.stderr);
      t.match(changed.stdout, /service\/api unchanged \(ClusterIP /, "the Service is kept");
      const newPods = (await s.podsOf(ns, "api-")).sort();
      t.equal(newPods.filter((p) => apiPods.includes(p)).length, 0, "the API's pods were replaced");
      t.same(
        await answers(async () => (await s.sh(client, "timeout 10 wget -qO- http://api/")).stdout, 12),
        newPods,
        "the Service answers from the new pods",
      );
      const clientAfter = (await runCommand(runtime, ["inspect", "--format", "{{.Id}}", client])).stdout.trim();
      t.equal(clientAfter, clientId, "the client was not restarted");
      t.match((await s.sh(client, "env")).stdout, `API_SERVICE_HOST=${host}\n`, "its Service address is the same");

      // Scaled to 0: the Service refuses at once.
      const none = await s.up(app(ns, other, { replicas: 0, version: "2" }));
      t.equal(none.exitCode, 0, none.stderr);
      const started = Date.now();
      // By its address (API_SERVICE_HOST): what is measured is the refusal, not a name lookup.
      const refused = await s.sh(client, 'timeout 5 wget -qO- "http://$API_SERVICE_HOST/" 2>&1; echo exit=$?');
      t.ok(Date.now() - started < 3000, `refused at once (${Date.now() - started} ms)`);
      t.match(refused.stdout, /refused/i, `connection refused: ${refused.stdout.trim()}`);

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
    },
  );
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: a LoadBalancer on its port and a node port, on 127.0.0.1; a node port taken is one error, nothing left`,
    async (t) => {
      const s = await setup(t, runtime);
      if (!s) return;
      const port = 20000 + Math.floor(Math.random() * 9000);
      const lb = `apiVersion: v1
kind: Service
metadata: {name: lb, namespace: ${s.ns}}
spec:
  type: LoadBalancer
  selector: {app: lb}
  ports: [{port: ${port}, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: lbweb, namespace: ${s.ns}, labels: {app: lb}}
spec:
  terminationGracePeriodSeconds: 1
  containers: [{name: web, image: ${BUSYBOX}, command: ${SERVE(8080)}}]
`;
      const up = await s.up(lb, ["--wait", "--timeout", "60s"]);
      t.equal(up.exitCode, 0, up.stderr);
      const nodePort = Number(
        new RegExp(`LoadBalancer [\\d.]+, ${port}:(\\d+)/TCP on 127\\.0\\.0\\.1`).exec(up.stdout)?.[1],
      );
      // The proxy takes the pod's endpoint within its 200 ms poll of the config `up` wrote last
      // (docs/services.md): asked again for up to 3 s.
      for (const published of [port, nodePort]) {
        // docker's own port proxy accepts, then closes, while the proxy's port is closed: no refusal to retry on.
        let answer = "";
        for (let i = 0; i < 10 && answer !== "lbweb"; i++) {
          if (i > 0) await new Promise((resolve) => setTimeout(resolve, 300));
          const r = await runCommand("curl", ["-s", "--max-time", "5", `http://127.0.0.1:${published}/`], {
            reject: false,
          });
          answer = r.stdout.trim();
        }
        t.equal(answer, "lbweb", `127.0.0.1:${published} reaches the pod`);
      }

      // A node port this machine already uses: the Service's proxy cannot publish it.
      const holder = createServer().listen(0, "127.0.0.1");
      await once(holder, "listening");
      t.teardown(() => new Promise<void>((resolve) => holder.close(() => resolve())));
      const held = (holder.address() as AddressInfo).port;
      const taken = `apiVersion: v1
kind: Service
metadata: {name: taken, namespace: ${s.ns}}
spec:
  type: LoadBalancer
  selector: {app: none}
  ports: [{port: ${held}, targetPort: 8080}]
`;
      const failed = await s.up(taken);
      t.equal(failed.exitCode, 1, "exit 1");
      t.match(failed.stderr, new RegExp(`service/taken: a port it publishes on this machine is taken`), failed.stderr);
      const left = await runCommand(runtime, ["ps", "-a", "-q", "--filter", `name=${s.ns}_taken_SVC`]);
      t.equal(left.stdout.trim(), "", "no proxy left half-made");
    },
  );
}

// An ExternalName Service reached by its own names on its listed port (its target another
// Service's full name, so it resolves offline), a bare Pod's `<hostname>.<subdomain>` through a
// headless Service, the Service variables (none for the ExternalName), a Service whose selector
// changes configured in place (same cluster IP, the new endpoints), and `up` returning only once the
// proxies relay to the newest pods: right after a second `up` replaces the API's pod, a request
// through the Service reaches the new one, and each proxy reports the config written last. And a
// UDP Service, 53 → the container port named dns (5353): busybox has no UDP server, and its only
// UDP client is `nslookup NAME SERVER`, so the pod behind it runs the test image of
// images/test-udp-responder, a DNS responder that answers every A question with its pod's IP.
for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: ExternalName by name, hostname.subdomain, UDP, up waits for its proxies`, async (t) => {
    t.setTimeout(300_000);
    const responder = loadTestEnv()?.images.udpResponder;
    if (!responder) return void missing(t, "images.udpResponder in env.json");
    const s = await setup(t, runtime);
    if (!s || !(await requireImage(t, runtime, responder))) return;
    const { ns } = s;
    const started = Date.now();
    const yaml = (version: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: ${ns}}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: web
          image: ${BUSYBOX}
          command: ${SERVE(8080)}
          env: [{name: VERSION, value: "${version}"}]
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: ${ns}}
spec:
  selector: {app: api}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: ${ns}}
spec:
  selector: {app: ${version === "1" ? "api" : "named"}}
  ports: [{port: 80, targetPort: 8080}]
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
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: ${ns}}
spec:
  terminationGracePeriodSeconds: 1
  containers: [{name: client, image: ${BUSYBOX}, command: ["sh", "-c", "trap 'exit 0' TERM; sleep 600 & wait"]}]
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
          image: ${responder}
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
    const first = await s.up(yaml("1"), ["--wait", "--timeout", "60s"]);
    t.equal(first.exitCode, 0, `up --wait: ${first.stderr}`);
    t.match(first.stdout, `service/ext created (ExternalName → api.${ns}.svc.cluster.local, 80/TCP)`);
    t.notMatch(first.stderr, /ProxyNotSynced/, "every proxy applied its config in time");
    t.match(first.stdout, /service\/udp created \(ClusterIP [\d.]+, 53\/UDP\)/);
    const client = `${ns}_client_client`;
    const get = async (url: string) => {
      const r = await s.sh(client, `timeout 10 wget -qO- ${url}`);
      if (r.exitCode !== 0) t.comment(`${url}: exit ${r.exitCode}: ${r.stderr}`);
      return r.stdout.trim();
    };
    const [firstPod] = await s.podsOf(ns, "api-");
    t.equal(await get("http://ext/"), firstPod, "http://ext/ reaches the API through its external name");
    t.equal(await get(`http://ext.${ns}.svc.cluster.local:80/`), firstPod, "so does its full name");
    t.equal(await get("http://h1.sub:8080/"), "h1", "<hostname>.<subdomain> is the bare Pod");
    t.equal(await get("http://web/"), firstPod, "web selects the API");
    const webIP = /service\/web created \(ClusterIP ([\d.]+), 80\/TCP\)/.exec(first.stdout)?.[1];
    const apiIP = /service\/api created \(ClusterIP ([\d.]+), 80\/TCP\)/.exec(first.stdout)?.[1];
    const env = (await s.sh(client, "env")).stdout;
    t.match(env, /^API_SERVICE_HOST=\d+\.\d+\.\d+\.\d+$/m, "the ClusterIP Service's variables");
    t.notMatch(env, /^EXT_/m, "none for the ExternalName Service, as the kubelet gives none");

    // The UDP Service by its name (the engine's DNS gives the proxy's address), its port 53 relayed
    // to the responder's 5353: the answer is the endpoint's IP, which only the responder pod gives.
    const listed = await runCli(["ps", "svc", "udp", "-o", "wide", "--runtime", runtime, "-n", ns], { env: s.env });
    const [, udpIP, endpoint] =
      /^udp +ClusterIP +([\d.]+) +<none> +53\/UDP +\S+ +app=dns +([\d.]+):5353$/m.exec(listed.stdout) ?? [];
    t.ok(udpIP && endpoint, `ps svc: udp is 53/UDP, its endpoint the responder's 5353: ${listed.stdout}`);
    const lookup = await s.sh(client, "timeout 10 nslookup -type=a anything.example udp");
    const escaped = (ip = "?") => ip.replaceAll(".", "\\.");
    t.match(
      lookup.stdout,
      new RegExp(
        `Server:\\s+udp\\nAddress:\\s+${escaped(udpIP)}:53\\n\\nName:\\s+anything\\.example\\nAddress: ${escaped(endpoint)}\\n`,
      ),
      `nslookup by the Service's name: asked its cluster IP on 53, answered by the pod: ${lookup.stdout}${lookup.stderr}`,
    );

    // The API's pod replaced: right after `up` returns, the Service reaches the new one. web's
    // selector changed: configured in place, its address kept, its endpoints the new selector's.
    // Asked by address: the names answered above, and a slow lookup must not hide what the proxy does.
    const second = await s.up(yaml("2"));
    const answer = await get(`http://${apiIP}/`);
    t.equal(second.exitCode, 0, second.stderr);
    t.notMatch(second.stderr, /ProxyNotSynced/);
    t.match(second.stdout, `service/web configured (ClusterIP ${webIP}, 80/TCP)`, "web configured, same cluster IP");
    t.match(second.stdout, /service\/api unchanged/);
    t.equal(await get(`http://${webIP}/`), "h1", "web reaches what its new selector selects");
    const [newPod] = await s.podsOf(ns, "api-");
    t.not(newPod, firstPod, "a new API pod");
    t.equal(answer, newPod, "the first request after up reaches the new pod");
    const services = join(s.env.PODRUN_STATE_DIR, "services", runtime);
    for (const name of ["api", "ext", "web", "udp"]) {
      const dir = join(services, `${ns}_${name}`);
      const config = await readFile(join(dir, "proxy", "service.json"));
      const applied = (await readFile(join(dir, "status", "applied"), "utf8")).trim();
      t.equal(
        applied,
        createHash("sha256").update(config).digest("hex"),
        `${name}'s proxy applied the config written last`,
      );
    }
    t.comment(`${runtime}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
}
