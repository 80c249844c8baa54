import type { Service } from "kubernetes-types/core/v1.js";
import t from "tap";
import { formatServiceOutcome } from "../../lib/output/service-lines.js";
import { proxyConfigText } from "../../lib/services/endpoint-sync.js";
import { buildProxySpec, hasProxy, routingOf } from "../../lib/services/service-proxy.js";
import type { CandidatePod } from "../../lib/services/endpoints.js";

// An ExternalName Service gets a proxy like a ClusterIP one, under its name, that relays each port
// it lists to `externalName:port` (the proxy resolves the name at each connection); pods matching
// a selector it may carry are not its endpoints. Its `up` line names the target, not an address.

const ext = (spec: Service["spec"] = {}): Service => ({
  metadata: { name: "db", namespace: "shop", uid: "u1" },
  spec: {
    type: "ExternalName",
    externalName: "postgres.example.com",
    ports: [
      { name: "pg", port: 5432, targetPort: 6432 },
      { port: 53, protocol: "UDP" },
    ],
    ...spec,
  },
});

const pod: CandidatePod = {
  name: "db-0",
  namespace: "shop",
  labels: { app: "db" },
  ip: "10.88.0.5",
  ready: true,
  containers: [{ ports: [] }],
};

t.test("an ExternalName Service has a proxy; a headless one has none", async (t) => {
  t.equal(hasProxy(ext()), true);
  t.equal(hasProxy({ spec: { clusterIP: "None", selector: { app: "db" } } }), false);
  t.equal(hasProxy({ spec: { selector: { app: "db" } } }), true);
});

t.test("its config: each listed port to the name at the same port, whatever the pods", async (t) => {
  const routing = routingOf(ext({ selector: { app: "db" } }));
  t.equal(routing.externalName, "postgres.example.com");
  t.same(JSON.parse(proxyConfigText(routing, [pod])), {
    service: "shop/db",
    sessionAffinity: "None",
    affinityTimeoutSeconds: 10800,
    ports: [
      // targetPort means nothing to a CNAME: the client's port is the one it reaches.
      { name: "pg", protocol: "TCP", port: 5432, endpoints: [{ host: "postgres.example.com", port: 5432 }] },
      { name: "", protocol: "UDP", port: 53, endpoints: [{ host: "postgres.example.com", port: 53 }] },
    ],
  });
  t.same(
    (JSON.parse(proxyConfigText(routingOf(ext({ ports: [] })), [pod])) as { ports: unknown[] }).ports,
    [],
    "no ports: nothing relayed",
  );
  t.equal(routingOf({ spec: { externalName: "x.example.com", selector: { a: "b" } } }).externalName, undefined);
});

t.test("its proxy: under the Service's name, no port published", async (t) => {
  const spec = buildProxySpec({
    service: ext(),
    image: "proxy:1",
    cluster: { name: "podrun" } as never,
    configDir: "/state/proxy",
    statusDir: "/state/status",
    hash: "h",
    nodePorts: new Map(),
    address: "127.0.0.1",
  });
  t.equal(spec.name, "shop_db_SVC");
  t.same(spec.network?.aliases, ["db.shop.svc.cluster.local"]);
  t.same(spec.ports, []);
});

t.test("its up line names the target and the ports, not the relay's address", async (t) => {
  const outcome = { service: ext(), source: "a.yaml", clusterIP: "10.89.0.7", nodePorts: new Map() };
  t.equal(
    formatServiceOutcome({ ...outcome, action: "created" }),
    "service/db created (ExternalName → postgres.example.com, 5432/TCP,53/UDP)",
  );
  t.equal(
    formatServiceOutcome({ ...outcome, service: ext({ ports: [] }), action: "kept" }),
    "service/db unchanged (ExternalName → postgres.example.com, no ports: nothing relayed)",
  );
});
