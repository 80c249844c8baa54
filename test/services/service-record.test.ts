import t from "tap";
import type { Service } from "kubernetes-types/core/v1.js";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceOutcome } from "../../lib/services/apply-services.js";
import { endpointsOf, mergeServices } from "../../lib/services/list-services.js";
import { removeServices } from "../../lib/services/remove-services.js";
import { serviceDirectory } from "../../lib/services/service-proxy.js";
import {
  parseServiceRecord,
  readServiceRecords,
  recordService,
  serviceRecordOf,
  type ServiceRecord,
} from "../../lib/services/service-record.js";
import type { CandidatePod } from "../../lib/services/endpoints.js";
import type { ContainerState } from "../../lib/runtime/types.js";
import { FakeRuntime } from "../harness/fake-runtime.js";

// The record each Service of a run leaves (service-record.ts), the Services read back from the
// proxies and the records (list-services.ts), and `down` of records (remove-services.ts).

const CREATED = "2026-01-01T10:00:00.123Z";

function service(name: string, spec: Service["spec"], namespace = "default"): Service {
  return { metadata: { name, namespace }, spec: { selector: { app: name }, ...spec } };
}

function outcome(svc: Service, over: Partial<ServiceOutcome> = {}): ServiceOutcome {
  return { service: svc, source: "app.yaml", action: "created", nodePorts: new Map(), ...over };
}

const clusterIP = service("api", { type: "ClusterIP", ports: [{ port: 80, protocol: "TCP", targetPort: "http" }] });
const nodePort = service("web", { type: "NodePort", ports: [{ port: 80, protocol: "TCP", targetPort: 8080 }] });
const lb = service("lb", { type: "LoadBalancer", ports: [{ port: 443, protocol: "TCP", targetPort: 8443 }] });
const headless = service("db", { type: "ClusterIP", clusterIP: "None", ports: [{ port: 5432, protocol: "TCP" }] });
const external = service("ext", { type: "ExternalName", externalName: "db.example.com" });

t.test("the record is the Service as made: cluster IP, node ports, a LoadBalancer's ingress", async (t) => {
  const api = serviceRecordOf(outcome(clusterIP, { clusterIP: "10.89.0.3" }), CREATED);
  t.same(api.service.metadata, {
    name: "api",
    namespace: "default",
    uid: api.service.metadata?.uid,
    creationTimestamp: "2026-01-01T10:00:00Z",
  });
  t.match(api.service.metadata?.uid, /^[0-9a-f-]{36}$/, "a stable uid, as no API server gives one");
  t.match(api, { version: 1, source: "app.yaml", service: { apiVersion: "v1", kind: "Service" } });
  t.same(api.service.spec?.clusterIPs, ["10.89.0.3"]);
  t.same(api.service.status, { loadBalancer: {} });
  const web = serviceRecordOf(
    outcome(nodePort, { clusterIP: "10.89.0.4", nodePorts: new Map([["80/TCP", 31234]]), address: "127.0.0.1" }),
    CREATED,
  );
  t.same(web.service.spec?.ports, [{ port: 80, protocol: "TCP", targetPort: 8080, nodePort: 31234 }]);
  t.same(web.service.status, { loadBalancer: {} }, "a NodePort has no ingress");
  const balancer = serviceRecordOf(
    outcome(lb, { clusterIP: "10.89.0.5", nodePorts: new Map([["443/TCP", 30443]]), address: "127.0.0.1" }),
    CREATED,
  );
  t.same(balancer.service.status, { loadBalancer: { ingress: [{ ip: "127.0.0.1" }] } }, "where podrun publishes it");
  t.same(serviceRecordOf(outcome(headless, { action: "headless" }), CREATED).service.spec?.clusterIPs, ["None"]);
  const ext = serviceRecordOf(outcome(external, { clusterIP: "10.89.0.9" }), CREATED).service.spec;
  t.equal(ext?.clusterIP, undefined, "an ExternalName has no cluster IP");
  t.equal(ext?.externalName, "db.example.com");
});

t.test("recordService: written, its creation kept by a later run; a dry run writes nothing", async (t) => {
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-svc-record-"));
  t.teardown(() => rm(stateDir, { recursive: true, force: true }));
  const at = (iso: string) => () => Date.parse(iso);
  const location = { stateDir, engine: "docker", dryRun: false };
  await recordService(location, outcome(headless, { action: "headless" }), at("2026-01-01T10:00:00Z"));
  await recordService(location, outcome(headless, { action: "headless" }), at("2026-01-01T11:00:00Z"));
  await recordService({ ...location, dryRun: true }, outcome(external, { clusterIP: "10.89.0.9" }));
  const records = await readServiceRecords(stateDir, "docker");
  t.same(
    records.map((r) => [r.service.metadata?.name, r.service.metadata?.creationTimestamp]),
    [["db", "2026-01-01T10:00:00Z"]],
  );
  t.same(await readdir(serviceDirectory(stateDir, "docker", "default", "db")), ["service.json"], "no temp file left");
  // One written by hand among them: skipped, the others still read.
  const bad = serviceDirectory(stateDir, "docker", "default", "bad");
  await mkdir(bad, { recursive: true });
  await writeFile(join(bad, "service.json"), "{not json");
  t.equal((await readServiceRecords(stateDir, "docker")).length, 1);
  t.same(await readServiceRecords(stateDir, "podman"), [], "another engine's: none");
  t.equal(parseServiceRecord('{"version":2,"service":{"metadata":{"name":"x"}}}'), undefined, "another layout");
});

function proxy(name: string, fields: Partial<ContainerState> & { nodePorts?: Record<string, number> }): ContainerState {
  return {
    id: `id-${name}`,
    name: `default_${name}_SVC`,
    status: "running",
    running: true,
    exitCode: 0,
    startedAt: "",
    finishedAt: "",
    createdAt: "2026-01-01T09:00:00Z",
    restartCount: 0,
    image: "ghcr.io/podrun/service-proxy:0.1.0",
    ...fields,
    labels: {
      "io.podrun.service.name": name,
      "io.podrun.service.namespace": "default",
      "io.podrun.service.node-ports": JSON.stringify(fields.nodePorts ?? {}),
      "io.podrun.service.routing": JSON.stringify({
        namespace: "default",
        name,
        selector: { app: name },
        ports: [{ protocol: "TCP", port: 80, targetPort: 8080 }],
        sessionAffinity: "None",
      }),
      ...fields.labels,
    },
  };
}

t.test("mergeServices: the engine is the truth for a proxied Service; a record alone for the others", async (t) => {
  const records: ServiceRecord[] = [
    serviceRecordOf(outcome(nodePort, { clusterIP: "10.89.0.4", nodePorts: new Map([["80/TCP", 31234]]) }), CREATED),
    serviceRecordOf(outcome(clusterIP, { clusterIP: "10.89.0.3" }), CREATED),
    serviceRecordOf(outcome(headless, { action: "headless" }), CREATED),
    serviceRecordOf(outcome(external, { clusterIP: "10.89.0.9" }), CREATED),
  ];
  const proxies = [
    // Restarted by the engine: a new address, the same node port.
    proxy("web", { ip: "10.89.0.9", nodePorts: { "80/TCP": 31234 } }),
    // No record (made by a podrun before records): what its labels say.
    proxy("old", { ip: "10.89.0.7", nodePorts: { "80/TCP": 30080 } }),
    // An ExternalName's relay: its address is no cluster IP.
    proxy("ext", { ip: "10.89.0.11" }),
  ];
  const services = mergeServices(proxies, records);
  t.same(
    services.map((s) => [s.metadata?.name, s.spec?.type, s.spec?.clusterIP, s.spec?.ports?.map((p) => p.nodePort)]),
    [
      ["db", "ClusterIP", "None", [undefined]],
      ["ext", "ExternalName", undefined, undefined],
      ["old", "NodePort", "10.89.0.7", [30080]],
      ["web", "NodePort", "10.89.0.9", [31234]],
    ],
    "sorted; api's proxy is gone, so api is not listed",
  );
  t.equal(services[2]?.metadata?.creationTimestamp, "2026-01-01T09:00:00Z", "a proxy without a record: its creation");
  t.equal(services[3]?.metadata?.creationTimestamp, "2026-01-01T10:00:00Z", "with one: the Service's");
  const stopped = mergeServices([proxy("api", { running: false })], records.slice(1, 2));
  t.same(
    stopped.map((s) => [s.metadata?.name, s.spec?.clusterIP]),
    [["api", undefined]],
    "a stopped proxy: no address",
  );
});

t.test("endpointsOf: ip:port of each port's endpoints; a headless Service without ports, its pods' IPs", async (t) => {
  const pod = (name: string, ip: string, app: string, ready = true): CandidatePod => ({
    name,
    namespace: "default",
    labels: { app },
    ip,
    ready,
    containers: [{ ports: [{ name: "http", containerPort: 8080 }] }],
  });
  const pods = [pod("a", "10.89.0.5", "api"), pod("b", "10.89.0.6", "api"), pod("c", "10.89.0.8", "api", false)];
  t.same(endpointsOf(clusterIP, pods), ["10.89.0.5:8080", "10.89.0.6:8080"], "ready pods, targetPort resolved");
  const portless = service("api", { clusterIP: "None" });
  t.same(endpointsOf(portless, pods), ["10.89.0.5", "10.89.0.6"]);
  t.same(endpointsOf(external, pods), []);
  t.same(endpointsOf(clusterIP, [pod("v6", "fd00::5", "api")]), ["[fd00::5]:8080"], "an IPv6 address in brackets");
});

t.test("down: a headless Service's record is found and removed; --all removes every record", async (t) => {
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-svc-down-"));
  t.teardown(() => rm(stateDir, { recursive: true, force: true }));
  const runtime = new FakeRuntime();
  const location = { stateDir, engine: runtime.name, dryRun: false };
  await recordService(location, outcome(headless, { action: "headless" }));
  await recordService(location, outcome(external, { clusterIP: "10.89.0.9" }));
  await recordService(location, outcome(service("db", { clusterIP: "None" }, "other"), { action: "headless" }));
  await recordService(location, outcome(clusterIP, { clusterIP: "10.89.0.3" }));
  const one = await removeServices(runtime, { services: [{ name: "db", namespace: "default" }], all: false, stateDir });
  t.same(one.removed, [{ name: "db", namespace: "default", found: true }]);
  const all = await removeServices(runtime, { services: [], all: true, namespace: "default", stateDir });
  t.same(
    all.removed.map((s) => [s.name, s.found]).sort(),
    [
      ["api", false],
      ["ext", false],
    ],
    "api's and ext's proxies are gone: not found, their records removed all the same",
  );
  t.same(
    (await readServiceRecords(stateDir, runtime.name)).map((r) => r.service.metadata?.namespace),
    ["other"],
    "another namespace's stays",
  );
});
