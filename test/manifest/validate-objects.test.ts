import t from "tap";
import { formatFieldError, type FieldError } from "../../lib/manifest/field-error.js";
import {
  buildObjectIndex,
  validateConfigMap,
  validatePod,
  validateSecret,
  type ObjectIndex,
} from "../../lib/manifest/validate-objects.js";

// Raw decoded YAML is untyped: the tests build it freely, as plain objects.
type Raw = Record<string, unknown>;
/** A top-level object: its kind is all the object index reads. */
type RawObject = Raw & { kind: string };

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const CONFIG_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
const LABEL_KEY_NAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const ENV_NAME_MSG = "a valid environment variable name must consist only of printable ASCII characters other than '='";
const GRACE = "may not be set for init containers without restartPolicy=Always";

const b64 = (text: string) => Buffer.from(text).toString("base64");

const configMap = (name: string, data: Record<string, string> = {}, namespace?: string): RawObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...(namespace ? { namespace } : {}) },
  data,
});
const secret = (name: string, data: Record<string, string> = {}, extra: Raw = {}): RawObject => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name },
  data,
  ...extra,
});

const DEFAULT_OBJECTS = [
  configMap("app-config", { LOG_LEVEL: "debug", "app.conf": "x" }),
  secret("creds", { PASSWORD: b64("pw") }),
  secret("regcred", { ".dockerconfigjson": b64("{}") }, { type: "kubernetes.io/dockerconfigjson" }),
];

function basePod(): { apiVersion: string; kind: string; metadata: { name: string }; spec: { containers: [Raw] } } {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: { containers: [{ name: "app", image: "busybox:1.36" }] },
  };
}
/** The base pod with fields of spec replaced. */
const withSpec = (patch: Raw): Raw => {
  const pod = basePod();
  Object.assign(pod.spec, patch);
  return pod;
};
/** The base pod with fields of its container replaced. */
const withContainer = (patch: Raw): Raw => {
  const pod = basePod();
  Object.assign(pod.spec.containers[0], patch);
  return pod;
};
const ctr = (name: string, patch: Raw = {}): Raw => ({ name, image: "busybox:1.36", ...patch });
const withVolumes = (pod: Raw, volumes: Raw[]): Raw => {
  Object.assign(pod.spec as Raw, { volumes });
  return pod;
};

function podLines(pod: unknown, objects: readonly RawObject[] = DEFAULT_OBJECTS, index?: ObjectIndex): string[] {
  const lines: string[] = [];
  const report = (e: FieldError) => lines.push(formatFieldError(e));
  validatePod(pod, index ?? buildObjectIndex(objects.map((value) => ({ kind: value.kind, value }))), report);
  return lines;
}
const lines = (validate: (object: unknown, report: (e: FieldError) => void) => void, object: unknown): string[] => {
  const out: string[] = [];
  validate(object, (e) => out.push(formatFieldError(e)));
  return out;
};

type Row = [title: string, pod: Raw, expected: string[], objects?: RawObject[]];

const metadataRows: Row[] = [
  ["name missing", { ...basePod(), metadata: {} }, ["metadata.name: Required value: name or generateName is required"]],
  [
    "generateName only",
    { ...basePod(), metadata: { generateName: "web-" } },
    [
      "metadata.generateName: Forbidden: not supported by podrun, which runs a pod under a fixed name: set metadata.name instead",
    ],
  ],
  [
    "name not a subdomain",
    { ...basePod(), metadata: { name: "Web_1" } },
    [`metadata.name: Invalid value: "Web_1": ${SUBDOMAIN_MSG}`],
  ],
  [
    "name too long",
    { ...basePod(), metadata: { name: "a".repeat(254) } },
    [`metadata.name: Invalid value: "${"a".repeat(254)}": must be no more than 253 characters`],
  ],
  [
    "namespace not a label",
    { ...basePod(), metadata: { name: "web", namespace: "Prod" } },
    [`metadata.namespace: Invalid value: "Prod": ${LABEL_MSG}`],
  ],
  [
    "namespace with dots",
    { ...basePod(), metadata: { name: "web", namespace: "a.b" } },
    ['metadata.namespace: Invalid value: "a.b": must not contain dots'],
  ],
  [
    "label key",
    { ...basePod(), metadata: { name: "web", labels: { "bad key": "x" } } },
    [`metadata.labels[bad key]: Invalid value: "bad key": ${LABEL_KEY_NAME_MSG}`],
  ],
  [
    "label value",
    { ...basePod(), metadata: { name: "web", labels: { app: "-x" } } },
    [`metadata.labels[app]: Invalid value: "-x": ${LABEL_VALUE_MSG}`],
  ],
  [
    "label key prefix",
    { ...basePod(), metadata: { name: "web", labels: { "Example.com/app": "x" } } },
    [`metadata.labels[Example.com/app]: Invalid value: "Example.com/app": prefix part ${SUBDOMAIN_MSG}`],
  ],
  [
    "annotation key",
    { ...basePod(), metadata: { name: "web", annotations: { "a/b/c": "x" } } },
    [
      `metadata.annotations[a/b/c]: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
  ],
  [
    "annotation key case-insensitive",
    { ...basePod(), metadata: { name: "web", annotations: { "Example.COM/Key": "x" } } },
    [],
  ],
];

const containerRows: Row[] = [
  ["no containers", withSpec({ containers: [] }), ["spec.containers: Required value"]],
  ["no spec", { apiVersion: "v1", kind: "Pod", metadata: { name: "web" } }, ["spec.containers: Required value"]],
  [
    "container name",
    withContainer({ name: "App_1" }),
    [`spec.containers[0].name: Invalid value: "App_1": ${LABEL_MSG}`],
  ],
  ["container name missing", withContainer({ name: undefined }), ["spec.containers[0].name: Required value"]],
  [
    "duplicate container",
    withSpec({ containers: [ctr("app"), ctr("app")] }),
    ['spec.containers[1].name: Duplicate value: "app"'],
  ],
  [
    "init clashes with app",
    withSpec({ initContainers: [ctr("app")] }),
    ['spec.initContainers[0].name: Duplicate value: "app"'],
  ],
  ["image missing", withContainer({ image: undefined }), ["spec.containers[0].image: Required value"]],
  ["image empty", withContainer({ image: "" }), ["spec.containers[0].image: Required value"]],
  [
    "image unparsable",
    withContainer({ image: "Busybox" }),
    [
      'spec.containers[0].image: Invalid value: "Busybox": invalid reference format: repository name (library/Busybox) must be lowercase',
    ],
  ],
  [
    "image bad digest",
    withContainer({ image: "x@sha256:abc" }),
    ['spec.containers[0].image: Invalid value: "x@sha256:abc": invalid reference format'],
  ],
  [
    "image whitespace",
    withContainer({ image: " busybox" }),
    ['spec.containers[0].image: Invalid value: " busybox": must not have leading or trailing whitespace'],
  ],
  [
    "hostnameOverride: a DNS subdomain of at most 64 characters, not with setHostnameAsFQDN or hostNetwork",
    withSpec({
      hostnameOverride: `Bad_${"x".repeat(61)}`,
      setHostnameAsFQDN: true,
      hostNetwork: true,
      containers: [ctr("a")],
    }),
    [
      `spec.hostnameOverride: Invalid value: "Bad_${"x".repeat(61)}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `spec.hostnameOverride: Invalid value: "Bad_${"x".repeat(61)}": must be no more than 64 characters`,
      "spec.setHostnameAsFQDN: Invalid value: true: cannot be set with hostnameOverride",
      "spec.hostNetwork: Invalid value: true: cannot be set with hostnameOverride",
    ],
  ],
  [
    "a container's restartPolicy and restartPolicyRules (ContainerRestartRules, on by default)",
    withSpec({
      containers: [
        ctr("a", { restartPolicy: "Sometimes" }),
        ctr("b", { restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }] }),
        ctr("c", {
          restartPolicy: "Never",
          restartPolicyRules: [
            { action: "RestartAllContainers", exitCodes: { operator: "NotIn", values: [0, 0] } },
            { action: "Stop", exitCodes: { operator: "Above", values: [] } },
            { action: "Restart" },
          ],
        }),
      ],
      initContainers: [ctr("init", { restartPolicy: "Never" })],
    }),
    [
      'spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      "spec.containers[1].restartPolicy: Required value: must be set with restartPolicyRules",
      "spec.containers[2].restartPolicyRules[0].exitCodes.values[1]: Duplicate value: 0",
      'spec.containers[2].restartPolicyRules[1].action: Unsupported value: "Stop": supported values: "Restart", "RestartAllContainers"',
      'spec.containers[2].restartPolicyRules[1].exitCodes.operator: Unsupported value: "Above": supported values: "In", "NotIn"',
      "spec.containers[2].restartPolicyRules[2].exitCodes: Required value",
    ],
  ],
  [
    "init container probes and hooks",
    withSpec({
      initContainers: [
        ctr("init", {
          lifecycle: { postStart: { exec: { command: ["x"] } } },
          livenessProbe: { exec: { command: ["x"] } },
          readinessProbe: {},
          startupProbe: {},
        }),
      ],
    }),
    [
      `spec.initContainers[0].lifecycle: Forbidden: ${GRACE}`,
      `spec.initContainers[0].livenessProbe: Forbidden: ${GRACE}`,
      `spec.initContainers[0].readinessProbe: Forbidden: ${GRACE}`,
      `spec.initContainers[0].startupProbe: Forbidden: ${GRACE}`,
    ],
  ],
  [
    "sidecar probes are validated",
    withSpec({
      initContainers: [
        ctr("proxy", { restartPolicy: "Always", livenessProbe: { exec: { command: ["x"] } }, startupProbe: {} }),
      ],
    }),
    ["spec.initContainers[0].startupProbe: Required value: must specify a handler type"],
  ],
  [
    "ephemeral containers",
    withSpec({ ephemeralContainers: [ctr("debug")] }),
    ["spec.ephemeralContainers: Forbidden: cannot be set on create"],
  ],
];

const portRows: Row[] = [
  [
    "containerPort range",
    withContainer({ ports: [{ containerPort: 70000 }] }),
    ["spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"],
  ],
  [
    "containerPort missing",
    withContainer({ ports: [{ name: "http" }] }),
    ["spec.containers[0].ports[0].containerPort: Required value"],
  ],
  [
    "hostPort range",
    withContainer({ ports: [{ containerPort: 80, hostPort: 70000 }] }),
    ["spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive"],
  ],
  [
    "port name charset",
    withContainer({ ports: [{ name: "HTTP", containerPort: 80 }] }),
    [
      'spec.containers[0].ports[0].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].ports[0].name: Invalid value: "HTTP": must contain at least one letter (a-z)',
    ],
  ],
  [
    "port name letter",
    withContainer({ ports: [{ name: "8080", containerPort: 80 }] }),
    ['spec.containers[0].ports[0].name: Invalid value: "8080": must contain at least one letter (a-z)'],
  ],
  [
    "port name hyphens",
    withContainer({ ports: [{ name: "a--b", containerPort: 80 }] }),
    ['spec.containers[0].ports[0].name: Invalid value: "a--b": must not contain consecutive hyphens'],
  ],
  [
    "port name edge hyphen",
    withContainer({ ports: [{ name: "http-", containerPort: 80 }] }),
    ['spec.containers[0].ports[0].name: Invalid value: "http-": must not begin or end with a hyphen'],
  ],
  [
    "port name length",
    withContainer({ ports: [{ name: "a-very-long-name", containerPort: 80 }] }),
    ['spec.containers[0].ports[0].name: Invalid value: "a-very-long-name": must be no more than 15 characters'],
  ],
  [
    "port name duplicate",
    withContainer({
      ports: [
        { name: "http", containerPort: 80 },
        { name: "http", containerPort: 81 },
      ],
    }),
    ['spec.containers[0].ports[1].name: Duplicate value: "http"'],
  ],
  [
    "host port taken twice",
    withSpec({
      containers: [
        ctr("a", { ports: [{ containerPort: 80, hostPort: 8080 }] }),
        ctr("b", { ports: [{ containerPort: 81, hostPort: 8080 }] }),
      ],
    }),
    ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"'],
  ],
  [
    "same host port, other protocol",
    withSpec({
      containers: [
        ctr("a", { ports: [{ containerPort: 80, hostPort: 8080 }] }),
        ctr("b", { ports: [{ containerPort: 81, hostPort: 8080, protocol: "UDP" }] }),
      ],
    }),
    [],
  ],
  [
    "init containers run one at a time",
    withSpec({
      initContainers: [
        ctr("i1", { ports: [{ containerPort: 80, hostPort: 8080 }] }),
        ctr("i2", { ports: [{ containerPort: 80, hostPort: 8080 }] }),
      ],
    }),
    [],
  ],
  [
    "hostNetwork port mismatch",
    withSpec({ hostNetwork: true, containers: [ctr("app", { ports: [{ containerPort: 8080, hostPort: 9090 }] })] }),
    [
      "spec.containers[0].ports[0].hostPort: Invalid value: 9090: must match `containerPort` when `hostNetwork` is true",
    ],
  ],
  [
    "hostNetwork makes container ports host ports",
    withSpec({
      hostNetwork: true,
      containers: [ctr("a", { ports: [{ containerPort: 8080 }] }), ctr("b", { ports: [{ containerPort: 8080 }] })],
    }),
    ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"'],
  ],
];

const mount = (name: string, mountPath = "/data", extra: Raw = {}) => ({ name, mountPath, ...extra });
const volumeRows: Row[] = [
  [
    "volume name",
    withSpec({ volumes: [{ name: "Data", emptyDir: {} }] }),
    [`spec.volumes[0].name: Invalid value: "Data": ${LABEL_MSG}`],
  ],
  ["volume name missing", withSpec({ volumes: [{ emptyDir: {} }] }), ["spec.volumes[0].name: Required value"]],
  [
    "volume duplicate",
    withSpec({
      volumes: [
        { name: "data", emptyDir: {} },
        { name: "data", emptyDir: {} },
      ],
    }),
    ['spec.volumes[1].name: Duplicate value: "data"'],
  ],
  [
    "volume without source",
    withSpec({ volumes: [{ name: "data" }] }),
    ["spec.volumes[0]: Required value: must specify a volume type"],
  ],
  [
    "volume with two sources",
    withSpec({ volumes: [{ name: "data", emptyDir: {}, hostPath: { path: "/tmp" } }] }),
    ["spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type"],
  ],
  [
    "hostPath backsteps",
    withSpec({ volumes: [{ name: "data", hostPath: { path: "/a/../b" } }] }),
    ["spec.volumes[0].hostPath.path: Invalid value: \"/a/../b\": must not contain '..'"],
  ],
  [
    "hostPath path missing",
    withSpec({ volumes: [{ name: "data", hostPath: {} }] }),
    ["spec.volumes[0].hostPath.path: Required value"],
  ],
  [
    "mount of unknown volume",
    withContainer({ volumeMounts: [mount("dta")] }),
    ['spec.containers[0].volumeMounts[0].name: Not found: "dta"'],
  ],
  [
    "mountPath unique",
    withSpec({
      volumes: [
        { name: "a", emptyDir: {} },
        { name: "b", emptyDir: {} },
      ],
      containers: [ctr("app", { volumeMounts: [mount("a"), mount("b")] })],
    }),
    ['spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique'],
  ],
  [
    "mountPath missing",
    withSpec({
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [ctr("app", { volumeMounts: [{ name: "data" }] })],
    }),
    ["spec.containers[0].volumeMounts[0].mountPath: Required value"],
  ],
  // The API server checks no form of mountPath: the kubelet roots a relative one at `/`.
  [
    "mountPath relative",
    withSpec({
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [ctr("app", { volumeMounts: [mount("data", "data")] })],
    }),
    [],
  ],
  [
    "mountPath of Windows",
    withSpec({
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [ctr("app", { volumeMounts: [mount("data", "C:\\data")] })],
    }),
    [],
  ],
  [
    "subPath and subPathExpr on an image volume (since 1.33)",
    withSpec({
      volumes: [{ name: "img", image: { reference: "busybox:1.36" } }],
      containers: [
        ctr("app", {
          volumeMounts: [mount("img", "/a", { subPath: "etc" }), mount("img", "/b", { subPathExpr: "$(POD)" })],
        }),
      ],
    }),
    [],
  ],
  [
    "a backslash is part of a file name, as on the API server's Linux",
    withSpec({
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [ctr("app", { volumeMounts: [mount("data", "/d", { subPath: "..\\etc" })] })],
    }),
    [],
  ],
  [
    "subPath on an image volume still descends",
    withSpec({
      volumes: [{ name: "img", image: { reference: "busybox:1.36" } }],
      containers: [ctr("app", { volumeMounts: [mount("img", "/a", { subPath: "../etc" })] })],
    }),
    ["spec.containers[0].volumeMounts[0].subPath: Invalid value: \"../etc\": must not contain '..'"],
  ],
  [
    "subPath absolute",
    withSpec({
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [ctr("app", { volumeMounts: [mount("data", "/d", { subPath: "/etc" })] })],
    }),
    ['spec.containers[0].volumeMounts[0].subPath: Invalid value: "/etc": must be a relative path'],
  ],
  [
    "subPath backsteps",
    withSpec({
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [ctr("app", { volumeMounts: [mount("data", "/d", { subPath: "a/../../b" })] })],
    }),
    ["spec.containers[0].volumeMounts[0].subPath: Invalid value: \"a/../../b\": must not contain '..'"],
  ],
  [
    "subPath and subPathExpr",
    withSpec({
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [ctr("app", { volumeMounts: [mount("data", "/d", { subPath: "a", subPathExpr: "$(POD)" })] })],
    }),
    [
      'spec.containers[0].volumeMounts[0].subPathExpr: Invalid value: "$(POD)": subPathExpr and subPath are mutually exclusive',
    ],
  ],
  [
    "bidirectional propagation",
    withSpec({
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [ctr("app", { volumeMounts: [mount("data", "/d", { mountPropagation: "Bidirectional" })] })],
    }),
    [
      "spec.containers[0].volumeMounts[0].mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers",
    ],
  ],
  [
    "configMap volume missing",
    withSpec({ volumes: [{ name: "cfg", configMap: { name: "other-config" } }] }),
    ['spec.volumes[0].configMap.name: Not found: "other-config"'],
  ],
  [
    "configMap volume optional",
    withSpec({ volumes: [{ name: "cfg", configMap: { name: "other-config", optional: true } }] }),
    [],
  ],
  [
    "configMap volume name missing",
    withSpec({ volumes: [{ name: "cfg", configMap: {} }] }),
    ["spec.volumes[0].configMap.name: Required value"],
  ],
  [
    "secret volume missing",
    withSpec({ volumes: [{ name: "s", secret: { secretName: "tls" } }] }),
    ['spec.volumes[0].secret.secretName: Not found: "tls"'],
  ],
  [
    "secret volume found",
    withSpec({ volumes: [{ name: "s", secret: { secretName: "creds", items: [{ key: "PASSWORD", path: "pw" }] } }] }),
    [],
  ],
  [
    "configMap volume item key absent",
    withSpec({ volumes: [{ name: "cfg", configMap: { name: "app-config", items: [{ key: "nope", path: "nope" }] } }] }),
    ['spec.volumes[0].configMap.items[0].key: Not found: "nope"'],
  ],
  [
    "volume item paths",
    withSpec({
      volumes: [
        {
          name: "cfg",
          configMap: {
            name: "app-config",
            items: [
              { key: "app.conf", path: "../x" },
              { key: "app.conf", path: "..data" },
              { key: "app.conf", path: "/abs" },
            ],
          },
        },
      ],
    }),
    [
      "spec.volumes[0].configMap.items[0].path: Invalid value: \"../x\": must not contain '..'",
      "spec.volumes[0].configMap.items[1].path: Invalid value: \"..data\": must not start with '..'",
      'spec.volumes[0].configMap.items[2].path: Invalid value: "/abs": must be a relative path',
    ],
  ],
  [
    "defaultMode",
    withSpec({ volumes: [{ name: "cfg", configMap: { name: "app-config", defaultMode: 512 } }] }),
    [
      "spec.volumes[0].configMap.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive",
    ],
  ],
  [
    "projected sources",
    withSpec({
      volumes: [
        {
          name: "p",
          projected: {
            sources: [
              { configMap: { name: "gone" } },
              { secret: { name: "creds" }, configMap: { name: "app-config" } },
            ],
          },
        },
      ],
    }),
    [
      'spec.volumes[0].projected.sources[0].configMap.name: Not found: "gone"',
      "spec.volumes[0].projected.sources[1]: Forbidden: may not specify more than 1 volume type per source",
    ],
  ],
];

const envRows: Row[] = [
  ["env name missing", withContainer({ env: [{ value: "x" }] }), ["spec.containers[0].env[0].name: Required value"]],
  [
    "env name with =",
    withContainer({ env: [{ name: "A=B", value: "x" }] }),
    [`spec.containers[0].env[0].name: Invalid value: "A=B": ${ENV_NAME_MSG}`],
  ],
  ["env name relaxed", withContainer({ env: [{ name: "1.weird-NAME", value: "x" }] }), []],
  [
    "value and valueFrom",
    withContainer({
      env: [{ name: "A", value: "x", valueFrom: { configMapKeyRef: { name: "app-config", key: "LOG_LEVEL" } } }],
    }),
    ['spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty'],
  ],
  [
    "valueFrom without source",
    withContainer({ env: [{ name: "A", valueFrom: {} }] }),
    [
      'spec.containers[0].env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`',
    ],
  ],
  [
    "fileKeyRef: a key of an env file in an emptyDir",
    withVolumes(
      withContainer({
        env: [
          {
            name: "DB_ADDRESS",
            valueFrom: { fileKeyRef: { volumeName: "config", path: "config.env", key: "DB_ADDRESS", optional: false } },
          },
        ],
      }),
      [{ name: "config", emptyDir: {} }],
    ),
    [],
  ],
  [
    "fileKeyRef: every field checked, as the API server does",
    withVolumes(
      withContainer({
        env: [
          { name: "A", valueFrom: { fileKeyRef: { volumeName: "", path: "", key: "" } } },
          { name: "B", valueFrom: { fileKeyRef: { volumeName: "Config", path: "../x", key: "K=V" } } },
          { name: "C", valueFrom: { fileKeyRef: { volumeName: "absent", path: "/abs/ok", key: "C" } } },
          { name: "D", valueFrom: { fileKeyRef: { volumeName: "cm", path: "c.env", key: "D" } } },
        ],
      }),
      [{ name: "cm", configMap: { name: "app-config" } }],
    ),
    [
      "spec.containers[0].env[0].valueFrom.fileKeyRef.key: Required value",
      "spec.containers[0].env[0].valueFrom.fileKeyRef.volumeName: Required value",
      "spec.containers[0].env[0].valueFrom.fileKeyRef.path: Required value",
      `spec.containers[0].env[1].valueFrom.fileKeyRef.key: Invalid value: "K=V": ${ENV_NAME_MSG}`,
      "spec.containers[0].env[1].valueFrom.fileKeyRef.volumeName: Invalid value: \"Config\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      "spec.containers[0].env[1].valueFrom.fileKeyRef.path: Invalid value: \"../x\": must not contain '..'",
      'spec.containers[0].env[2].valueFrom.fileKeyRef.volumeName: Not found: "absent"',
      'spec.containers[0].env[3].valueFrom.fileKeyRef.volumeName: Invalid value: "cm": referenced volume must be of type emptyDir',
    ],
  ],
  [
    "valueFrom with two sources",
    withContainer({
      env: [
        {
          name: "A",
          valueFrom: {
            configMapKeyRef: { name: "app-config", key: "LOG_LEVEL" },
            secretKeyRef: { name: "creds", key: "PASSWORD" },
          },
        },
      ],
    }),
    ['spec.containers[0].env[0].valueFrom: Invalid value: "": may not have more than one field specified at a time'],
  ],
  [
    "configMapKeyRef to a missing ConfigMap",
    withContainer({
      env: [
        { name: "A", value: "1" },
        { name: "B", value: "2" },
        { name: "C", valueFrom: { configMapKeyRef: { name: "other", key: "K" } } },
      ],
    }),
    ['spec.containers[0].env[2].valueFrom.configMapKeyRef.name: Not found: "other"'],
  ],
  [
    "configMapKeyRef to a ConfigMap given in no file",
    withContainer({
      env: [
        { name: "A", value: "1" },
        { name: "B", value: "2" },
        { name: "C", valueFrom: { configMapKeyRef: { name: "app-config", key: "K" } } },
      ],
    }),
    ['spec.containers[0].env[2].valueFrom.configMapKeyRef.name: Not found: "app-config"'],
    [],
  ],
  [
    "configMapKeyRef optional",
    withContainer({
      env: [{ name: "C", valueFrom: { configMapKeyRef: { name: "other", key: "K", optional: true } } }],
    }),
    [],
  ],
  [
    "secretKeyRef key absent",
    withContainer({ env: [{ name: "P", valueFrom: { secretKeyRef: { name: "creds", key: "TOKEN" } } }] }),
    ['spec.containers[0].env[0].valueFrom.secretKeyRef.key: Not found: "TOKEN"'],
  ],
  [
    "secretKeyRef key absent but optional",
    withContainer({
      env: [{ name: "P", valueFrom: { secretKeyRef: { name: "creds", key: "TOKEN", optional: true } } }],
    }),
    [],
  ],
  [
    "secretKeyRef key invalid",
    withContainer({ env: [{ name: "P", valueFrom: { secretKeyRef: { name: "creds", key: "a b" } } }] }),
    [`spec.containers[0].env[0].valueFrom.secretKeyRef.key: Invalid value: "a b": ${CONFIG_KEY_MSG}`],
  ],
  [
    "secretKeyRef key missing",
    withContainer({ env: [{ name: "P", valueFrom: { secretKeyRef: { name: "creds" } } }] }),
    ["spec.containers[0].env[0].valueFrom.secretKeyRef.key: Required value"],
  ],
  [
    "reference in another namespace",
    {
      ...withContainer({
        env: [{ name: "P", valueFrom: { configMapKeyRef: { name: "app-config", key: "LOG_LEVEL" } } }],
      }),
      metadata: { name: "web", namespace: "prod" },
    },
    ['spec.containers[0].env[0].valueFrom.configMapKeyRef.name: Not found: "app-config"'],
  ],
  [
    "reference in the same namespace",
    {
      ...withContainer({ env: [{ name: "P", valueFrom: { configMapKeyRef: { name: "prod-config", key: "K" } } }] }),
      metadata: { name: "web", namespace: "prod" },
    },
    [],
    [configMap("prod-config", { K: "v" }, "prod")],
  ],
  [
    "fieldRef",
    withContainer({
      env: [
        { name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        { name: "L", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
      ],
    }),
    [],
  ],
  [
    "fieldRef not for env",
    withContainer({ env: [{ name: "N", valueFrom: { fieldRef: { fieldPath: "status.phase" } } }] }),
    [
      'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
    ],
  ],
  [
    "fieldRef unknown",
    withContainer({ env: [{ name: "N", valueFrom: { fieldRef: { fieldPath: "spec.bogus" } } }] }),
    [
      'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "spec.bogus": error converting fieldPath: field label not supported: spec.bogus',
    ],
  ],
  [
    // Found by the fuzzing test: such a file passed validation and failed at mount time (exit 1).
    "downwardAPI volume fieldRef: the volume's own list of paths",
    withSpec({
      volumes: [
        {
          name: "info",
          downwardAPI: {
            items: [
              { path: "ip", fieldRef: { fieldPath: "status.podIP" } },
              { path: "app", fieldRef: { fieldPath: "metadata.labels['app']" } },
              { path: "node", fieldRef: { fieldPath: "spec.nodeName['x']" } },
              { path: "uid", fieldRef: { fieldPath: "metadata.uid" } },
            ],
          },
        },
        {
          name: "all",
          projected: { sources: [{ downwardAPI: { items: [{ path: "x", fieldRef: { fieldPath: "bogus" } }] } }] },
        },
      ],
    }),
    [
      'spec.volumes[0].downwardAPI.items[0].fieldRef.fieldPath: Unsupported value: "status.podIP": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"',
      `spec.volumes[0].downwardAPI.items[2].fieldRef.fieldPath: Invalid value: "spec.nodeName['x']": error converting fieldPath: field label does not support subscript`,
      'spec.volumes[1].projected.sources[0].downwardAPI.items[0].fieldRef.fieldPath: Invalid value: "bogus": error converting fieldPath: field label not supported: bogus',
    ],
  ],
  [
    "envFrom configMapRef missing",
    withContainer({ envFrom: [{ configMapRef: { name: "env" } }] }),
    ['spec.containers[0].envFrom[0].configMapRef.name: Not found: "env"'],
  ],
  ["envFrom secretRef optional", withContainer({ envFrom: [{ secretRef: { name: "env", optional: true } }] }), []],
  [
    "envFrom without source",
    withContainer({ envFrom: [{ prefix: "X_" }] }),
    ['spec.containers[0].envFrom[0]: Invalid value: "": must specify one of: `configMapRef` or `secretRef`'],
  ],
  [
    "envFrom prefix",
    withContainer({ envFrom: [{ prefix: "A=", configMapRef: { name: "app-config" } }] }),
    [`spec.containers[0].envFrom[0].prefix: Invalid value: "A=": ${ENV_NAME_MSG}`],
  ],
  [
    "imagePullSecrets missing",
    withSpec({ imagePullSecrets: [{ name: "regcred" }, { name: "other" }] }),
    ['spec.imagePullSecrets[1].name: Not found: "other"'],
  ],
  [
    "imagePullSecrets name empty",
    withSpec({ imagePullSecrets: [{ name: "" }] }),
    ["spec.imagePullSecrets[0].name: Required value"],
  ],
  [
    "imagePullSecrets of another type",
    withSpec({ imagePullSecrets: [{ name: "regcred" }, { name: "creds" }, { name: "legacy" }] }),
    [
      'spec.imagePullSecrets[1].name: Invalid value: "creds": Secret "creds" is of type "Opaque": a pull reads only kubernetes.io/dockerconfigjson and kubernetes.io/dockercfg secrets',
    ],
    [...DEFAULT_OBJECTS, secret("legacy", { ".dockercfg": b64("{}") }, { type: "kubernetes.io/dockercfg" })],
  ],
];

const probe = (extra: Raw = {}): Raw => ({ exec: { command: ["true"] }, ...extra });
const probeRows: Row[] = [
  [
    "periodSeconds 0",
    withContainer({ livenessProbe: probe({ periodSeconds: 0 }) }),
    ["spec.containers[0].livenessProbe.periodSeconds: Invalid value: 0: must be greater than or equal to 1"],
  ],
  [
    "timeouts and thresholds",
    withContainer({ readinessProbe: probe({ timeoutSeconds: 0, successThreshold: -1, failureThreshold: 0 }) }),
    [
      "spec.containers[0].readinessProbe.timeoutSeconds: Invalid value: 0: must be greater than or equal to 1",
      "spec.containers[0].readinessProbe.successThreshold: Invalid value: -1: must be greater than or equal to 1",
      "spec.containers[0].readinessProbe.failureThreshold: Invalid value: 0: must be greater than or equal to 1",
    ],
  ],
  [
    "initialDelaySeconds",
    withContainer({ startupProbe: probe({ initialDelaySeconds: -1 }) }),
    ["spec.containers[0].startupProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0"],
  ],
  [
    "no handler",
    withContainer({ livenessProbe: { periodSeconds: 5 } }),
    ["spec.containers[0].livenessProbe: Required value: must specify a handler type"],
  ],
  [
    "two handlers",
    withContainer({
      ports: [{ containerPort: 80 }],
      readinessProbe: { httpGet: { port: 80 }, tcpSocket: { port: 80 } },
    }),
    ["spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"],
  ],
  [
    "liveness successThreshold",
    withContainer({ livenessProbe: probe({ successThreshold: 2 }) }),
    ["spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"],
  ],
  [
    "startup successThreshold",
    withContainer({ startupProbe: probe({ successThreshold: 3 }) }),
    ["spec.containers[0].startupProbe.successThreshold: Invalid value: 3: must be 1"],
  ],
  ["readiness successThreshold", withContainer({ readinessProbe: probe({ successThreshold: 2 }) }), []],
  [
    "readiness grace period",
    withContainer({ readinessProbe: probe({ terminationGracePeriodSeconds: 5 }) }),
    [
      "spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes",
    ],
  ],
  [
    "exec without command",
    withContainer({ livenessProbe: { exec: {} } }),
    ["spec.containers[0].livenessProbe.exec.command: Required value"],
  ],
  [
    "httpGet port range",
    withContainer({ livenessProbe: { httpGet: { port: 70000 } } }),
    ["spec.containers[0].livenessProbe.httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive"],
  ],
  [
    "httpGet port name unknown",
    withContainer({ ports: [{ name: "http", containerPort: 80 }], livenessProbe: { httpGet: { port: "metrics" } } }),
    [
      'spec.containers[0].livenessProbe.httpGet.port: Not found: "metrics": must be the name of one of the container\'s ports',
    ],
  ],
  [
    "httpGet port name known",
    withContainer({
      ports: [{ name: "http", containerPort: 80 }],
      livenessProbe: { httpGet: { port: "http", path: "/healthz" } },
    }),
    [],
  ],
  [
    "tcpSocket port name invalid",
    withContainer({ readinessProbe: { tcpSocket: { port: "web_port" } } }),
    [
      'spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: "web_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ],
  ],
  [
    "grpc port",
    withContainer({ livenessProbe: { grpc: { port: 0 } } }),
    ["spec.containers[0].livenessProbe.grpc.port: Invalid value: 0: must be between 1 and 65535, inclusive"],
  ],
  [
    "lifecycle without handler",
    withContainer({ lifecycle: { postStart: {} } }),
    ["spec.containers[0].lifecycle.postStart: Required value: must specify a handler type"],
  ],
  [
    "lifecycle with two handlers",
    withContainer({ lifecycle: { preStop: { exec: { command: ["x"] }, sleep: { seconds: 1 } } } }),
    ["spec.containers[0].lifecycle.preStop.sleep: Forbidden: may not specify more than 1 handler type"],
  ],
  [
    "sleep beyond the grace period",
    withContainer({ lifecycle: { preStop: { sleep: { seconds: 40 } } } }),
    [
      "spec.containers[0].lifecycle.preStop.sleep: Invalid value: 40: must be non-negative and less than terminationGracePeriodSeconds (30)",
    ],
  ],
  [
    "sleep within a longer grace period",
    withSpec({
      terminationGracePeriodSeconds: 60,
      containers: [ctr("app", { lifecycle: { preStop: { sleep: { seconds: 40 } } } })],
    }),
    [],
  ],
];

const podRows: Row[] = [
  [
    "terminationGracePeriodSeconds",
    withSpec({ terminationGracePeriodSeconds: -1 }),
    ["spec.terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0"],
  ],
  [
    "activeDeadlineSeconds",
    withSpec({ activeDeadlineSeconds: 0 }),
    ["spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"],
  ],
  ["hostname", withSpec({ hostname: "My_Host" }), [`spec.hostname: Invalid value: "My_Host": ${LABEL_MSG}`]],
];

for (const [group, rows] of [
  ["metadata", metadataRows],
  ["containers", containerRows],
  ["ports", portRows],
  ["volumes", volumeRows],
  ["env", envRows],
  ["probes", probeRows],
  ["pod", podRows],
] as const) {
  t.test(`Pod rules: ${group}`, async (t) => {
    for (const [title, pod, expected, objects] of rows) t.same(podLines(pod, objects), expected, title);
  });
}

t.test("every error is reported, not only the first", async (t) => {
  const pod = {
    metadata: { name: "Web" },
    spec: {
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [
        ctr("app", { image: "", ports: [{ containerPort: 0 }], volumeMounts: [mount("dta")] }),
        ctr("app", { livenessProbe: { exec: { command: ["x"] }, periodSeconds: 0 } }),
      ],
    },
  };
  t.same(podLines(pod), [
    `metadata.name: Invalid value: "Web": ${SUBDOMAIN_MSG}`,
    "spec.containers[0].image: Required value",
    "spec.containers[0].ports[0].containerPort: Required value",
    'spec.containers[0].volumeMounts[0].name: Not found: "dta"',
    'spec.containers[1].name: Duplicate value: "app"',
    "spec.containers[1].livenessProbe.periodSeconds: Invalid value: 0: must be greater than or equal to 1",
  ]);
});

t.test("values of the wrong JSON type are skipped, never thrown on", async (t) => {
  const weird: unknown[] = [
    null,
    "pod",
    [],
    42,
    { metadata: "x", spec: "x" },
    { metadata: { name: 5, labels: [1], annotations: "a" }, spec: { containers: "x", volumes: {}, initContainers: 3 } },
    {
      metadata: { name: "web" },
      spec: {
        terminationGracePeriodSeconds: "30",
        volumes: [null, 7, { name: ["x"], configMap: "x" }],
        containers: [
          null,
          {
            name: 1,
            image: 2,
            ports: {},
            env: "x",
            envFrom: [null, { configMapRef: 5 }],
            volumeMounts: [{ name: 3, mountPath: 4 }],
          },
          {
            name: "b",
            image: "b",
            livenessProbe: "x",
            readinessProbe: { httpGet: "x" },
            lifecycle: { preStop: 3 },
            env: [{ name: "A", valueFrom: { secretKeyRef: 3 } }],
          },
        ],
        imagePullSecrets: "x",
      },
    },
  ];
  for (const pod of weird) t.doesNotThrow(() => podLines(pod), JSON.stringify(pod));
  t.same(podLines(weird[6]), []);
  for (const object of weird) {
    t.doesNotThrow(() => lines(validateConfigMap, object));
    t.doesNotThrow(() => lines(validateSecret, object));
  }
  t.doesNotThrow(() =>
    buildObjectIndex([
      { kind: "ConfigMap", value: null },
      { kind: "Secret", value: { metadata: { name: 3 } } },
    ]),
  );
});

t.test("an index without keys checks names only", async (t) => {
  const index: ObjectIndex = { configMaps: new Set(["default/app-config"]), secrets: new Set() };
  const pod = withContainer({
    env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "app-config", key: "ANY" } } }],
  });
  t.same(podLines(pod, [], index), []);
});

t.test("ConfigMap rules", async (t) => {
  const rows: [string, Raw, string[]][] = [
    ["valid", configMap("app-config", { "app.conf": "x", KEY_NAME: "y" }), []],
    [
      "name missing",
      { ...configMap("x"), metadata: {} },
      ["metadata.name: Required value: name or generateName is required"],
    ],
    ["name", configMap("App_Config"), [`metadata.name: Invalid value: "App_Config": ${SUBDOMAIN_MSG}`]],
    ["data key", configMap("c", { "a b": "x" }), [`data[a b]: Invalid value: "a b": ${CONFIG_KEY_MSG}`]],
    ["data key ..", configMap("c", { "..": "x" }), ["data[..]: Invalid value: \"..\": must not be '..'"]],
    ["data key ..x", configMap("c", { "..x": "x" }), ["data[..x]: Invalid value: \"..x\": must not start with '..'"]],
    [
      "binaryData key",
      { ...configMap("c"), binaryData: { "a/b": b64("x") } },
      [`binaryData[a/b]: Invalid value: "a/b": ${CONFIG_KEY_MSG}`],
    ],
    [
      "key in both",
      { ...configMap("c", { k: "x" }), binaryData: { k: b64("x") } },
      ['data[k]: Invalid value: "k": duplicate of key present in binaryData'],
    ],
    [
      "binaryData not base64",
      { ...configMap("c"), binaryData: { b: "not base64!" } },
      ['binaryData[b]: Invalid value: "<redacted>": illegal base64 data'],
    ],
    [
      "too large",
      configMap("c", { a: "x".repeat(600_000), b: "y".repeat(600_000) }),
      ["Too long: must have at most 1048576 bytes"],
    ],
    [
      "just under the limit",
      { ...configMap("c", { a: "x".repeat(524_288) }), binaryData: { b: b64("y".repeat(524_288)) } },
      [],
    ],
  ];
  for (const [title, object, expected] of rows) t.same(lines(validateConfigMap, object), expected, title);
});

t.test("Secret rules", async (t) => {
  const rows: [string, Raw, string[]][] = [
    [
      "valid",
      secret("creds", {
        PASSWORD: b64("pw"),
        multi: `${b64("a".repeat(60)).slice(0, 40)}\n${b64("a".repeat(60)).slice(40)}`,
      }),
      [],
    ],
    ["name", secret("Creds"), [`metadata.name: Invalid value: "Creds": ${SUBDOMAIN_MSG}`]],
    ["data key", secret("s", { "a b": b64("x") }), [`data[a b]: Invalid value: "a b": ${CONFIG_KEY_MSG}`]],
    [
      "data not base64",
      secret("s", { password: "hunter2!" }),
      ['data[password]: Invalid value: "<redacted>": illegal base64 data'],
    ],
    [
      "data badly padded",
      secret("s", { password: "abc" }),
      ['data[password]: Invalid value: "<redacted>": illegal base64 data'],
    ],
    [
      "stringData key",
      secret("s", {}, { stringData: { "a b": "x" } }),
      [`stringData[a b]: Invalid value: "a b": ${CONFIG_KEY_MSG}`],
    ],
    [
      "too large",
      secret("s", { a: b64("x".repeat(700_000)) }, { stringData: { b: "y".repeat(400_000) } }),
      ["data: Too long: must have at most 1048576 bytes"],
    ],
    [
      "dockerconfigjson key missing",
      secret("s", {}, { type: "kubernetes.io/dockerconfigjson" }),
      ["data[.dockerconfigjson]: Required value"],
    ],
    [
      "dockerconfigjson not JSON",
      secret("s", { ".dockerconfigjson": b64("{auths") }, { type: "kubernetes.io/dockerconfigjson" }),
      ['data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": must be valid JSON'],
    ],
    [
      "dockerconfigjson not an object",
      secret("s", {}, { type: "kubernetes.io/dockerconfigjson", stringData: { ".dockerconfigjson": "[1]" } }),
      [
        'stringData[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
      ],
    ],
    [
      "dockerconfigjson in stringData",
      secret("s", {}, { type: "kubernetes.io/dockerconfigjson", stringData: { ".dockerconfigjson": '{"auths":{}}' } }),
      [],
    ],
    ["dockercfg", secret("s", {}, { type: "kubernetes.io/dockercfg" }), ["data[.dockercfg]: Required value"]],
    [
      "dockerconfigjson auths not a map",
      secret("s", { ".dockerconfigjson": b64('{"auths": ["r"]}') }, { type: "kubernetes.io/dockerconfigjson" }),
      [
        'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": the kubelet cannot read it to pull: json: cannot unmarshal array into Go struct field DockerConfigJSON.auths of type credentialprovider.DockerConfig',
      ],
    ],
    [
      "dockerconfigjson auth field without a colon",
      secret(
        "s",
        {},
        {
          type: "kubernetes.io/dockerconfigjson",
          stringData: { ".dockerconfigjson": `{"auths": {"r": {"auth": "${b64("nocolon")}"}}}` },
        },
      ),
      [
        'stringData[.dockerconfigjson]: Invalid value: "<secret contents redacted>": the kubelet cannot read it to pull: unable to parse auth field, must be formatted as base64(username:password)',
      ],
    ],
    [
      "dockercfg entry password not a string",
      secret(
        "s",
        { ".dockercfg": b64('{"r": {"username": "u", "password": 1234}}') },
        { type: "kubernetes.io/dockercfg" },
      ),
      [
        'data[.dockercfg]: Invalid value: "<secret contents redacted>": the kubelet cannot read it to pull: json: cannot unmarshal number into Go struct field dockerConfigEntryWithAuth.password of type string',
      ],
    ],
    [
      "dockercfg valid, unpadded auth",
      secret(
        "s",
        { ".dockercfg": b64(`{"r": {"auth": "${b64("u:pw").replace(/=+$/, "")}"}}`) },
        { type: "kubernetes.io/dockercfg" },
      ),
      [],
    ],
    [
      "dockerconfigjson empty",
      secret("s", { ".dockerconfigjson": "" }, { type: "kubernetes.io/dockerconfigjson" }),
      ['data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": must be valid JSON'],
    ],
    [
      "basic-auth",
      secret("s", {}, { type: "kubernetes.io/basic-auth" }),
      ["data[username]: Required value", "data[password]: Required value"],
    ],
    ["basic-auth username only", secret("s", { username: "" }, { type: "kubernetes.io/basic-auth" }), []],
    [
      "ssh-auth",
      secret("s", { "ssh-privatekey": "" }, { type: "kubernetes.io/ssh-auth" }),
      ["data[ssh-privatekey]: Required value"],
    ],
    ["tls", secret("s", { "tls.crt": b64("c") }, { type: "kubernetes.io/tls" }), ["data[tls.key]: Required value"]],
    [
      "service-account-token",
      secret("s", {}, { type: "kubernetes.io/service-account-token" }),
      ["metadata.annotations[kubernetes.io/service-account.name]: Required value"],
    ],
    ["unknown type", secret("s", {}, { type: "example.com/custom" }), []],
  ];
  for (const [title, object, expected] of rows) t.same(lines(validateSecret, object), expected, title);
});

t.test("a realistic Pod with its ConfigMap and Secret is valid", async (t) => {
  const cm = configMap("app-config", { LOG_LEVEL: "info", "nginx.conf": "server {}" });
  const sec = secret(
    "app-secret",
    { DB_PASSWORD: b64("s3cr3t") },
    { type: "Opaque", stringData: { API_TOKEN: "tok" } },
  );
  const pull = secret(
    "regcred",
    { ".dockerconfigjson": b64('{"auths":{"127.0.0.1:5100":{"auth":"dTpw"}}}') },
    { type: "kubernetes.io/dockerconfigjson" },
  );
  const pod: Raw = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "web",
      labels: { app: "web", "app.kubernetes.io/part-of": "shop" },
      annotations: { "example.com/owner": "team-a" },
    },
    spec: {
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 10,
      imagePullSecrets: [{ name: "regcred" }],
      volumes: [
        { name: "config", configMap: { name: "app-config", items: [{ key: "nginx.conf", path: "nginx.conf" }] } },
        { name: "secrets", secret: { secretName: "app-secret", defaultMode: 0o400 } },
        { name: "cache", emptyDir: {} },
        {
          name: "all",
          projected: {
            sources: [
              { configMap: { name: "app-config" } },
              { secret: { name: "app-secret" } },
              { downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
            ],
          },
        },
      ],
      initContainers: [
        ctr("migrate", { image: "127.0.0.1:5100/podrun-test/busybox:1.36", command: ["sh", "-c", "true"] }),
        ctr("proxy", {
          image: "registry.k8s.io/pause:3.10",
          restartPolicy: "Always",
          startupProbe: { tcpSocket: { port: 15000 }, periodSeconds: 1 },
        }),
      ],
      containers: [
        ctr("nginx", {
          image: "nginx:1.25",
          ports: [{ name: "http", containerPort: 80, hostPort: 8080 }],
          env: [
            { name: "LOG_LEVEL", valueFrom: { configMapKeyRef: { name: "app-config", key: "LOG_LEVEL" } } },
            { name: "DB_PASSWORD", valueFrom: { secretKeyRef: { name: "app-secret", key: "DB_PASSWORD" } } },
            { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
            { name: "OPTIONAL", valueFrom: { configMapKeyRef: { name: "elsewhere", key: "X", optional: true } } },
          ],
          envFrom: [{ secretRef: { name: "app-secret" }, prefix: "APP_" }],
          volumeMounts: [
            mount("config", "/etc/nginx/conf.d"),
            mount("secrets", "/run/secrets", { readOnly: true }),
            mount("cache", "/var/cache/nginx", { subPath: "nginx" }),
          ],
          livenessProbe: { httpGet: { port: "http", path: "/healthz" }, initialDelaySeconds: 0, periodSeconds: 5 },
          readinessProbe: { tcpSocket: { port: 80 }, successThreshold: 2 },
          lifecycle: { preStop: { sleep: { seconds: 5 } }, postStart: { exec: { command: ["true"] } } },
        }),
        ctr("sidecar", { image: `busybox@sha256:${"0".repeat(64)}`, ports: [{ containerPort: 9000 }] }),
      ],
    },
  };
  const objects = [cm, sec, pull];
  t.same(podLines(pod, objects), []);
  t.same(lines(validateConfigMap, cm), []);
  for (const s of [sec, pull]) t.same(lines(validateSecret, s), []);
});

t.test("no message ever carries a Secret's data", async (t) => {
  const values = ["hunter2!!", "{not-json-h2", '["h2-array"]', "h2-string-data"];
  const secrets: RawObject[] = [
    secret("a", { password: values[0]!, good: b64("also-secret-h2") }),
    secret("b", { ".dockerconfigjson": b64(values[1]!) }, { type: "kubernetes.io/dockerconfigjson" }),
    secret(
      "c",
      {},
      { type: "kubernetes.io/dockercfg", stringData: { ".dockercfg": values[2]!, "bad key": values[3]! } },
    ),
    secret(
      "Bad_Name",
      { "bad key!": values[0]! },
      { type: "kubernetes.io/tls", stringData: { big: "h2".repeat(600_000) } },
    ),
  ];
  const all = secrets.flatMap((s) => lines(validateSecret, s));
  t.ok(all.length >= 6, `errors were reported: ${all.length}`);
  for (const line of all) {
    t.notOk(/h2|hunter/.test(line), `no secret value in: ${line.slice(0, 200)}`);
    t.ok(line.length < 1000, "no huge value echoed");
  }
  // A pod referring to such secrets never shows their values either.
  const pod = withContainer({ env: [{ name: "P", valueFrom: { secretKeyRef: { name: "a", key: "missing" } } }] });
  for (const line of podLines(pod, secrets)) t.notOk(/h2|hunter/.test(line), line);
});
