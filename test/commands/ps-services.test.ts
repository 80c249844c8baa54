import t from "tap";
import { formatLabels } from "../../lib/text/labels.js";
import type { Service } from "kubernetes-types/core/v1.js";
import { join } from "node:path";
import { ps } from "../../lib/commands/ps.js";
import {
  formatEndpoints,
  formatExternalIP,
  formatServiceTable,
  serviceArguments,
} from "../../lib/commands/ps-services.js";
import { ExitError, UsageError } from "../../lib/errors.js";
import type { ListedService } from "../../lib/services/list-services.js";
import { serviceDirectory } from "../../lib/services/service-proxy.js";
import { recordService } from "../../lib/services/service-record.js";
import { createCommandWorld } from "../harness/command-io.js";

// `ps svc`: kubectl get svc's cells (pkg/printers/internalversion/printers.go printService) from
// fixed Services (pure), then the command against the shared fake engine and a state directory.

const NOW = Date.parse("2026-01-01T10:05:00Z");

function listed(name: string, spec: Service["spec"], extra: Partial<ListedService> & { ns?: string } = {}) {
  const service: Service = {
    metadata: { name, namespace: extra.ns ?? "default", creationTimestamp: "2026-01-01T10:00:00Z" },
    spec,
    status: extra.service?.status ?? { loadBalancer: {} },
  };
  return { service, endpoints: extra.endpoints ?? [], endpointsByPort: extra.endpointsByPort ?? [] };
}

const services: ListedService[] = [
  listed(
    "api",
    { type: "ClusterIP", clusterIPs: ["10.89.0.3"], selector: { app: "api" }, ports: [{ port: 80, protocol: "TCP" }] },
    { endpoints: ["10.89.0.5:8080", "10.89.0.6:8080"] },
  ),
  listed(
    "db",
    { type: "ClusterIP", clusterIP: "None", clusterIPs: ["None"], selector: { app: "db", tier: "data" } },
    {
      endpoints: ["10.89.0.7"],
    },
  ),
  listed("ext", { type: "ExternalName", externalName: "db.example.com" }),
  listed(
    "lb",
    {
      type: "LoadBalancer",
      clusterIPs: ["10.89.0.4"],
      selector: { app: "lb" },
      ports: [
        { port: 443, nodePort: 30443, protocol: "TCP" },
        { port: 53, nodePort: 30053, protocol: "UDP" },
      ],
    },
    { service: { status: { loadBalancer: { ingress: [{ ip: "127.0.0.1" }] } } } },
  ),
  listed("web", { type: "NodePort", clusterIPs: ["10.89.0.9"], ports: [{ port: 80, nodePort: 31234 }] }, { ns: "ci" }),
];

t.test("kubectl get svc's columns; -A adds NAMESPACE; -o wide SELECTOR and ENDPOINTS", async (t) => {
  t.same(formatServiceTable(services.slice(0, 3), { namespaceColumn: false, wide: false, nowMs: NOW }), [
    "NAME   TYPE           CLUSTER-IP   EXTERNAL-IP      PORT(S)   AGE",
    "api    ClusterIP      10.89.0.3    <none>           80/TCP    5m",
    "db     ClusterIP      None         <none>           <none>    5m",
    "ext    ExternalName   <none>       db.example.com   <none>    5m",
  ]);
  t.same(formatServiceTable(services, { namespaceColumn: true, wide: true, nowMs: NOW }), [
    "NAMESPACE   NAME   TYPE           CLUSTER-IP   EXTERNAL-IP      PORT(S)                      AGE   SELECTOR           ENDPOINTS",
    "default     api    ClusterIP      10.89.0.3    <none>           80/TCP                       5m    app=api            10.89.0.5:8080,10.89.0.6:8080",
    "default     db     ClusterIP      None         <none>           <none>                       5m    app=db,tier=data   10.89.0.7",
    "default     ext    ExternalName   <none>       db.example.com   <none>                       5m    <none>             <none>",
    "default     lb     LoadBalancer   10.89.0.4    127.0.0.1        443:30443/TCP,53:30053/UDP   5m    app=lb             <none>",
    "ci          web    NodePort       10.89.0.9    <none>           80:31234/TCP                 5m    <none>             <none>",
  ]);
});

t.test("EXTERNAL-IP as getServiceExternalIP; SELECTOR and ENDPOINTS as kubectl formats them", async (t) => {
  const lb = (ingress: { ip?: string; hostname?: string }[], externalIPs?: string[]): Service => ({
    spec: { type: "LoadBalancer", ...(externalIPs ? { externalIPs } : {}) },
    status: { loadBalancer: { ingress } },
  });
  t.equal(formatExternalIP(lb([]), false), "<pending>", "no ingress yet");
  t.equal(formatExternalIP(lb([{ ip: "192.168.100.200" }, { ip: "192.168.100.201" }]), false), "192.168.100.2...");
  t.equal(
    formatExternalIP(lb([{ ip: "192.168.100.201" }, { ip: "192.168.100.200" }]), true),
    "192.168.100.200,192.168.100.201",
  );
  t.equal(formatExternalIP(lb([{ hostname: "lb.local" }], ["10.0.0.1"]), false), "lb.local,10.0.0.1");
  t.equal(formatExternalIP({ spec: { type: "NodePort", externalIPs: ["10.0.0.2"] } }, false), "10.0.0.2");
  t.equal(formatLabels({ tier: "web", app: "api" }), "app=api,tier=web", "sorted by key");
  t.equal(formatLabels(undefined), "<none>");
  t.equal(formatEndpoints(["a:1", "b:1", "c:1", "d:1", "e:1"]), "a:1,b:1,c:1 + 2 more...");
});

t.test("serviceArguments: svc (any spelling) then names, or svc/NAMEs; pods otherwise", async (t) => {
  t.same(serviceArguments(["svc"]), []);
  t.same(serviceArguments(["services", "api", "db"]), ["api", "db"]);
  t.same(serviceArguments(["Service", "api"]), ["api"]);
  t.same(serviceArguments(["svc/api", "service/db"]), ["api", "db"]);
  t.equal(serviceArguments(["web", "deploy/api"]), undefined, "pods");
  t.equal(serviceArguments([]), undefined);
  t.throws(() => serviceArguments(["svc", "svc/api"]), UsageError, "kubectl refuses the type twice");
  t.throws(() => serviceArguments(["svc/api", "web"]), UsageError, "pods or Services");
});

t.test("ps svc against the fake engine: proxies, a headless record; -n, not found, --json", async (t) => {
  const world = await createCommandWorld(t);
  const addProxy = (name: string, ip: string, extra: Record<string, string> = {}) =>
    world.runtime.addContainer({
      name: `default_${name}_SVC`,
      ip,
      labels: {
        "io.podrun.managed": "true",
        "io.podrun.service.name": name,
        "io.podrun.service.namespace": "default",
        "io.podrun.service.node-ports": "{}",
        "io.podrun.service.routing": JSON.stringify({
          namespace: "default",
          name,
          selector: { app: name },
          ports: [{ protocol: "TCP", port: 80 }],
          sessionAffinity: "None",
        }),
        ...extra,
      },
    });
  addProxy("api", "10.88.0.40");
  // Made by a run with another state directory: its record is found beside the config its label names.
  const otherState = join(world.dir, "other-state");
  const lb: Service = {
    metadata: { name: "lb", namespace: "default" },
    spec: { type: "LoadBalancer", selector: { app: "lb" }, ports: [{ port: 80, protocol: "TCP" }] },
  };
  const location = { stateDir: otherState, engine: "docker", dryRun: false };
  const nodePorts = new Map([["80/TCP", 30080]]);
  await recordService(location, { service: lb, source: "lb.yaml", action: "created", nodePorts, address: "127.0.0.1" });
  addProxy("lb", "10.88.0.41", {
    "io.podrun.service.node-ports": JSON.stringify({ "80/TCP": 30080 }),
    "io.podrun.service.config-dir": join(serviceDirectory(otherState, "docker", "default", "lb"), "proxy"),
  });
  const headless: Service = {
    metadata: { name: "db", namespace: "default" },
    spec: { type: "ClusterIP", clusterIP: "None", selector: { app: "db" } },
  };
  await recordService(
    { stateDir: world.stateDir, engine: "docker", dryRun: false },
    { service: headless, source: "app.yaml", action: "headless", nodePorts: new Map() },
  );
  const base = { allNamespaces: false, wide: false, json: false };
  await ps({ ...base, names: ["svc"], ...world.io });
  t.match(world.stdout.lines(), [
    /^NAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\(S\) +AGE$/,
    /^api +ClusterIP +10\.88\.0\.40 +<none> +80\/TCP +\d+s$/,
    /^db +ClusterIP +None +<none> +<none> +\d+s$/,
    /^lb +LoadBalancer +10\.88\.0\.41 +127\.0\.0\.1 +80:30080\/TCP +\d+s$/,
  ]);

  world.nextCommand();
  await t.rejects(ps({ ...base, names: ["svc", "db", "nope"], ...world.io }), ExitError);
  t.match(world.stdout.lines(), [/^NAME/, /^db /], "the others still listed");
  t.same(world.stderr.lines(), ['Error from server (NotFound): services "nope" not found']);

  world.nextCommand();
  await ps({ ...base, names: ["svc/api"], json: true, ...world.io });
  const list = JSON.parse(world.stdout.text) as { kind: string; items: Service[] };
  t.equal(list.kind, "List");
  t.same(
    list.items.map((s) => [s.kind, s.metadata?.name, s.spec?.clusterIP]),
    [["Service", "api", "10.88.0.40"]],
  );

  world.nextCommand();
  await ps({ ...base, names: ["svc"], namespace: "ci", ...world.io });
  t.equal(world.stderr.text, "No resources found in ci namespace.\n");
  t.equal(world.stdout.text, "");
});
