import t from "tap";
import type { Service } from "kubernetes-types/core/v1.js";
import { enableServiceLinks, serviceEnvVars } from "../../lib/services/service-env.js";

// The kubelet's Service variables (pkg/kubelet/envvars): which Services, and how each is spelled.

function service(name: string, spec: Service["spec"], namespace?: string): Service {
  return { metadata: { name, ...(namespace ? { namespace } : {}) }, spec };
}

const asMap = (vars: { name: string; value?: string }[]) => vars.map((v) => `${v.name}=${v.value ?? ""}`);

t.test("one Service with a named second port, as FromServices spells it", async (t) => {
  const vars = serviceEnvVars(
    [
      {
        service: service("my-api", {
          ports: [
            { port: 80, targetPort: "http" },
            { name: "metrics", port: 9090, protocol: "TCP" },
          ],
        }),
        clusterIP: "10.96.0.10",
      },
    ],
    "default",
  );
  t.same(asMap(vars), [
    "MY_API_SERVICE_HOST=10.96.0.10",
    "MY_API_SERVICE_PORT=80",
    "MY_API_SERVICE_PORT_METRICS=9090",
    "MY_API_PORT=tcp://10.96.0.10:80",
    "MY_API_PORT_80_TCP=tcp://10.96.0.10:80",
    "MY_API_PORT_80_TCP_PROTO=tcp",
    "MY_API_PORT_80_TCP_PORT=80",
    "MY_API_PORT_80_TCP_ADDR=10.96.0.10",
    "MY_API_PORT_9090_TCP=tcp://10.96.0.10:9090",
    "MY_API_PORT_9090_TCP_PROTO=tcp",
    "MY_API_PORT_9090_TCP_PORT=9090",
    "MY_API_PORT_9090_TCP_ADDR=10.96.0.10",
  ]);
});

t.test("a UDP port, and an IPv6 address in brackets in the URLs", async (t) => {
  const vars = serviceEnvVars(
    [{ service: service("dns", { ports: [{ name: "dns", port: 53, protocol: "UDP" }] }), clusterIP: "fd00::a" }],
    "default",
  );
  t.same(asMap(vars), [
    "DNS_SERVICE_HOST=fd00::a",
    "DNS_SERVICE_PORT=53",
    "DNS_SERVICE_PORT_DNS=53",
    "DNS_PORT=udp://[fd00::a]:53",
    "DNS_PORT_53_UDP=udp://[fd00::a]:53",
    "DNS_PORT_53_UDP_PROTO=udp",
    "DNS_PORT_53_UDP_PORT=53",
    "DNS_PORT_53_UDP_ADDR=fd00::a",
  ]);
});

t.test("only the Services of the pod's namespace with a cluster IP, by name", async (t) => {
  const ports = [{ port: 5432 }];
  const services = [
    { service: service("web", { ports: [{ port: 80 }] }), clusterIP: "10.0.0.2" },
    { service: service("db", { ports }), clusterIP: "10.0.0.3" },
    { service: service("other", { ports }, "shop"), clusterIP: "10.0.0.4" },
    { service: service("headless", { clusterIP: "None", ports }), clusterIP: "None" },
    { service: service("pending", { ports }), clusterIP: undefined },
    { service: service("ext", { type: "ExternalName", externalName: "x.example.com", ports }), clusterIP: "" },
    { service: service("ext2", { type: "ExternalName", externalName: "x.example.com", ports }), clusterIP: "10.0.0.9" },
    { service: service("empty", { ports }), clusterIP: "" },
  ];
  const hosts = (namespace: string) =>
    serviceEnvVars(services, namespace)
      .filter((v) => v.name.endsWith("_SERVICE_HOST"))
      .map((v) => v.name);
  t.same(hosts("default"), ["DB_SERVICE_HOST", "WEB_SERVICE_HOST"]);
  t.same(hosts("shop"), ["OTHER_SERVICE_HOST"]);
  t.same(hosts("none"), []);
  t.same(serviceEnvVars([], "default"), []);
  t.notOk(
    serviceEnvVars(services, "default").some((v) => v.name.startsWith("KUBERNETES_")),
    "no KUBERNETES_SERVICE_*",
  );
});

t.test("a Service without a port gives nothing", async (t) => {
  t.same(serviceEnvVars([{ service: service("bare", {}), clusterIP: "10.0.0.5" }], "default"), []);
});

t.test("enableServiceLinks is true unless set to false", async (t) => {
  t.equal(enableServiceLinks(undefined), true);
  t.equal(enableServiceLinks({}), true);
  t.equal(enableServiceLinks({ enableServiceLinks: true }), true);
  t.equal(enableServiceLinks({ enableServiceLinks: false }), false);
});
