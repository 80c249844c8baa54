import type { Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import { buildContainerSpec, buildSandboxSpec, initContainerKind } from "../../../lib/pod/spec/container-spec.js";
import { containerLabels, containerRuntimeName, sandboxRuntimeName } from "../../../lib/pod/identity.js";

const identity = { name: "web", namespace: "ci", uid: "u-1" };
const pod = (spec: Partial<Pod["spec"]>, labels?: Record<string, string>): Pod =>
  defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "ci", ...(labels ? { labels } : {}) },
    spec: { containers: [], ...spec },
  });

t.test("names and labels", async (t) => {
  t.equal(containerRuntimeName(identity, "app"), "ci_web_app");
  t.equal(sandboxRuntimeName(identity), "ci_web");
  t.same(containerLabels(identity, "app"), {
    "io.kubernetes.pod.name": "web",
    "io.kubernetes.pod.namespace": "ci",
    "io.kubernetes.pod.uid": "u-1",
    "io.kubernetes.container.name": "app",
    "io.podrun.managed": "true",
  });
});

t.test("container spec from a Kubernetes container", async (t) => {
  const p = pod({
    restartPolicy: "OnFailure",
    terminationGracePeriodSeconds: 5,
    containers: [
      {
        name: "app",
        image: "busybox",
        command: ["sh", "-c"],
        args: [],
        workingDir: "/srv",
        env: [
          { name: "A", value: "1" },
          { name: "B" },
          { name: "C", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        ],
      },
    ],
  });
  const spec = buildContainerSpec({
    pod: p,
    identity,
    container: p.spec!.containers[0]!,
    kind: "app",
    imageRef: "busybox:latest",
  });
  t.same(spec, {
    name: "ci_web_app",
    image: "busybox:latest",
    command: ["sh", "-c"],
    args: undefined,
    env: [
      { name: "A", value: "1" },
      { name: "B", value: "" },
      { name: "C", value: "web" },
    ],
    workingDir: "/srv",
    // The spec hash is tested in spec-hash.test.ts.
    labels: {
      ...containerLabels(identity, "app", "app"),
      "io.kubernetes.pod.terminationGracePeriod": "5",
      "io.podrun.spec-hash": spec.labels["io.podrun.spec-hash"],
    },
    sandbox: "ci_web",
    hostNetwork: false,
    restartPolicy: "on-failure",
    stopTimeoutSeconds: 5,
  });
  const init = buildContainerSpec({
    pod: p,
    identity,
    container: p.spec!.containers[0]!,
    kind: "init",
    imageRef: "busybox:latest",
  });
  t.equal(init.restartPolicy, "no", "init containers never restart");
  for (const [policy, engine] of [
    ["Always", "always"],
    ["Never", "no"],
  ] as const) {
    const q = pod({ restartPolicy: policy, containers: [{ name: "a", image: "x:1" }] });
    t.equal(
      buildContainerSpec({ pod: q, identity, container: q.spec!.containers[0]!, kind: "app", imageRef: "x:1" })
        .restartPolicy,
      engine,
    );
  }
});

t.test("sandbox: the pod's labels, hostPort ports only unless --publish-all", async (t) => {
  const p = pod(
    {
      initContainers: [{ name: "i", image: "x:1", ports: [{ containerPort: 9000, hostPort: 19000 }] }],
      containers: [
        {
          name: "a",
          image: "x:1",
          ports: [
            { containerPort: 80, hostPort: 8080, hostIP: "127.0.0.1" },
            { containerPort: 53, protocol: "UDP" },
          ],
        },
      ],
    },
    { app: "web" },
  );
  const sandbox = buildSandboxSpec({ pod: p, identity, infraImage: "pause:3.10", publishAll: false });
  t.same(sandbox, {
    name: "ci_web",
    image: "pause:3.10",
    labels: {
      app: "web",
      ...containerLabels(identity, "POD", "infra"),
      // The app containers' and sidecars' ports, for a Service's named targetPort (not the plain init container's).
      "io.podrun.pod.ports": JSON.stringify([
        { containerPort: 80, protocol: "TCP" },
        { containerPort: 53, protocol: "UDP" },
      ]),
    },
    hostname: "web",
    ports: [
      { containerPort: 9000, hostPort: 19000, protocol: "TCP" },
      { containerPort: 80, hostPort: 8080, protocol: "TCP", hostIP: "127.0.0.1" },
    ],
    hostNetwork: false,
  });
  const all = buildSandboxSpec({ pod: p, identity, infraImage: "pause:3.10", publishAll: true });
  t.same(all.ports.at(-1), { containerPort: 53, hostPort: 53, protocol: "UDP" });
  const host = pod({ hostNetwork: true, containers: [{ name: "a", image: "x:1", ports: [{ containerPort: 80 }] }] });
  t.same(
    buildSandboxSpec({ pod: host, identity, infraImage: "p", publishAll: true }).ports,
    [],
    "hostNetwork publishes nothing",
  );
});

t.test("volume mounts, and what `down` reads back from the labels", async (t) => {
  const p = pod({
    terminationGracePeriodSeconds: 7,
    volumes: [
      { name: "data", emptyDir: {} },
      { name: "conf", configMap: { name: "c" } },
      { name: "mem", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } },
    ],
    containers: [
      {
        name: "app",
        image: "x:1",
        ports: [{ name: "http", containerPort: 8080 }],
        volumeMounts: [
          { name: "data", mountPath: "/data", readOnly: true },
          { name: "conf", mountPath: "/etc/conf" },
          { name: "mem", mountPath: "/mem" },
        ],
        lifecycle: { preStop: { httpGet: { path: "/quit", port: "http" } } },
      },
    ],
  });
  const spec = buildContainerSpec({
    pod: p,
    identity,
    container: p.spec!.containers[0]!,
    kind: "app",
    imageRef: "x:1",
  });
  t.same(
    spec.mounts,
    [
      { volume: "ci_web_data", target: "/data", readOnly: true },
      { volume: "conf", target: "/etc/conf", readOnly: true, bind: { from: "files" } },
      { volume: "ci_web_mem", target: "/mem", readOnly: false, tmpfs: true, tmpfsSizeBytes: 1048576 },
    ],
    "the configMap mount is a read-only bind of its files",
  );
  t.equal(spec.labels["io.kubernetes.pod.terminationGracePeriod"], "7");
  t.same(
    JSON.parse(spec.labels["io.kubernetes.container.preStopHandler"]!),
    { httpGet: { path: "/quit", port: 8080, scheme: "HTTP" } },
    "a named port is stored as its number",
  );
  const init = buildContainerSpec({
    pod: p,
    identity,
    container: { name: "i", image: "x:1" },
    kind: "init",
    imageRef: "x:1",
  });
  t.notOk("mounts" in init, "no mounts: no key");
  t.notOk("io.kubernetes.container.preStopHandler" in init.labels);
});

t.test(
  "a sidecar: kind label, restart policy always whatever the pod's, its preStop hook on a label, the pod's stop timeout",
  async (t) => {
    const preStop = { exec: { command: ["sh", "-c", "drain"] } };
    const p = pod({
      restartPolicy: "Never",
      terminationGracePeriodSeconds: 2,
      initContainers: [
        { name: "proxy", image: "busybox", restartPolicy: "Always", lifecycle: { preStop } },
        { name: "setup", image: "busybox" },
      ],
    });
    const [proxy, setup] = p.spec!.initContainers!;
    t.equal(initContainerKind(proxy!), "sidecar");
    t.equal(initContainerKind(setup!), "init");
    const sidecar = buildContainerSpec({
      pod: p,
      identity,
      container: proxy!,
      kind: "sidecar",
      imageRef: "busybox:latest",
    });
    t.equal(sidecar.restartPolicy, "always");
    t.equal(sidecar.stopTimeoutSeconds, 2);
    t.equal(sidecar.labels["io.podrun.container.kind"], "sidecar");
    t.same(
      JSON.parse(sidecar.labels["io.kubernetes.container.preStopHandler"]!),
      preStop,
      "`down POD` finds the hook without the manifest",
    );
    const init = buildContainerSpec({ pod: p, identity, container: setup!, kind: "init", imageRef: "busybox:latest" });
    t.equal(init.restartPolicy, "no");
  },
);

t.test(
  "the spec hash counts what a mount means: source, subPath, readOnly, and a subPath's content only",
  async (t) => {
    const cfg = (value: string) => ({
      configMaps: [{ metadata: { name: "c", namespace: identity.namespace }, data: { k: value } }],
      secrets: [],
    });
    const hashOf = (mounts: Record<string, unknown>[], volumes: Record<string, unknown>[], value = "v1") => {
      const p = pod({
        volumes: volumes as never,
        containers: [{ name: "app", image: "x:1", volumeMounts: mounts as never }],
      });
      return buildContainerSpec({
        pod: p,
        identity,
        container: p.spec!.containers[0]!,
        kind: "app",
        imageRef: "x:1",
        objects: cfg(value),
      }).labels["io.podrun.spec-hash"];
    };
    const host = [{ name: "h", hostPath: { path: "/srv" } }];
    const base = hashOf([{ name: "h", mountPath: "/h" }], host);
    t.not(hashOf([{ name: "h", mountPath: "/h", readOnly: true }], host), base, "readOnly");
    t.not(hashOf([{ name: "h", mountPath: "/h", subPath: "a" }], host), base, "subPath");
    t.not(
      hashOf([{ name: "h", mountPath: "/h", subPathExpr: "a" }], host),
      hashOf([{ name: "h", mountPath: "/h", subPath: "a" }], host),
      "subPathExpr is not subPath",
    );
    t.not(
      hashOf([{ name: "h", mountPath: "/h" }], [{ name: "h", hostPath: { path: "/other" } }]),
      base,
      "the host path",
    );
    const conf = [{ name: "conf", configMap: { name: "c" } }];
    t.equal(
      hashOf([{ name: "conf", mountPath: "/c" }], conf, "v1"),
      hashOf([{ name: "conf", mountPath: "/c" }], conf, "v2"),
      "a whole mount: updated in place, the container kept",
    );
    t.not(
      hashOf([{ name: "conf", mountPath: "/c/k", subPath: "k" }], conf, "v1"),
      hashOf([{ name: "conf", mountPath: "/c/k", subPath: "k" }], conf, "v2"),
      "a subPath: recreated",
    );
  },
);
