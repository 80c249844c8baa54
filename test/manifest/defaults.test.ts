import type { Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { defaultConfigMap, defaultPod, defaultSecret } from "../../lib/manifest/defaults.js";

const podWith = (
  spec: Partial<Pod["spec"]> & { containers?: unknown[] },
  metadata: Pod["metadata"] = { name: "p" },
): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata,
  spec: { containers: [{ name: "a", image: "busybox" }], ...spec },
});

t.test("imagePullPolicy follows the tag, as SetDefaults_Container", async (t) => {
  const table: [string, string][] = [
    ["busybox", "Always"],
    ["busybox:latest", "Always"],
    ["busybox:1.36", "IfNotPresent"],
    [`busybox@sha256:${"a".repeat(64)}`, "IfNotPresent"],
    ["127.0.0.1:5100/podrun-test/busybox", "Always"],
    ["127.0.0.1:5100/podrun-test/busybox:1.36", "IfNotPresent"],
  ];
  for (const [image, policy] of table) {
    const pod = defaultPod(podWith({ containers: [{ name: "a", image }] }));
    t.equal(pod.spec!.containers[0]!.imagePullPolicy, policy, image);
  }
  const explicit = defaultPod(podWith({ containers: [{ name: "a", image: "busybox", imagePullPolicy: "Never" }] }));
  t.equal(explicit.spec!.containers[0]!.imagePullPolicy, "Never", "an explicit policy is kept");
});

t.test("pod-level defaults", async (t) => {
  const pod = defaultPod(podWith({}));
  t.equal(pod.metadata!.namespace, "default");
  t.match(pod.spec, {
    restartPolicy: "Always",
    dnsPolicy: "ClusterFirst",
    terminationGracePeriodSeconds: 30,
    enableServiceLinks: true,
    schedulerName: "default-scheduler",
  });
  const kept = defaultPod(
    podWith({ restartPolicy: "Never", terminationGracePeriodSeconds: 0 }, { name: "p", namespace: "ci" }),
  );
  t.equal(kept.metadata!.namespace, "ci");
  t.equal(kept.spec!.restartPolicy, "Never");
  t.equal(kept.spec!.terminationGracePeriodSeconds, 0, "zero is a value, not unset");
});

t.test("container, port, probe, handler and volume defaults", async (t) => {
  const pod = defaultPod(
    podWith({
      initContainers: [{ name: "i", image: "busybox:1" }],
      containers: [
        {
          name: "a",
          image: "busybox",
          ports: [{ containerPort: 80 }, { containerPort: 53, protocol: "UDP" }],
          env: [{ name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }],
          readinessProbe: { httpGet: { port: 80 } },
          livenessProbe: { tcpSocket: { port: 80 }, periodSeconds: 5 },
          lifecycle: { preStop: { httpGet: { port: 80, path: "/stop" } } },
          resources: { limits: { cpu: "1", memory: "64Mi" }, requests: { cpu: "500m" } },
        },
      ],
      volumes: [
        { name: "c", configMap: { name: "x" } },
        { name: "s", secret: { secretName: "y", defaultMode: 0o600 } },
        { name: "h", hostPath: { path: "/tmp" } },
      ],
    }),
  );
  const [app] = pod.spec!.containers;
  t.same(app!.ports, [
    { containerPort: 80, protocol: "TCP" },
    { containerPort: 53, protocol: "UDP" },
  ]);
  t.same(app!.readinessProbe, {
    httpGet: { port: 80, path: "/", scheme: "HTTP" },
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  });
  t.equal(app!.livenessProbe!.periodSeconds, 5);
  t.same(app!.lifecycle!.preStop!.httpGet, { port: 80, path: "/stop", scheme: "HTTP" });
  t.equal(app!.env![0]!.valueFrom!.fieldRef!.apiVersion, "v1");
  t.same(
    app!.resources!.requests,
    { cpu: "500m", memory: "64Mi" },
    "requests default to limits, explicit requests win",
  );
  t.match(app, { terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" });
  t.equal(pod.spec!.initContainers![0]!.imagePullPolicy, "IfNotPresent");
  t.equal(pod.spec!.volumes![0]!.configMap!.defaultMode, 420);
  t.equal(pod.spec!.volumes![1]!.secret!.defaultMode, 0o600);
  t.equal(pod.spec!.volumes![2]!.hostPath!.type, "");
});

t.test("hostNetwork: the host port is the container port", async (t) => {
  const pod = defaultPod(
    podWith({ hostNetwork: true, containers: [{ name: "a", image: "x:1", ports: [{ containerPort: 8080 }] }] }),
  );
  t.equal(pod.spec!.containers[0]!.ports![0]!.hostPort, 8080);
});

t.test("defaulting never mutates its input", async (t) => {
  const input = podWith({ containers: [{ name: "a", image: "busybox", ports: [{ containerPort: 1 }] }] });
  const before = JSON.stringify(input);
  defaultPod(input);
  t.equal(JSON.stringify(input), before);
});

t.test("ConfigMap and Secret", async (t) => {
  t.same(defaultConfigMap({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }).metadata, {
    name: "c",
    namespace: "default",
  });
  const secret = defaultSecret({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" } });
  t.equal(secret.type, "Opaque");
  t.equal(secret.metadata!.namespace, "default");
});

t.test(
  "a null item of command or args is the empty string, as Go decodes it (found by the fuzzing test)",
  async (t) => {
    const pod = defaultPod(
      podWith({
        containers: [
          {
            name: "a",
            image: "busybox",
            command: ["sh", null] as unknown as string[],
            args: [null, "x"] as unknown as string[],
          },
        ],
      }),
    );
    t.same(pod.spec!.containers[0]!.command, ["sh", ""]);
    t.same(pod.spec!.containers[0]!.args, ["", "x"]);
  },
);
