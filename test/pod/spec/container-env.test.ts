import type { Container, Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { PodrunError } from "../../../lib/errors.js";
import {
  expandCommandAndArgs,
  readSecretText,
  resolveContainerEnv,
  resolveHashEnv,
  usesPodIP,
} from "../../../lib/pod/spec/container-env.js";
import type { PodFieldContext } from "../../../lib/pod/spec/field-ref.js";
import type { PodObjects } from "../../../lib/manifest/pod-objects.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");
const SECRET = 's3cr3t "quoted" $HOME\nline2';

const objects: PodObjects = {
  configMaps: [
    {
      metadata: { name: "cfg", namespace: "ci" },
      data: { MODE: "fast", "1st": "y", "a.b": "z", "x=y": "skipped", café: "skipped" },
      binaryData: { BIN: b64("bytes") },
    },
    { metadata: { name: "cfg" }, data: { MODE: "other-namespace" } },
  ],
  secrets: [
    {
      metadata: { name: "creds", namespace: "ci" },
      data: { PASSWORD: b64(SECRET), TOKEN: b64("old") },
      stringData: { TOKEN: "plain" },
    },
  ],
};

const pod: Pod = {
  metadata: { name: "web", namespace: "ci", labels: { app: "web" } },
  spec: {
    containers: [
      { name: "app", image: "x", resources: { limits: { memory: "64Mi" } } },
      { name: "side", image: "x", resources: { limits: { cpu: "500m" } } },
    ],
  },
};
const fields: PodFieldContext = {
  pod,
  identity: { name: "web", namespace: "ci", uid: "uid-1" },
  nodeName: "box",
  hostIPs: ["192.0.2.1"],
  podIPs: ["10.0.0.7"],
};
const node = { cpuCores: 2, memoryBytes: 2 ** 32, ephemeralStorageBytes: 10 ** 10 };

const resolve = (container: Partial<Container>) =>
  resolveContainerEnv({
    pod,
    container: { name: "app", image: "x", ...pod.spec!.containers[0], ...container },
    objects,
    fields,
    node,
  });

t.test("every source, in the kubelet's order", async (t) => {
  const { env, skipped } = resolve({
    envFrom: [{ configMapRef: { name: "cfg" } }, { prefix: "S_", secretRef: { name: "creds" } }],
    env: [
      { name: "MODE", value: "override-$(MODE)" },
      { name: "FROM_CM", valueFrom: { configMapKeyRef: { name: "cfg", key: "MODE" } } },
      { name: "FROM_SECRET", valueFrom: { secretKeyRef: { name: "creds", key: "PASSWORD" } } },
      { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
      { name: "NS", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
      { name: "UID", valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
      { name: "APP", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
      { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
      { name: "HOST_IP", valueFrom: { fieldRef: { fieldPath: "status.hostIP" } } },
      { name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
      { name: "MEM_MI", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } },
      {
        name: "SIDE_CPU_M",
        valueFrom: { resourceFieldRef: { containerName: "side", resource: "limits.cpu", divisor: "1m" } },
      },
      { name: "EMPTY" },
      { name: "URL", value: "http://$(IP):80/$(UNDEFINED)/$$(POD)/$(S_TOKEN)" },
      { name: "LATER", value: "$(NOT_YET)" },
      { name: "NOT_YET", value: "now" },
    ],
  });
  t.same(Object.fromEntries(env.map((e) => [e.name, e.value])), {
    MODE: "override-fast",
    "1st": "y",
    "a.b": "z",
    S_PASSWORD: SECRET,
    S_TOKEN: "plain",
    FROM_CM: "fast",
    FROM_SECRET: SECRET,
    POD: "web",
    NS: "ci",
    UID: "uid-1",
    APP: "web",
    IP: "10.0.0.7",
    HOST_IP: "192.0.2.1",
    NODE: "box",
    MEM_MI: "64",
    SIDE_CPU_M: "500",
    EMPTY: "",
    URL: "http://10.0.0.7:80/$(UNDEFINED)/$(POD)/plain",
    LATER: "$(NOT_YET)",
    NOT_YET: "now",
  });
  t.same(
    env.map((e) => e.name).slice(0, 5),
    ["MODE", "1st", "a.b", "S_PASSWORD", "S_TOKEN"],
    "a redefined variable keeps its first place",
  );
  t.same(skipped, [
    {
      reason: "InvalidEnvironmentVariableNames",
      message:
        "Keys [café, x=y] from the EnvFrom configMap ci/cfg were skipped since they are considered invalid environment variable names.",
    },
  ]);
});

t.test("invalid names after the prefix; secrets named as the kubelet names them", async (t) => {
  const { env, skipped } = resolveContainerEnv({
    pod,
    container: { name: "app", image: "x", envFrom: [{ prefix: "P=", secretRef: { name: "creds" } }] },
    objects,
    fields,
    node,
  });
  t.same(env, []);
  t.same(
    skipped.map((s) => s.message),
    [
      "Keys [P=PASSWORD, P=TOKEN] from the EnvFrom secret ci/creds were skipped since they are considered invalid environment variable names.",
    ],
  );
});

t.test(
  "missing objects and keys: CreateContainerConfigError with the kubelet's message, unless optional",
  async (t) => {
    const cases: [env: Partial<Container>, message: string][] = [
      [{ envFrom: [{ configMapRef: { name: "nope" } }] }, 'configmap "nope" not found'],
      [{ envFrom: [{ secretRef: { name: "nope" } }] }, 'secret "nope" not found'],
      [
        { env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "nope", key: "k" } } }] },
        'configmap "nope" not found',
      ],
      [
        { env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "cfg", key: "k" } } }] },
        "couldn't find key k in ConfigMap ci/cfg",
      ],
      [
        { env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "cfg", key: "BIN" } } }] },
        "couldn't find key BIN in ConfigMap ci/cfg",
      ],
      [
        { env: [{ name: "A", valueFrom: { secretKeyRef: { name: "creds", key: "k" } } }] },
        "couldn't find key k in Secret ci/creds",
      ],
      [{ env: [{ name: "A", valueFrom: { secretKeyRef: { name: "nope", key: "k" } } }] }, 'secret "nope" not found'],
      [
        { env: [{ name: "A", valueFrom: { fieldRef: { fieldPath: "spec.hostname" } } }] },
        "unsupported fieldPath: spec.hostname",
      ],
      [
        { env: [{ name: "A", valueFrom: { resourceFieldRef: { containerName: "ghost", resource: "limits.cpu" } } }] },
        "container ghost not found",
      ],
    ];
    for (const [container, message] of cases) {
      t.throws(() => resolve(container), new PodrunError("CreateContainerConfigError", message), message);
    }
    const optional = resolve({
      envFrom: [{ configMapRef: { name: "nope", optional: true } }, { secretRef: { name: "nope", optional: true } }],
      env: [
        { name: "A", valueFrom: { configMapKeyRef: { name: "nope", key: "k", optional: true } } },
        { name: "B", valueFrom: { configMapKeyRef: { name: "cfg", key: "k", optional: true } } },
        { name: "C", valueFrom: { secretKeyRef: { name: "creds", key: "k", optional: true } } },
        { name: "D", value: "$(A)" },
      ],
    });
    t.same(optional.env, [{ name: "D", value: "$(A)" }], "an optional miss defines nothing, not even an empty value");
    t.same(
      resolveContainerEnv({
        pod,
        container: {
          name: "app",
          image: "x",
          env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "nope", key: "k" } } }],
        },
        objects,
        fields,
        node,
        lenient: true,
      }).env,
      [],
      "lenient (hash) mode leaves it out",
    );
  },
);

t.test("namespaces: an object of another namespace is not found", async (t) => {
  t.throws(
    () =>
      resolveContainerEnv({
        pod,
        container: { name: "app", image: "x", envFrom: [{ secretRef: { name: "creds" } }] },
        objects,
        fields: { ...fields, identity: { ...fields.identity, namespace: "default" } },
        node,
      }),
    {
      message: 'secret "creds" not found',
    },
  );
});

t.test("secret data: base64 data, then stringData over it", async (t) => {
  t.same(readSecretText({ data: { A: b64("a\nb"), B: b64("x") }, stringData: { B: "y" } }), { A: "a\nb", B: "y" });
});

t.test("command and args expand with the final env", async (t) => {
  const env = [
    { name: "A", value: "1" },
    { name: "A", value: "2" },
    { name: "B", value: "$(A)" },
  ];
  t.same(expandCommandAndArgs({ command: ["echo", "$(A)", "$(B)"], args: ["$(NONE)", "$$(A)", "$$$(A)"] }, env), {
    command: ["echo", "2", "$(A)"],
    args: ["$(NONE)", "$(A)", "$2"],
  });
  t.same(expandCommandAndArgs({}, env), {});
});

t.test("the hash environment: run-dependent values as markers", async (t) => {
  const container: Container = {
    name: "app",
    image: "x",
    env: [
      { name: "UID", valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
      { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
      { name: "HOST", valueFrom: { fieldRef: { fieldPath: "status.hostIP" } } },
      { name: "URL", value: "http://$(IP)" },
      { name: "PW", valueFrom: { secretKeyRef: { name: "creds", key: "TOKEN" } } },
    ],
  };
  const hashed = resolveHashEnv({
    pod,
    identity: { name: "web", namespace: "ci", uid: "fresh-1" },
    container,
    objects,
  });
  t.same(
    resolveHashEnv({ pod, identity: { name: "web", namespace: "ci", uid: "fresh-2" }, container, objects }),
    hashed,
    "another fresh UID: the same",
  );
  t.same(Object.fromEntries(hashed.map((e) => [e.name, e.value])), {
    UID: "$(metadata.uid)",
    IP: "$(status.podIP)",
    HOST: "$(status.hostIP)",
    URL: "http://$(status.podIP)",
    PW: "plain",
  });
  const pinned = { ...pod, metadata: { ...pod.metadata, uid: "fixed" } };
  t.equal(
    resolveHashEnv({ pod: pinned, identity: { name: "web", namespace: "ci", uid: "fixed" }, container, objects })[0]!
      .value,
    "fixed",
    "a UID the manifest sets counts",
  );
  t.ok(usesPodIP(container));
  t.notOk(
    usesPodIP({
      name: "a",
      image: "x",
      env: [{ name: "UID", valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } }],
    }),
  );
});

t.test(
  "secret-derived names: directly, through envFrom, through $(VAR); redefined from elsewhere, no longer",
  async (t) => {
    const { secretNames } = resolve({
      envFrom: [{ secretRef: { name: "creds" } }, { configMapRef: { name: "cfg" } }],
      env: [
        { name: "A", valueFrom: { secretKeyRef: { name: "creds", key: "PASSWORD" } } },
        { name: "B", value: "x-$(A)" },
        { name: "C", value: "$(B)$(MODE)" },
        { name: "D", value: "$(MODE)" },
        { name: "TOKEN", value: "overridden" },
        { name: "E", value: "$(TOKEN)" },
      ],
    });
    t.same(secretNames.sort(), ["A", "B", "C", "PASSWORD"]);
    t.same(
      expandCommandAndArgs(
        { args: ["$(A)", "$(D)"] },
        [
          { name: "A", value: "s" },
          { name: "D", value: "d" },
        ],
        new Set(["A"]),
      ),
      { args: ["$(A)", "d"] },
    );
  },
);
