import t from "tap";
import { formatFieldError, type FieldError } from "../../lib/manifest/field-error.js";
import { findIgnoredFields } from "../../lib/manifest/support.js";

const ignored = (pod: unknown): string[] => {
  const found: FieldError[] = [];
  findIgnoredFields(pod, (w) => found.push(w));
  return found.map((w) => `${w.path.display}: ${w.detail}`);
};

t.test("fields podrun acts on give no warning", async (t) => {
  t.same(
    ignored({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", labels: { a: "b" }, annotations: { x: "y" } },
      spec: {
        restartPolicy: "Never",
        hostNetwork: false,
        initContainers: [{ name: "i", image: "x", command: ["true"] }],
        containers: [{ name: "a", image: "x", args: ["-v"], env: [{ name: "A", value: "1" }], ports: [{ containerPort: 80, name: "http" }], lifecycle: { postStart: { exec: { command: ["true"] } } } }],
      },
    }),
    [],
  );
});

t.test("each ignored field is named once, at its outermost path", async (t) => {
  t.same(
    ignored({
      metadata: { name: "p", ownerReferences: [{}] },
      spec: {
        nodeSelector: { disk: "ssd" },
        containers: [
          { name: "a", image: "x", resources: { limits: { cpu: "1" } }, env: [{ name: "A", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }] },
          { name: "b", image: "x", readinessProbe: { tcpSocket: { port: 80 } }, lifecycle: { preStop: { exec: { command: ["x"] } } } },
        ],
        volumes: [{ name: "v", emptyDir: {} }],
      },
      status: { phase: "Running" },
    }),
    [
      "metadata.ownerReferences: not supported by podrun yet: ignored",
      "spec.nodeSelector: not supported by podrun yet: ignored",
      "spec.containers[0].resources: not supported by podrun yet: ignored",
      "spec.containers[0].env[0].valueFrom: not supported by podrun yet: ignored",
      "spec.containers[1].readinessProbe: not supported by podrun yet: ignored",
      "spec.containers[1].lifecycle.preStop: not supported by podrun yet: ignored",
      "spec.volumes: not supported by podrun yet: ignored",
      "status: not supported by podrun yet: ignored",
    ],
  );
});

t.test("null fields count as unset", async (t) => {
  t.same(ignored({ spec: { nodeSelector: null, containers: [{ name: "a", image: "x", resources: null }] } }), []);
});

t.test("warnings are located on the key", async (t) => {
  const found: FieldError[] = [];
  findIgnoredFields({ spec: { affinity: {} } }, (w) => found.push(w));
  t.equal(found[0]!.atKey, true);
  t.equal(formatFieldError(found[0]!), "spec.affinity: Forbidden: not supported by podrun yet: ignored");
});
