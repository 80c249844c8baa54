import t from "tap";
import type { Service } from "kubernetes-types/core/v1.js";
import {
  findTargetPort,
  headlessAddresses,
  serviceEndpoints,
  serviceSelects,
  type CandidatePod,
} from "../../lib/services/endpoints.js";

// A Service's endpoints as the EndpointSlice controller lists them and kube-proxy routes them.

function pod(name: string, over: Partial<CandidatePod> = {}): CandidatePod {
  return {
    name,
    namespace: "default",
    labels: { app: "api" },
    ip: "10.1.0.99",
    ready: true,
    containers: [
      {
        ports: [
          { name: "http", containerPort: 8080 },
          { name: "dns", containerPort: 5353, protocol: "UDP" },
        ],
      },
    ],
    ...over,
  };
}

function service(spec: Service["spec"], namespace?: string): Service {
  return {
    metadata: { name: "api", ...(namespace ? { namespace } : {}) },
    spec: { selector: { app: "api" }, ...spec },
  };
}

t.test("serviceSelects: every pair equal; no selector or an empty one selects nothing", async (t) => {
  const s = service({ selector: { app: "api", tier: "web" } });
  t.ok(serviceSelects(s, { app: "api", tier: "web", extra: "x" }));
  t.notOk(serviceSelects(s, { app: "api" }));
  t.notOk(serviceSelects(s, { app: "api", tier: "db" }));
  t.notOk(serviceSelects(s, undefined));
  t.notOk(serviceSelects({ spec: {} }, { app: "api" }));
  t.notOk(serviceSelects({ spec: { selector: {} } }, { app: "api" }));
});

t.test("targetPort: a number as is, a name by the container port of that protocol, unset the port", async (t) => {
  const p = pod("a");
  t.equal(findTargetPort(p, { port: 80, targetPort: 9000 }), 9000);
  t.equal(findTargetPort(p, { port: 80, targetPort: "http" }), 8080);
  t.equal(findTargetPort(p, { port: 80, targetPort: "http", protocol: "TCP" }), 8080);
  t.equal(findTargetPort(p, { port: 80, targetPort: "http", protocol: "UDP" }), undefined);
  t.equal(findTargetPort(p, { port: 53, targetPort: "dns", protocol: "UDP" }), 5353);
  t.equal(findTargetPort(p, { port: 53, targetPort: "dns" }), undefined, "dns is UDP, the Service port TCP");
  t.equal(findTargetPort(p, { port: 80, targetPort: "missing" }), undefined);
  t.equal(findTargetPort(p, { port: 80 }), 80);
  t.equal(findTargetPort(p, { port: 80, targetPort: 0 }), 80);
  t.equal(findTargetPort(p, { port: 80, targetPort: "" }), 80);
  const sidecar = pod("b", { containers: [{}, { ports: [{ name: "http", containerPort: 9999 }] }] });
  t.equal(findTargetPort(sidecar, { port: 80, targetPort: "http" }), 9999, "the first container with the name");
});

t.test("each port's endpoints: selected, same namespace, with an IP, ready", async (t) => {
  const pods = [
    pod("a", { ip: "10.1.0.1" }),
    pod("b", { ip: "10.1.0.2", ready: false }),
    pod("c", { ip: undefined }),
    pod("d", { ip: "10.1.0.4", namespace: "shop" }),
    pod("e", { ip: "10.1.0.5", labels: { app: "web" } }),
    pod("f", { ip: "10.1.0.6", containers: [{ ports: [{ name: "metrics", containerPort: 9090 }] }] }),
  ];
  const s = service({
    ports: [
      { name: "http", port: 80, targetPort: "http" },
      { name: "raw", port: 81, targetPort: 7000, protocol: "TCP" },
      { name: "dns", port: 53, targetPort: "dns", protocol: "UDP" },
    ],
  });
  t.same(serviceEndpoints(s, pods), [
    { name: "http", protocol: "TCP", port: 80, endpoints: [{ ip: "10.1.0.1", port: 8080, pod: "a" }] },
    {
      name: "raw",
      protocol: "TCP",
      port: 81,
      endpoints: [
        { ip: "10.1.0.1", port: 7000, pod: "a" },
        { ip: "10.1.0.6", port: 7000, pod: "f" },
      ],
    },
    { name: "dns", protocol: "UDP", port: 53, endpoints: [{ ip: "10.1.0.1", port: 5353, pod: "a" }] },
  ]);
  const notReady = service({ publishNotReadyAddresses: true, ports: [{ port: 80 }] });
  t.same(serviceEndpoints(notReady, pods), [
    {
      name: "",
      protocol: "TCP",
      port: 80,
      endpoints: [
        { ip: "10.1.0.1", port: 80, pod: "a" },
        { ip: "10.1.0.2", port: 80, pod: "b" },
        { ip: "10.1.0.6", port: 80, pod: "f" },
      ],
    },
  ]);
  t.same(
    serviceEndpoints(service({ ports: [{ port: 80 }] }, "shop"), pods).map((p) => p.endpoints),
    [[{ ip: "10.1.0.4", port: 80, pod: "d" }]],
  );
});

t.test("no endpoints: no selector, an ExternalName Service, no pod", async (t) => {
  const pods = [pod("a", { ip: "10.1.0.1" })];
  t.same(serviceEndpoints({ metadata: { name: "x" }, spec: { ports: [{ port: 80 }] } }, pods), [
    { name: "", protocol: "TCP", port: 80, endpoints: [] },
  ]);
  t.same(
    serviceEndpoints(service({ type: "ExternalName", externalName: "x.example.com", ports: [{ port: 80 }] }), pods),
    [{ name: "", protocol: "TCP", port: 80, endpoints: [] }],
  );
  t.same(serviceEndpoints(service({ ports: [{ port: 80 }] }), []), [
    { name: "", protocol: "TCP", port: 80, endpoints: [] },
  ]);
  t.same(serviceEndpoints(service({}), pods), []);
});

t.test("headless addresses: the endpoint pods' IPs, once each, ports or not", async (t) => {
  const pods = [
    pod("db-0", { ip: "10.1.0.10" }),
    pod("db-1", { ip: "10.1.0.11", ready: false }),
    pod("db-2", { ip: "10.1.0.10" }),
    pod("db-3", { ip: undefined }),
    pod("web", { ip: "10.1.0.12", labels: { app: "web" } }),
  ];
  t.same(headlessAddresses(service({ clusterIP: "None" }), pods), ["10.1.0.10"]);
  t.same(headlessAddresses(service({ clusterIP: "None", publishNotReadyAddresses: true }), pods), [
    "10.1.0.10",
    "10.1.0.11",
  ]);
  t.same(headlessAddresses(service({ clusterIP: "None", selector: undefined }), pods), []);
});
