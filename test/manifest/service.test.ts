import t from "tap";
import { formatFieldError, type Reporter } from "../../lib/manifest/field-error.js";
import {
  defaultService,
  findServiceWarnings,
  validateService,
  validateServiceSet,
} from "../../lib/manifest/rules/service.js";
import { checkSchema } from "../../lib/manifest/schema.js";

// The Service's rules as the API server has them on create (ValidateService, the defaults and the
// node port allocator), the Warnings for what podrun does not do, and the node ports of a set.

type Obj = Record<string, unknown>;

function service(spec: Obj = {}, metadata: Obj = {}): Obj {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "api", ...metadata },
    spec: { selector: { app: "api" }, ports: [{ port: 80, targetPort: 8080 }], ...spec },
  };
}

function collect(run: (report: Reporter) => void): string[] {
  const lines: string[] = [];
  run((error) => lines.push(formatFieldError(error)));
  return lines;
}
const errorsOf = (value: unknown) => collect((report) => validateService(value, report));
const warningsOf = (value: unknown) => collect((report) => findServiceWarnings(value, report));

// RelaxedServiceNameValidation (beta, on in v1.36): a DNS-1123 label, which may start with a digit.
const DNS1123 =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const RANGE = "provided port is not in the valid range. The range of valid ports is 30000-32767";

const valid: [string, Obj][] = [
  ["a ClusterIP Service", service()],
  [
    "two named ports, TCP and UDP on one number",
    service({
      ports: [
        { name: "dns", port: 53, protocol: "UDP" },
        { name: "dns-tcp", port: 53, protocol: "TCP" },
      ],
    }),
  ],
  ["a headless Service without ports", service({ clusterIP: "None", ports: [] })],
  ["an ExternalName Service without ports", service({ type: "ExternalName", externalName: "db.example.com." })],
  ["a targetPort by name", service({ ports: [{ port: 80, targetPort: "http" }] })],
  [
    "a NodePort Service with its node port, shared by TCP and UDP of one port",
    service({
      type: "NodePort",
      ports: [
        { name: "a", port: 53, protocol: "UDP", nodePort: 30053 },
        { name: "b", port: 53, protocol: "TCP", nodePort: 30053 },
      ],
    }),
  ],
  [
    "a LoadBalancer Service with every field it allows",
    service({
      type: "LoadBalancer",
      ports: [{ port: 443, nodePort: 32767 }],
      loadBalancerSourceRanges: [" 10.0.0.0/8", "2001:db8::/64"],
      loadBalancerClass: "example.com/lb",
      allocateLoadBalancerNodePorts: false,
      externalTrafficPolicy: "Local",
      healthCheckNodePort: 30100,
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 86400 } },
      trafficDistribution: "PreferSameNode",
    }),
  ],
  ["a fixed cluster IP", service({ clusterIP: "10.96.0.10", clusterIPs: ["10.96.0.10"], ipFamilies: ["IPv4"] })],
  ["a dual-stack pair", service({ clusterIP: "10.96.0.10", clusterIPs: ["10.96.0.10", "fd00::10"] })],
  ["external IPs on a ClusterIP Service", service({ externalIPs: ["203.0.113.7"], externalTrafficPolicy: "Cluster" })],
];

t.test("valid Services give no error", async (t) => {
  for (const [name, value] of valid) t.same(errorsOf(value), [], name);
});

const rejected: [string, Obj, string[]][] = [
  [
    "a name that is not a DNS-1123 label",
    service({}, { name: "Api" }),
    [`metadata.name: Invalid value: "Api": ${DNS1123}`],
  ],
  [
    "a name with a dot",
    service({}, { name: "api.v1" }),
    ['metadata.name: Invalid value: "api.v1": must not contain dots'],
  ],
  ["no ports", service({ ports: [] }), ["spec.ports: Required value"]],
  ["no ports and no spec", { metadata: { name: "api" } }, ["spec.ports: Required value"]],
  [
    "two ports, one unnamed",
    service({ ports: [{ name: "a", port: 80 }, { port: 81 }] }),
    ["spec.ports[1].name: Required value"],
  ],
  [
    "a port name that is not a DNS label, and a duplicate",
    service({
      ports: [
        { name: "Web", port: 80 },
        { name: "b", port: 81 },
        { name: "b", port: 82 },
      ],
    }),
    [
      `spec.ports[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      'spec.ports[2].name: Duplicate value: "b"',
    ],
  ],
  [
    "ports out of range",
    service({ ports: [{ port: 0, targetPort: 70000 }] }),
    [
      "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
      "spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    ],
  ],
  [
    "a targetPort name that is not an IANA_SVC_NAME",
    service({ ports: [{ port: 80, targetPort: "http--alt-port-name" }] }),
    [
      'spec.ports[0].targetPort: Invalid value: "http--alt-port-name": must be no more than 15 characters',
      'spec.ports[0].targetPort: Invalid value: "http--alt-port-name": must not contain consecutive hyphens',
    ],
  ],
  [
    "a duplicate port and protocol, TCP by default",
    service({
      ports: [
        { name: "a", port: 80 },
        { name: "b", port: 80, protocol: "TCP", targetPort: 81 },
      ],
    }),
    ['spec.ports[1]: Duplicate value: {"protocol":"TCP","port":80}'],
  ],
  [
    "an appProtocol that is not a qualified name",
    service({ ports: [{ port: 80, appProtocol: "-h2c" }] }),
    [
      `spec.ports[0].appProtocol: Invalid value: "-h2c": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
  ],
  [
    "a nodePort on a ClusterIP Service",
    service({ ports: [{ port: 80, nodePort: 30080 }] }),
    ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
  ],
  [
    "a headless Service with a nodePort",
    service({ clusterIP: "None", ports: [{ port: 80, nodePort: 30080 }] }),
    ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
  ],
  [
    "a headless NodePort Service",
    service({ type: "NodePort", clusterIP: "None" }),
    [`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`],
  ],
  [
    "a headless LoadBalancer on the kubelet's port",
    service({ type: "LoadBalancer", clusterIP: "None", ports: [{ port: 10250 }] }),
    [
      "spec.ports[0]: Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet",
      `spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for LoadBalancer services`,
    ],
  ],
  [
    "node ports out of the range, and one twice",
    service({
      type: "NodePort",
      ports: [
        { name: "a", port: 80, nodePort: 80 },
        { name: "b", port: 81, nodePort: 40000 },
        { name: "c", port: 82, nodePort: 30082 },
        { name: "d", port: 83, nodePort: 30082 },
        { name: "e", port: 84, nodePort: 30082, protocol: "UDP" },
      ],
    }),
    [
      "spec.ports[3].nodePort: Duplicate value: 30082",
      `spec.ports[0].nodePort: Invalid value: 80: ${RANGE}`,
      `spec.ports[1].nodePort: Invalid value: 40000: ${RANGE}`,
      "spec.ports[4].nodePort: Invalid value: 30082: provided port is already allocated",
    ],
  ],
  [
    "an ExternalName Service without its name, with a cluster IP and families",
    service({ type: "ExternalName", clusterIP: "10.0.0.1", ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" }),
    [
      "spec.clusterIPs: Forbidden: may not be set for ExternalName services",
      "spec.ipFamilies: Forbidden: may not be set for ExternalName services",
      "spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services",
      "spec.externalName: Required value",
    ],
  ],
  [
    "an externalName that is not a DNS subdomain",
    service({ type: "ExternalName", externalName: "DB_host." }),
    [
      `spec.externalName: Invalid value: "DB_host": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  ],
  [
    "selector labels",
    service({ selector: { "app/x/y": "ok", tier: "-web" } }),
    [
      `spec.selector[app/x/y]: Invalid value: "app/x/y": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      `spec.selector[tier]: Invalid value: "-web": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ],
  ],
  [
    "an affinity timeout out of range",
    service({ sessionAffinity: "ClientIP", sessionAffinityConfig: { clientIP: { timeoutSeconds: 86401 } } }),
    [
      "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400",
    ],
  ],
  [
    "a zero affinity timeout",
    service({ sessionAffinity: "ClientIP", sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } } }),
    [
      "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400",
    ],
  ],
  [
    "a clusterIP that is not an IP",
    service({ clusterIP: "10.0.0.300" }),
    ['spec.clusterIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
  ],
  [
    "clusterIPs not led by clusterIP",
    service({ clusterIP: "10.0.0.1", clusterIPs: ["10.0.0.2"] }),
    ['spec.clusterIPs: Invalid value: ["10.0.0.2"]: first value must match `clusterIP`'],
  ],
  [
    "clusterIPs without clusterIP",
    service({ clusterIPs: ["10.0.0.2"] }),
    ['spec.clusterIPs: Invalid value: ["10.0.0.2"]: must be empty when `clusterIP` is not specified'],
  ],
  [
    "None with a second address",
    service({ clusterIP: "None", clusterIPs: ["None", "10.0.0.2"] }),
    [`spec.clusterIPs: Invalid value: ["None","10.0.0.2"]: 'None' must be the first and only value`],
  ],
  [
    "two addresses of one family, and a single-stack policy",
    service({ clusterIP: "10.0.0.1", clusterIPs: ["10.0.0.1", "10.0.0.2"], ipFamilyPolicy: "SingleStack" }),
    [
      'spec.clusterIPs: Invalid value: ["10.0.0.1","10.0.0.2"]: may specify no more than one IP for each IP family',
      `spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified`,
    ],
  ],
  [
    "families that do not match the addresses, or repeat",
    service({ clusterIP: "10.0.0.1", ipFamilies: ["IPv6", "IPv6", ""] }),
    [
      'spec.ipFamilies[1]: Duplicate value: "IPv6"',
      'spec.ipFamilies[2]: Unsupported value: "": supported values: "IPv4", "IPv6"',
      'spec.clusterIPs[0]: Invalid value: "10.0.0.1": expected an IPv6 value as indicated by `ipFamilies[0]`',
    ],
  ],
  [
    "external IPs that are not IPs or are special",
    service({ externalIPs: ["example.com", "127.0.0.1", "0.0.0.0", "fe80::1", "224.0.0.5", "::1"] }),
    [
      'spec.externalIPs[0]: Invalid value: "example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'spec.externalIPs[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'spec.externalIPs[2]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
      'spec.externalIPs[3]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
      'spec.externalIPs[4]: Invalid value: "224.0.0.5": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
      'spec.externalIPs[5]: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ],
  ],
  [
    "source ranges on a ClusterIP Service, one not a CIDR",
    service({ loadBalancerSourceRanges: ["10.0.0.0/8", "10.0.0.0/33", "10.0.0.1"] }),
    [
      "spec.loadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
      'spec.loadBalancerSourceRanges[1]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      'spec.loadBalancerSourceRanges[2]: Invalid value: "10.0.0.1": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ],
  ],
  [
    "the source ranges annotation",
    service(
      { type: "LoadBalancer" },
      { annotations: { "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8, nope" } },
    ),
    [
      'metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ],
  ],
  [
    "load balancer fields on a NodePort Service",
    service({ type: "NodePort", allocateLoadBalancerNodePorts: true, loadBalancerClass: "x" }),
    [
      "spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'",
      "spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'",
    ],
  ],
  [
    "an externalTrafficPolicy and a health check port where they have no meaning",
    service({ externalTrafficPolicy: "Cluster", healthCheckNodePort: 30100 }),
    [
      'spec.externalTrafficPolicy: Invalid value: "Cluster": may only be set for externally-accessible services',
      "spec.healthCheckNodePort: Invalid value: 30100: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
    ],
  ],
  [
    "a health check port out of the node port range",
    service({ type: "LoadBalancer", externalTrafficPolicy: "Local", healthCheckNodePort: 8080 }),
    [`spec.healthCheckNodePort: Invalid value: 8080: ${RANGE}`],
  ],
  [
    "an unknown trafficDistribution",
    service({ trafficDistribution: "Nearest" }),
    [
      'spec.trafficDistribution: Unsupported value: "Nearest": supported values: "PreferClose", "PreferSameZone", "PreferSameNode"',
    ],
  ],
  [
    "topology annotations that disagree",
    service(
      {},
      {
        annotations: {
          "service.kubernetes.io/topology-mode": "Auto",
          "service.kubernetes.io/topology-aware-hints": "Disabled",
        },
      },
    ),
    [
      'metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Auto": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified',
    ],
  ],
];

t.test("the API server's rules, with its paths and messages", async (t) => {
  for (const [name, value, want] of rejected) t.same(errorsOf(value), want, name);
});

t.test("values of the wrong type are the structural checker's, and never throw", async (t) => {
  const value = service({ ports: [{ port: "80", nodePort: "x", targetPort: true }, 5], clusterIP: 7, selector: [] });
  const schema = collect((report) => checkSchema(value, "Service", report));
  t.ok(schema.length > 0);
  t.same(errorsOf(value), []);
  t.same(errorsOf(service({ ports: "80" })), []);
  // Values outside the schema's enums are the structural checker's too: reported once, by it.
  const enums = service({
    type: "NodePort",
    sessionAffinity: "Cookie",
    externalTrafficPolicy: "Nearest",
    internalTrafficPolicy: "Nearest",
    ipFamilyPolicy: "Dual",
    ports: [{ port: 80, protocol: "ICMP" }],
  });
  t.equal(collect((report) => checkSchema(enums, "Service", report)).length, 5);
  t.same(errorsOf(enums), []);
  t.same(errorsOf(service({ type: "Internal" })), []);
  for (const junk of [null, 5, "svc", [], { spec: 5 }, { spec: { ports: "x" } }]) {
    t.doesNotThrow(() => errorsOf(junk));
    t.doesNotThrow(() => warningsOf(junk));
  }
});

t.test("Warnings: what podrun does not do with a valid Service", async (t) => {
  t.same(warningsOf(service()), []);
  t.same(warningsOf(service({ type: "ExternalName", externalName: "db.example.com", selector: undefined })), []);
  t.same(
    warningsOf(service({ type: "ExternalName", externalName: "db.example.com", selector: undefined, ports: [] })),
    [
      "spec.ports: Forbidden: an ExternalName Service without ports relays nothing with podrun (the engines' DNS has no CNAME record): clients reach nothing through its name. List the ports its clients use (valid on a cluster too) and podrun relays each of them to the external name",
    ],
    "an ExternalName Service without ports",
  );
  t.same(warningsOf(service({ clusterIP: "None" })), []);
  const cases: [string, Obj, string[]][] = [
    [
      "an SCTP port",
      service({ ports: [{ port: 80, protocol: "SCTP" }] }),
      ["spec.ports[0].protocol: Forbidden: podrun relays TCP and UDP; SCTP ports are not forwarded"],
    ],
    [
      "a fixed cluster IP",
      service({ clusterIP: "10.96.0.10" }),
      [
        "spec.clusterIP: Forbidden: podrun gives the Service an address on its own network: the fixed clusterIP is not used",
      ],
    ],
    [
      "no selector",
      service({ selector: undefined }),
      [
        "spec: Forbidden: a Service without a selector has no endpoints: podrun makes no Endpoints objects, so its name resolves and connections are refused",
      ],
    ],
    [
      "an empty selector",
      service({ selector: {} }),
      [
        "spec.selector: Forbidden: a Service without a selector has no endpoints: podrun makes no Endpoints objects, so its name resolves and connections are refused",
      ],
    ],
    [
      "every load balancer field",
      service({
        type: "LoadBalancer",
        externalIPs: ["203.0.113.7"],
        loadBalancerIP: "203.0.113.8",
        loadBalancerSourceRanges: ["10.0.0.0/8"],
        loadBalancerClass: "example.com/lb",
        externalTrafficPolicy: "Local",
        internalTrafficPolicy: "Local",
        healthCheckNodePort: 30100,
        trafficDistribution: "PreferClose",
        ipFamilies: ["IPv6"],
        allocateLoadBalancerNodePorts: false,
      }),
      [
        "spec.externalIPs: Forbidden: podrun binds no external IPs: the Service is reached by its name and nodePorts",
        "spec.loadBalancerIP: Forbidden: podrun publishes a LoadBalancer on this machine: loadBalancerIP is not used",
        "spec.loadBalancerSourceRanges: Forbidden: podrun does not filter clients by address: the ranges are not enforced",
        "spec.loadBalancerClass: Forbidden: podrun publishes every LoadBalancer itself: loadBalancerClass is not used",
        "spec.externalTrafficPolicy: Forbidden: podrun is one node, where every endpoint is local: traffic goes to all of them, as with Cluster",
        "spec.internalTrafficPolicy: Forbidden: podrun is one node, where every endpoint is local: traffic goes to all of them, as with Cluster",
        "spec.healthCheckNodePort: Forbidden: podrun serves no health check node port: it is not used",
        "spec.trafficDistribution: Forbidden: podrun is one node: traffic goes to every endpoint, trafficDistribution changes nothing",
        "spec.ipFamilies: Forbidden: podrun's network is IPv4 only: the Service gets an IPv4 address",
        "spec.allocateLoadBalancerNodePorts: Forbidden: not honoured by podrun: the LoadBalancer gets node ports as when it is true",
      ],
    ],
    [
      "a dual-stack policy",
      service({ ipFamilyPolicy: "PreferDualStack" }),
      ["spec.ipFamilyPolicy: Forbidden: podrun's network is IPv4 only: the Service gets an IPv4 address"],
    ],
    [
      "an affinity config the defaults drop",
      service({ sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } }),
      ["spec.sessionAffinityConfig: Forbidden: dropped, as the API server drops it: sessionAffinity is not ClientIP"],
    ],
  ];
  for (const [name, value, want] of cases) {
    t.same(errorsOf(value), [], `${name} is valid`);
    t.same(warningsOf(value), want, name);
  }
});

t.test("node ports are one range for the whole set: the second Service is refused, naming the first", async (t) => {
  const nodePort = (name: string, namespace: string, ports: Obj[], type = "NodePort") =>
    service({ type, ports }, { name, namespace });
  const services = [
    nodePort("web", "shop", [{ port: 80, nodePort: 30080 }]),
    // Another protocol is still the same node port, to the allocator.
    nodePort("dns", "shop", [{ port: 53, protocol: "UDP", nodePort: 30080 }]),
    // Within one Service, one port number's TCP and UDP share it.
    nodePort(
      "game",
      "default",
      [
        { name: "a", port: 7000, nodePort: 30700 },
        { name: "b", port: 7000, protocol: "UDP", nodePort: 30700 },
      ],
      "LoadBalancer",
    ),
    nodePort("game2", "default", [{ port: 7000, nodePort: 30700 }], "LoadBalancer"),
    // A ClusterIP Service's nodePort is its own error, and takes nothing.
    service({ ports: [{ port: 80, nodePort: 30800 }] }, { name: "internal" }),
    nodePort("other", "default", [{ port: 80, nodePort: 30800 }]),
  ];
  const lines: string[] = [];
  validateServiceSet(
    services.map((value) => ({
      value,
      report: (error) => lines.push(`${(value.metadata as Obj).name as string}: ${formatFieldError(error)}`),
    })),
  );
  t.same(lines, [
    "dns: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated (to Service shop/web)",
    "game2: spec.ports[0].nodePort: Invalid value: 30700: provided port is already allocated (to Service default/game)",
  ]);
});

t.test("defaultService fills what the API server fills, and keeps its input", async (t) => {
  const input = service({
    type: "LoadBalancer",
    ports: [{ port: 80 }, { port: 53, protocol: "UDP", targetPort: "dns" }],
    clusterIP: "10.96.0.10",
    sessionAffinity: "ClientIP",
  });
  const copy = structuredClone(input);
  const out = defaultService(input);
  t.same(input, copy);
  t.same(out.metadata, { name: "api", namespace: "default" });
  t.same(out.spec, {
    selector: { app: "api" },
    ports: [
      { port: 80, protocol: "TCP", targetPort: 80 },
      { port: 53, protocol: "UDP", targetPort: "dns" },
    ],
    type: "LoadBalancer",
    clusterIP: "10.96.0.10",
    clusterIPs: ["10.96.0.10"],
    sessionAffinity: "ClientIP",
    sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    externalTrafficPolicy: "Cluster",
    internalTrafficPolicy: "Cluster",
    allocateLoadBalancerNodePorts: true,
  });
  const plain = defaultService(service({ sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } }));
  t.same(plain.spec?.type, "ClusterIP");
  t.same(plain.spec?.sessionAffinity, "None");
  t.equal(plain.spec?.sessionAffinityConfig, undefined);
  t.equal(plain.spec?.externalTrafficPolicy, undefined);
  const external = defaultService(service({ type: "ExternalName", externalName: "x.example.com" }));
  t.equal(external.spec?.internalTrafficPolicy, undefined);
});
