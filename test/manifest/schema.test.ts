// The structural schema check: one table of manifests and the exact lines they must print, then
// robustness (never throw), the known-field helper and the generated file being current.
import { readFileSync } from "node:fs";
import t from "tap";
import { formatFieldError } from "../../lib/manifest/field-error.js";
import { FieldPath } from "../../lib/manifest/field-path.js";
import { checkSchema, isKnownField, schema, type SchemaKind } from "../../lib/manifest/schema.js";

function check(value: unknown, kind: SchemaKind = "Pod", root?: FieldPath): string[] {
  const lines: string[] = [];
  checkSchema(value, kind, (error) => lines.push(formatFieldError(error)), root);
  return lines;
}

type Obj = Record<string, unknown>;

/** A minimal valid Pod whose spec (and first container) the cases patch. */
function pod(spec: Obj = {}, container: Obj = {}, extra: Obj = {}): Obj {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: { containers: [{ name: "app", image: "nginx:1.27", ...container }], ...spec },
    ...extra,
  };
}

const C0 = "spec.containers[0]";

interface Case {
  name: string;
  kind?: SchemaKind;
  value: unknown;
  want: string[];
}

const cases: Case[] = [
  // Unknown fields, reported on the object that holds them.
  { name: "unknown field at the root", value: pod({}, {}, { extra: 1 }), want: ['unknown field "extra"'] },
  {
    name: "unknown field in metadata",
    value: pod({}, {}, { metadata: { name: "web", lables: { app: "web" } } }),
    want: ['metadata: unknown field "lables"'],
  },
  {
    name: "unknown field in spec",
    value: pod({ restartPolicyy: "Always" }),
    want: ['spec: unknown field "restartPolicyy"'],
  },
  {
    name: "unknown field in containers[1]",
    value: pod({
      containers: [
        { name: "a", image: "x" },
        { name: "b", image: "y", imagePullPolicyy: "Always" },
      ],
    }),
    want: ['spec.containers[1]: unknown field "imagePullPolicyy"'],
  },
  {
    name: "unknown field in a volume source",
    value: pod({ volumes: [{ name: "cfg", configMap: { name: "cfg", itemz: [] } }] }),
    want: ['spec.volumes[0].configMap: unknown field "itemz"'],
  },
  {
    name: "unknown fields in a probe and its handler",
    value: pod({}, { livenessProbe: { initialDelay: 5, httpGet: { port: 8080, pathh: "/healthz" } } }),
    want: [`${C0}.livenessProbe: unknown field "initialDelay"`, `${C0}.livenessProbe.httpGet: unknown field "pathh"`],
  },
  {
    name: "unknown field in status",
    value: pod({}, {}, { status: { phase: "Running", bogus: true } }),
    want: ['status: unknown field "bogus"'],
  },
  {
    name: "prototype keys are plain unknown fields",
    value: JSON.parse('{"spec":{"containers":[{"name":"a","__proto__":{"x":1},"constructor":1}]}}'),
    want: [`${C0}: unknown field "__proto__"`, `${C0}: unknown field "constructor"`],
  },

  // Wrong JSON types; the checker does not descend into them.
  {
    name: "string for an integer",
    value: pod({}, { ports: [{ containerPort: "80" }] }),
    want: [`${C0}.ports[0].containerPort: Invalid value: "80": must be an integer`],
  },
  {
    name: "integer for a string",
    value: pod({}, { image: 5 }),
    want: [`${C0}.image: Invalid value: 5: must be a string`],
  },
  {
    name: "object for a list",
    value: pod({ containers: { name: "app" } }),
    want: ['spec.containers: Invalid value: {"name":"app"}: must be a list'],
  },
  {
    name: "list for an object",
    value: pod({}, { securityContext: ["privileged"] }),
    want: [`${C0}.securityContext: Invalid value: ["privileged"]: must be an object`],
  },
  {
    name: "float for an int32",
    value: pod({}, { ports: [{ containerPort: 3.5 }] }),
    want: [`${C0}.ports[0].containerPort: Invalid value: 3.5: must be an integer`],
  },
  {
    name: "int32 out of range",
    value: pod({}, { ports: [{ containerPort: 4294967296 }] }),
    want: [`${C0}.ports[0].containerPort: Invalid value: 4294967296: must be a 32-bit integer`],
  },
  {
    name: "float for an int64",
    value: pod({ terminationGracePeriodSeconds: 1.5 }),
    want: ["spec.terminationGracePeriodSeconds: Invalid value: 1.5: must be an integer"],
  },
  {
    name: "string for a boolean",
    value: pod({ hostNetwork: "true" }),
    want: ['spec.hostNetwork: Invalid value: "true": must be a boolean'],
  },
  {
    name: "non-string item of a string list",
    value: pod({}, { command: ["sh", "-c", 1] }),
    want: [`${C0}.command[2]: Invalid value: 1: must be a string`],
  },
  {
    name: "scalar spec",
    value: pod({}, {}, { spec: "nginx" }),
    want: ['spec: Invalid value: "nginx": must be an object'],
  },
  {
    name: "containers of the wrong type: no descent",
    value: pod({ containers: "app" }),
    want: ['spec.containers: Invalid value: "app": must be a list'],
  },
  {
    name: "list item of the wrong type",
    value: pod({ containers: [{ name: "a" }, "b", 3] }),
    want: [
      'spec.containers[1]: Invalid value: "b": must be an object',
      "spec.containers[2]: Invalid value: 3: must be an object",
    ],
  },

  // Enums.
  {
    name: "imagePullPolicy enum",
    value: pod({}, { imagePullPolicy: "always" }),
    want: [`${C0}.imagePullPolicy: Unsupported value: "always": supported values: "Always", "IfNotPresent", "Never"`],
  },
  {
    name: "restartPolicy enum",
    value: pod({ restartPolicy: "Sometimes" }),
    want: ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"'],
  },
  {
    name: "protocol enum",
    value: pod({}, { ports: [{ containerPort: 80, protocol: "tcp" }] }),
    want: [`${C0}.ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"`],
  },
  {
    name: "dnsPolicy enum",
    value: pod({ dnsPolicy: "ClusterFirstt" }),
    want: [
      'spec.dnsPolicy: Unsupported value: "ClusterFirstt": supported values: "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"',
    ],
  },
  {
    name: "probe scheme enum",
    value: pod({}, { readinessProbe: { httpGet: { port: 80, scheme: "http" } } }),
    want: [`${C0}.readinessProbe.httpGet.scheme: Unsupported value: "http": supported values: "HTTP", "HTTPS"`],
  },
  {
    name: "enum on the items of a list",
    value: pod({
      volumes: [
        {
          name: "scratch",
          ephemeral: {
            volumeClaimTemplate: {
              spec: { accessModes: ["ReadWriteOnce", "RWX"], resources: { requests: { storage: "1Gi" } } },
            },
          },
        },
      ],
    }),
    want: [
      'spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes[1]: Unsupported value: "RWX": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    ],
  },
  {
    name: "an enum value of the wrong type is a type error",
    value: pod({ restartPolicy: 1 }),
    want: ["spec.restartPolicy: Invalid value: 1: must be a string"],
  },
  {
    name: "hostPath type may be empty",
    value: pod({ volumes: [{ name: "h", hostPath: { path: "/tmp", type: "" } }] }),
    want: [],
  },

  // OpenAPI-required fields.
  {
    name: "container name required",
    value: pod({ containers: [{ image: "nginx" }] }),
    want: [`${C0}.name: Required value`],
  },
  { name: "spec.containers required", value: pod({}, {}, { spec: {} }), want: ["spec.containers: Required value"] },
  { name: "required field set to null", value: pod({ containers: null }), want: ["spec.containers: Required value"] },
  { name: "null container is an empty one", value: pod({ containers: [null] }), want: [`${C0}.name: Required value`] },
  {
    name: "containerPort required",
    value: pod({}, { ports: [{ name: "http" }] }),
    want: [`${C0}.ports[0].containerPort: Required value`],
  },
  { name: "env name required", value: pod({}, { env: [{ value: "x" }] }), want: [`${C0}.env[0].name: Required value`] },
  {
    name: "volumeMount name and mountPath required",
    value: pod({}, { volumeMounts: [{ readOnly: true }] }),
    want: [`${C0}.volumeMounts[0].mountPath: Required value`, `${C0}.volumeMounts[0].name: Required value`],
  },
  {
    name: "configMapKeyRef key required",
    value: pod({}, { env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "cfg" } } }] }),
    want: [`${C0}.env[0].valueFrom.configMapKeyRef.key: Required value`],
  },
  { name: "image is not OpenAPI-required", value: pod({ containers: [{ name: "a" }] }), want: [] },
  {
    name: "explicit nulls of optional fields are absent",
    value: pod(
      { hostNetwork: null, volumes: null },
      { image: null, ports: null, env: [{ name: "A", value: null }] },
      { metadata: null },
    ),
    want: [],
  },
  {
    name: "null map values and scalar list items decode to zero values",
    value: pod(
      { nodeSelector: { disk: null } },
      { args: [null] },
      { metadata: { name: "web", labels: { app: null } } },
    ),
    want: [],
  },

  // IntOrString and Quantity.
  {
    name: "IntOrString accepts an integer and a string",
    value: pod({}, { livenessProbe: { httpGet: { port: 8080 } }, readinessProbe: { tcpSocket: { port: "http" } } }),
    want: [],
  },
  {
    name: "IntOrString rejects a float, a boolean and a 64-bit integer",
    value: pod(
      {},
      {
        livenessProbe: { httpGet: { port: 80.5 } },
        readinessProbe: { tcpSocket: { port: true } },
        startupProbe: { tcpSocket: { port: 2 ** 40 } },
      },
    ),
    want: [
      `${C0}.livenessProbe.httpGet.port: Invalid value: 80.5: must be a string or an integer`,
      `${C0}.readinessProbe.tcpSocket.port: Invalid value: true: must be a string or an integer`,
      `${C0}.startupProbe.tcpSocket.port: Invalid value: 1099511627776: must be a string or a 32-bit integer`,
    ],
  },
  {
    name: "Quantity accepts strings and numbers",
    value: pod(
      {},
      {
        resources: {
          limits: { cpu: 2, memory: "128Mi" },
          requests: { cpu: "500m", memory: 1e8, "nvidia.com/gpu": 0.5 },
        },
      },
    ),
    want: [],
  },
  {
    name: "Quantity rejects other types and unparsable strings",
    value: pod({}, { resources: { limits: { cpu: true, memory: "12 apples" } } }),
    want: [
      `${C0}.resources.limits[cpu]: Invalid value: true: must be a string or a number`,
      `${C0}.resources.limits[memory]: Invalid value: "12 apples": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    ],
  },

  // Maps of strings.
  {
    name: "labels, annotations and nodeSelector values must be strings",
    value: pod(
      { nodeSelector: { disk: { type: "ssd" } } },
      {},
      { metadata: { name: "web", labels: { tier: 1 }, annotations: { ok: "yes", on: true } } },
    ),
    want: [
      "metadata.labels[tier]: Invalid value: 1: must be a string",
      "metadata.annotations[on]: Invalid value: true: must be a string",
      'spec.nodeSelector[disk]: Invalid value: {"type":"ssd"}: must be a string',
    ],
  },
  {
    name: "labels must be a map",
    value: pod({}, {}, { metadata: { labels: ["app"] } }),
    want: ['metadata.labels: Invalid value: ["app"]: must be an object'],
  },

  // Kubernetes 1.30+ fields the schema must know.
  {
    name: "sidecar restartPolicy, resizePolicy and image volumes",
    value: pod({
      initContainers: [{ name: "proxy", image: "envoy", restartPolicy: "Always" }],
      containers: [
        {
          name: "app",
          image: "app",
          resizePolicy: [{ resourceName: "cpu", restartPolicy: "NotRequired" }],
          volumeMounts: [{ name: "model", mountPath: "/model", readOnly: true }],
        },
      ],
      volumes: [{ name: "model", image: { reference: "quay.io/models/llm:v1", pullPolicy: "IfNotPresent" } }],
    }),
    want: [],
  },

  // ConfigMap.
  {
    name: "valid ConfigMap",
    kind: "ConfigMap",
    value: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cfg", namespace: "default", labels: { app: "web" } },
      data: { "app.conf": "listen 80;\n", EMPTY: "" },
      binaryData: { "logo.png": "iVBORw0KGgo=", "wrapped.bin": "YWJj\nZGVm" },
      immutable: true,
    },
    want: [],
  },
  {
    name: "invalid ConfigMap",
    kind: "ConfigMap",
    value: {
      apiVersion: "v1",
      kind: "ConfigMap",
      dataa: {},
      data: { port: 80 },
      binaryData: { x: "not base64!" },
      immutable: "yes",
    },
    want: [
      'unknown field "dataa"',
      "data[port]: Invalid value: 80: must be a string",
      'binaryData[x]: Invalid value: "not base64!": must be base64-encoded',
      'immutable: Invalid value: "yes": must be a boolean',
    ],
  },
  {
    name: "ConfigMap data must be a map",
    kind: "ConfigMap",
    value: { data: ["a=b"] },
    want: ['data: Invalid value: ["a=b"]: must be an object'],
  },
  {
    name: "ConfigMap does not know Secret fields",
    kind: "ConfigMap",
    value: { stringData: {} },
    want: ['unknown field "stringData"'],
  },

  // Secret.
  {
    name: "valid Secret with a built-in type",
    kind: "Secret",
    value: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "db" },
      type: "kubernetes.io/basic-auth",
      data: { username: "YWRtaW4=", password: "cGFzc3dvcmQ=" },
      stringData: { note: "plain text" },
      immutable: false,
    },
    want: [],
  },
  {
    name: "Secret type is not an enum",
    kind: "Secret",
    value: { type: "example.com/custom", stringData: { a: "b" } },
    want: [],
  },
  {
    name: "invalid Secret",
    kind: "Secret",
    value: { strinData: {}, data: { a: 1, b: "YWJ" }, stringData: { c: 2 }, type: 5 },
    want: [
      'unknown field "strinData"',
      "data[a]: Invalid value: 1: must be a string",
      'data[b]: Invalid value: "YWJ": must be base64-encoded',
      "stringData[c]: Invalid value: 2: must be a string",
      "type: Invalid value: 5: must be a string",
    ],
  },

  // Service (its schema comes ahead of its kind table entry).
  {
    name: "valid Service",
    kind: "Service",
    value: {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "api" },
      spec: {
        type: "NodePort",
        selector: { app: "api" },
        ports: [{ name: "http", port: 80, targetPort: "http", nodePort: 30080, protocol: "TCP" }],
        sessionAffinity: "ClientIP",
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
        ipFamilies: ["IPv4"],
        externalTrafficPolicy: "Cluster",
      },
    },
    want: [],
  },
  {
    name: "invalid Service",
    kind: "Service",
    value: {
      spec: {
        type: "Internal",
        ports: [{ name: "http", targetPort: 8080.5, protocol: "ICMP", nodePorts: 1 }],
        sessionAffinity: "Cookie",
        publishNotReadyAddresses: "yes",
      },
    },
    want: [
      'spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      "spec.ports[0].targetPort: Invalid value: 8080.5: must be a string or an integer",
      'spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      'spec.ports[0]: unknown field "nodePorts"',
      "spec.ports[0].port: Required value",
      'spec.sessionAffinity: Unsupported value: "Cookie": supported values: "ClientIP", "None"',
      'spec.publishNotReadyAddresses: Invalid value: "yes": must be a boolean',
    ],
  },

  // Roots.
  { name: "apiVersion and kind are accepted as strings", value: { apiVersion: "v1", kind: "Pod" }, want: [] },
  {
    name: "apiVersion must be a string",
    kind: "Secret",
    value: { apiVersion: 1 },
    want: ["apiVersion: Invalid value: 1: must be a string"],
  },
  {
    name: "a list is not an object",
    value: [{ kind: "Pod" }],
    want: ['Invalid value: [{"kind":"Pod"}]: must be an object'],
  },
];

t.test("schema check cases", async (t) => {
  for (const c of cases) t.same(check(c.value, c.kind), c.want, c.name);
});

t.test("a large realistic Pod gives no error", async (t) => {
  t.same(check(realisticPod()), []);
});

t.test("errors are placed under the given root path", async (t) => {
  const lines = check({ spec: { containers: [{ name: 1 }] } }, "Pod", FieldPath.root("items").index(2));
  t.same(lines, ["items[2].spec.containers[0].name: Invalid value: 1: must be a string"]);
});

t.test("never throws", async (t) => {
  const deep: Obj = {};
  let cursor = deep;
  for (let i = 0; i < 100_000; i++) cursor = cursor.next = {};
  const circular: Obj = { name: "loop" };
  circular.self = circular;
  const hostile = new Proxy(
    {},
    {
      ownKeys() {
        throw new Error("boom");
      },
    },
  );
  const junk: unknown[] = [
    undefined,
    null,
    0,
    NaN,
    "pod",
    Symbol("x"),
    () => 1,
    [1, "a", null, [], {}],
    new Map([["spec", {}]]),
    Object.create(null),
    {
      spec: {
        containers: [1, "x", null, [null], { name: [] }, { name: "a", ports: [null, 3, { containerPort: NaN }] }],
      },
    },
    { metadata: { annotations: deep, labels: { a: deep } }, spec: { containers: [{ name: "a", env: [deep] }] } },
    { spec: { containers: [circular], volumes: [{ name: "v", csi: circular }] }, status: circular },
    { spec: hostile },
    hostile,
  ];
  for (const kind of ["Pod", "ConfigMap", "Secret"] as const) {
    for (const value of junk) t.doesNotThrow(() => check(value, kind));
  }
  t.match(check(hostile), [/^Invalid value: null: cannot be checked/]);
  // An object without a prototype is still an object.
  const bare = Object.assign(Object.create(null) as Obj, {
    data: Object.assign(Object.create(null) as Obj, { a: "b" }),
  });
  t.same(check(bare, "ConfigMap"), []);
});

t.test("the schema has no cycle, so checking any input ends", async (t) => {
  const state = new Map<string, "open" | "done">();
  const refs = (expr: unknown): string[] =>
    Array.isArray(expr) ? refs(expr[1]) : typeof expr === "string" && expr.includes(".") ? [expr] : [];
  const visit = (name: string): boolean => {
    if (state.get(name) === "done") return true;
    if (state.get(name) === "open") return false;
    state.set(name, "open");
    const ok = Object.values(schema.types[name]!.f).every((expr) => refs(expr).every(visit));
    state.set(name, "done");
    return ok;
  };
  t.ok(Object.values(schema.roots).every(visit));
});

t.test("isKnownField", async (t) => {
  const known: [SchemaKind, (string | number)[]][] = [
    ["Pod", []],
    ["Pod", ["apiVersion"]],
    ["Pod", ["metadata", "labels", "app"]],
    ["Pod", ["metadata", "managedFields", 0, "fieldsV1"]],
    ["Pod", ["spec", "containers", 0, "image"]],
    ["Pod", ["spec", "initContainers", 1, "restartPolicy"]],
    ["Pod", ["spec", "containers", 0, "resizePolicy", 0, "restartPolicy"]],
    ["Pod", ["spec", "containers", 0, "resources", "limits", "cpu"]],
    ["Pod", ["spec", "containers", 0, "livenessProbe", "httpGet", "port"]],
    ["Pod", ["spec", "containers", 0, "lifecycle", "preStop", "sleep", "seconds"]],
    ["Pod", ["spec", "volumes", 0, "image", "reference"]],
    ["Pod", ["spec", "volumes", 0, "projected", "sources", 0, "serviceAccountToken", "expirationSeconds"]],
    [
      "Pod",
      ["spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"],
    ],
    ["Pod", ["spec", "topologySpreadConstraints", 0, "labelSelector", "matchExpressions", 0, "operator"]],
    ["Pod", ["spec", "securityContext", "seccompProfile", "type"]],
    ["Pod", ["status", "containerStatuses", 0, "state", "running", "startedAt"]],
    ["ConfigMap", ["binaryData", "x"]],
    ["Secret", ["stringData", "x"]],
    ["Secret", ["type"]],
    ["Service", ["spec", "ports", 0, "targetPort"]],
    ["Service", ["spec", "sessionAffinityConfig", "clientIP", "timeoutSeconds"]],
  ];
  for (const [kind, path] of known) t.ok(isKnownField(kind, path), `${kind} ${path.join(".")}`);
  const unknown: [SchemaKind, (string | number)[]][] = [
    ["Pod", ["spec", "containers", 0, "imagePullPolicyy"]],
    ["Pod", ["spec", "containers", "name"]],
    ["Pod", ["metadata", 0]],
    ["Pod", ["spec", "__proto__"]],
    ["Pod", ["spec", "constructor"]],
    ["ConfigMap", ["stringData"]],
    ["Secret", ["spec"]],
  ];
  for (const [kind, path] of unknown) t.notOk(isKnownField(kind, path), `${kind} ${path.join(".")}`);
});

t.test("the generated schema is up to date", async (t) => {
  // Re-runs the generator in memory (a few seconds: it parses the model's .d.ts files).
  const { generateSchema, OUTPUT_FILE } = await import("../../scripts/gen-schema.js");
  const { text } = await generateSchema();
  t.equal(
    readFileSync(OUTPUT_FILE, "utf8"),
    text,
    "run `npm run gen:schema` and commit lib/manifest/schema.generated.ts",
  );
  t.match(schema.source, /^kubernetes-models@\d/);
});

/** A Pod using most of what real manifests use; every field must be known and well typed. */
function realisticPod(): Obj {
  const probe = (path: string) => ({
    httpGet: { path, port: "http", scheme: "HTTP", httpHeaders: [{ name: "X-Probe", value: "1" }] },
    initialDelaySeconds: 5,
    periodSeconds: 10,
    timeoutSeconds: 2,
    successThreshold: 1,
    failureThreshold: 3,
  });
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "shop-7d9f",
      namespace: "prod",
      generateName: "shop-",
      labels: { app: "shop", tier: "web", "app.kubernetes.io/version": "1.4.2" },
      annotations: { "prometheus.io/scrape": "true", "kubectl.kubernetes.io/default-container": "web" },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: "shop-7d9f",
          uid: "0b1e-42",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      finalizers: ["example.com/cleanup"],
      creationTimestamp: null,
      uid: "5f0c-11",
      resourceVersion: "12345",
      generation: 2,
      managedFields: [
        {
          manager: "kubectl",
          operation: "Apply",
          apiVersion: "v1",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:spec": {} },
          time: "2024-05-01T10:00:00Z",
        },
      ],
    },
    spec: {
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      dnsConfig: {
        nameservers: ["1.1.1.1"],
        searches: ["svc.cluster.local"],
        options: [{ name: "ndots", value: "2" }],
      },
      hostname: "shop",
      subdomain: "web",
      hostAliases: [{ ip: "127.0.0.1", hostnames: ["shop.local"] }],
      serviceAccountName: "shop",
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      shareProcessNamespace: true,
      terminationGracePeriodSeconds: 30,
      activeDeadlineSeconds: 3600,
      priorityClassName: "high",
      priority: 1000,
      preemptionPolicy: "PreemptLowerPriority",
      runtimeClassName: "runc",
      schedulerName: "default-scheduler",
      nodeSelector: { "kubernetes.io/os": "linux" },
      os: { name: "linux" },
      imagePullSecrets: [{ name: "registry" }],
      readinessGates: [{ conditionType: "example.com/ready" }],
      schedulingGates: [{ name: "example.com/wait" }],
      hostUsers: false,
      securityContext: {
        runAsUser: 1000,
        runAsGroup: 1000,
        runAsNonRoot: true,
        fsGroup: 2000,
        fsGroupChangePolicy: "OnRootMismatch",
        supplementalGroups: [3000, 4000],
        supplementalGroupsPolicy: "Merge",
        seccompProfile: { type: "RuntimeDefault" },
        appArmorProfile: { type: "RuntimeDefault" },
        sysctls: [{ name: "net.core.somaxconn", value: "1024" }],
        seLinuxOptions: { level: "s0:c123,c456" },
      },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: "disktype", operator: "In", values: ["ssd"] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 50, preference: { matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] } },
          ],
        },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 100,
              podAffinityTerm: {
                labelSelector: {
                  matchLabels: { app: "shop" },
                  matchExpressions: [{ key: "tier", operator: "Exists" }],
                },
                topologyKey: "kubernetes.io/hostname",
                namespaces: ["prod"],
              },
            },
          ],
        },
      },
      tolerations: [
        { key: "dedicated", operator: "Equal", value: "shop", effect: "NoSchedule" },
        { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      ],
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: "topology.kubernetes.io/zone",
          whenUnsatisfiable: "ScheduleAnyway",
          labelSelector: { matchLabels: { app: "shop" } },
        },
      ],
      initContainers: [
        {
          name: "migrate",
          image: "shop/migrate:1.4.2",
          command: ["/bin/migrate"],
          args: ["--to", "latest"],
          envFrom: [
            { configMapRef: { name: "shop-config" } },
            { prefix: "DB_", secretRef: { name: "db", optional: false } },
          ],
          volumeMounts: [{ name: "data", mountPath: "/data", subPath: "migrations" }],
        },
        {
          name: "log-shipper",
          image: "fluent/fluent-bit:3.0",
          restartPolicy: "Always",
          startupProbe: { exec: { command: ["true"] }, failureThreshold: 30, periodSeconds: 1 },
          resources: { requests: { cpu: "50m", memory: "32Mi" } },
          volumeMounts: [{ name: "logs", mountPath: "/var/log/shop", readOnly: true, mountPropagation: "None" }],
        },
      ],
      containers: [
        {
          name: "web",
          image: "shop/web:1.4.2",
          imagePullPolicy: "IfNotPresent",
          workingDir: "/srv",
          ports: [
            { name: "http", containerPort: 8080, protocol: "TCP" },
            { name: "metrics", containerPort: 9090, hostPort: 19090, hostIP: "127.0.0.1" },
          ],
          env: [
            { name: "MODE", value: "production" },
            { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP", apiVersion: "v1" } } },
            {
              name: "MEM_LIMIT",
              valueFrom: { resourceFieldRef: { containerName: "web", resource: "limits.memory", divisor: "1Mi" } },
            },
            { name: "DB_PASSWORD", valueFrom: { secretKeyRef: { name: "db", key: "password" } } },
            {
              name: "FEATURES",
              valueFrom: { configMapKeyRef: { name: "shop-config", key: "features", optional: true } },
            },
          ],
          resources: {
            requests: { cpu: "250m", memory: "256Mi", "ephemeral-storage": "1Gi" },
            limits: { cpu: 1, memory: "512Mi" },
          },
          resizePolicy: [{ resourceName: "cpu", restartPolicy: "NotRequired" }],
          livenessProbe: probe("/healthz"),
          readinessProbe: probe("/ready"),
          startupProbe: { tcpSocket: { port: 8080 }, failureThreshold: 30, periodSeconds: 2 },
          lifecycle: {
            postStart: { exec: { command: ["/bin/sh", "-c", "echo started"] } },
            preStop: { sleep: { seconds: 5 } },
          },
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            privileged: false,
            capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] },
            runAsNonRoot: true,
            procMount: "Default",
          },
          volumeMounts: [
            { name: "config", mountPath: "/etc/shop", readOnly: true },
            { name: "secrets", mountPath: "/run/secrets/shop", readOnly: true, recursiveReadOnly: "IfPossible" },
            { name: "data", mountPath: "/data" },
            { name: "logs", mountPath: "/var/log/shop" },
            { name: "cache", mountPath: "/cache" },
            { name: "token", mountPath: "/var/run/token" },
            { name: "info", mountPath: "/etc/podinfo" },
          ],
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "FallbackToLogsOnError",
          stdin: false,
          tty: false,
        },
        {
          name: "grpc-sidecar",
          image: "shop/grpc:2",
          livenessProbe: { grpc: { port: 9000, service: "health" } },
          ports: [{ containerPort: 9000, protocol: "TCP" }],
        },
      ],
      volumes: [
        {
          name: "config",
          configMap: {
            name: "shop-config",
            defaultMode: 420,
            items: [{ key: "app.conf", path: "app.conf", mode: 256 }],
          },
        },
        { name: "secrets", secret: { secretName: "db", defaultMode: 256, optional: false } },
        { name: "data", persistentVolumeClaim: { claimName: "shop-data", readOnly: false } },
        { name: "logs", emptyDir: {} },
        { name: "cache", emptyDir: { medium: "Memory", sizeLimit: "256Mi" } },
        { name: "host", hostPath: { path: "/var/lib/shop", type: "DirectoryOrCreate" } },
        {
          name: "token",
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { audience: "vault", expirationSeconds: 3600, path: "token" } },
              { configMap: { name: "ca", items: [{ key: "ca.crt", path: "ca.crt" }] } },
              { downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
            ],
          },
        },
        {
          name: "info",
          downwardAPI: {
            items: [
              { path: "cpu", resourceFieldRef: { containerName: "web", resource: "requests.cpu", divisor: "1m" } },
            ],
          },
        },
        { name: "model", image: { reference: "registry.example.com/models/small:1", pullPolicy: "IfNotPresent" } },
        { name: "nfs", nfs: { server: "nfs.example.com", path: "/exports", readOnly: true } },
        {
          name: "csi",
          csi: {
            driver: "secrets-store.csi.k8s.io",
            readOnly: true,
            volumeAttributes: { secretProviderClass: "vault" },
          },
        },
      ],
    },
    status: {
      phase: "Running",
      qosClass: "Burstable",
      podIP: "10.0.0.7",
      podIPs: [{ ip: "10.0.0.7" }],
      startTime: "2024-05-01T10:00:00Z",
      conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:05Z" }],
      containerStatuses: [
        {
          name: "web",
          image: "shop/web:1.4.2",
          imageID: "sha256:abc",
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: "2024-05-01T10:00:02Z" } },
        },
      ],
    },
  };
}

t.test("the built-in kinds podrun does not run are checked as strictly, at each version served", async (t) => {
  const { checkOtherKind, otherSchema } = await import("../../lib/manifest/schema.js");
  const { SERVED_KINDS } = await import("../../lib/manifest/served-kinds.js");
  const { KIND_API_VERSIONS } = await import("../../lib/manifest/kinds.js");
  const expected = Object.entries(SERVED_KINDS)
    .filter(([kind]) => !Object.hasOwn(KIND_API_VERSIONS, kind))
    .flatMap(([kind, versions]) => versions.map((version) => `${version}/${kind}`))
    .sort();
  t.same(Object.keys(otherSchema().roots).sort(), expected, "a root for every other kind at every version served");
  const lines = (value: unknown, apiVersion: string, kind: string) => {
    const found: string[] = [];
    const known = checkOtherKind(value, apiVersion, kind, (error) => found.push(formatFieldError(error)));
    return known ? found : undefined;
  };
  const ingress = (path: unknown) => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name: "web" },
    spec: { rules: [{ http: { paths: [path] } }], tls: true },
  });
  t.same(
    lines(
      ingress({ path: "/", pathType: "Prefixx", backend: { service: { name: "web", port: { number: "80" } } } }),
      "networking.k8s.io/v1",
      "Ingress",
    ),
    [
      'spec.rules[0].http.paths[0].pathType: Unsupported value: "Prefixx": supported values: "Exact", "ImplementationSpecific", "Prefix"',
      'spec.rules[0].http.paths[0].backend.service.port.number: Invalid value: "80": must be an integer',
      "spec.tls: Invalid value: true: must be a list",
    ],
  );
  t.same(
    lines({ apiVersion: "v1", kind: "Service", spec: { ipFamily: "IPv4" } }, "v1", "ServiceAccount"),
    ['unknown field "spec"'],
    "an unknown field at the root",
  );
  t.same(
    lines(
      {
        apiVersion: "batch/v1",
        kind: "CronJob",
        metadata: { name: "c" },
        spec: {
          schedule: "* * * * *",
          jobTemplate: {
            spec: { template: { spec: { containers: [{ name: "c", image: "x", imagePullPolicyy: 1 }] } } },
          },
        },
      },
      "batch/v1",
      "CronJob",
    ),
    ['spec.jobTemplate.spec.template.spec.containers[0]: unknown field "imagePullPolicyy"'],
    "a CronJob's pod template is a Pod's",
  );
  t.same(
    lines(
      { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", spec: { maxReplicas: 3, scaleTargetRef: {} } },
      "autoscaling/v2",
      "HorizontalPodAutoscaler",
    ),
    ["spec.scaleTargetRef.kind: Required value", "spec.scaleTargetRef.name: Required value"],
    "required fields",
  );
  t.same(
    lines(
      {
        spec: {
          versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { maximum: 1.5 } } }],
        },
      },
      "apiextensions.k8s.io/v1",
      "CustomResourceDefinition",
    )?.filter((line) => line.includes("maximum")),
    [],
    "a float where the JSON schema takes one",
  );
  t.equal(lines({}, "networking.k8s.io/v1beta1", "Ingress"), undefined, "no root at a version not served");
});
