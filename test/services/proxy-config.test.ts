import t from "tap";
import {
  renderProxyConfig,
  SERVICE_PROXY_CONFIG_DIR,
  SERVICE_PROXY_STATUS_DIR,
  SERVICE_PROXY_IMAGE,
  type ProxyConfig,
} from "../../lib/services/proxy-config.js";

// The contract with images/service-proxy (config.go): the proxy refuses unknown fields, so the
// rendered text is pinned here key by key.

const api = (endpoints: ProxyConfig["ports"][number]["endpoints"]): ProxyConfig => ({
  service: "default/api",
  ports: [{ name: "http", protocol: "TCP", port: 80, endpoints }],
});

const cases: { name: string; config: ProxyConfig; want: object }[] = [
  {
    name: "the defaults filled in",
    config: api([{ ip: "10.88.0.5", port: 8080, pod: "api-abc" }]),
    want: {
      service: "default/api",
      sessionAffinity: "None",
      affinityTimeoutSeconds: 10800,
      ports: [
        { name: "http", protocol: "TCP", port: 80, endpoints: [{ ip: "10.88.0.5", port: 8080, pod: "api-abc" }] },
      ],
    },
  },
  {
    name: "ClientIP with its timeout; no endpoints",
    config: { ...api([]), sessionAffinity: "ClientIP", affinityTimeoutSeconds: 60 },
    want: {
      service: "default/api",
      sessionAffinity: "ClientIP",
      affinityTimeoutSeconds: 60,
      ports: [{ name: "http", protocol: "TCP", port: 80, endpoints: [] }],
    },
  },
  {
    name: "ports in the Service's order; endpoints by address, IPv4 numerically, then port",
    config: {
      service: "dns/coredns",
      ports: [
        {
          name: "dns",
          protocol: "UDP",
          port: 53,
          endpoints: [
            { ip: "fd00::1", port: 53, pod: "c" },
            { ip: "10.88.0.10", port: 1053, pod: "b" },
            { ip: "10.88.0.9", port: 53, pod: "a" },
            { ip: "10.88.0.10", port: 53, pod: "b" },
          ],
        },
        { name: "dns-tcp", protocol: "TCP", port: 53, endpoints: [] },
      ],
    },
    want: {
      service: "dns/coredns",
      sessionAffinity: "None",
      affinityTimeoutSeconds: 10800,
      ports: [
        {
          name: "dns",
          protocol: "UDP",
          port: 53,
          endpoints: [
            { ip: "10.88.0.9", port: 53, pod: "a" },
            { ip: "10.88.0.10", port: 53, pod: "b" },
            { ip: "10.88.0.10", port: 1053, pod: "b" },
            { ip: "fd00::1", port: 53, pod: "c" },
          ],
        },
        { name: "dns-tcp", protocol: "TCP", port: 53, endpoints: [] },
      ],
    },
  },
  {
    name: "an ExternalName's endpoint: a host name and the Service port, no pod",
    config: {
      service: "default/ext",
      ports: [{ name: "", protocol: "TCP", port: 5432, endpoints: [{ host: "db.example.com", port: 5432 }] }],
    },
    want: {
      service: "default/ext",
      sessionAffinity: "None",
      affinityTimeoutSeconds: 10800,
      ports: [{ name: "", protocol: "TCP", port: 5432, endpoints: [{ host: "db.example.com", port: 5432 }] }],
    },
  },
];

t.test("renderProxyConfig: the contract's fields, in its order", async (t) => {
  for (const c of cases) {
    const text = renderProxyConfig(c.config);
    t.equal(text, `${JSON.stringify(c.want, null, 2)}\n`, c.name);
  }
});

t.test("renderProxyConfig: the same bytes whatever the input's order of keys and endpoints", async (t) => {
  const a = { ip: "10.88.0.5", port: 8080, pod: "api-abc" };
  const b = { pod: "api-def", port: 8080, ip: "10.88.0.6" };
  const one = renderProxyConfig(api([a, b]));
  t.equal(renderProxyConfig({ ports: api([b, a]).ports, service: "default/api" }), one);
  t.ok(one.endsWith("}\n"), "a trailing newline");
});

t.test("renderProxyConfig: does not sort the caller's array", async (t) => {
  const endpoints = [
    { ip: "10.0.0.2", port: 1, pod: "b" },
    { ip: "10.0.0.1", port: 1, pod: "a" },
  ];
  renderProxyConfig(api(endpoints));
  t.same(
    endpoints.map((e) => e.pod),
    ["b", "a"],
  );
});

t.test("the image and the directory the proxy reads", async (t) => {
  t.equal(SERVICE_PROXY_IMAGE, "ghcr.io/podrun/service-proxy:0.1.0");
  t.equal(SERVICE_PROXY_CONFIG_DIR, "/podrun/service");
  t.equal(SERVICE_PROXY_STATUS_DIR, "/podrun/status");
});
