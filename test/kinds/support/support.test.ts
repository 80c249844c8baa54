import t from "tap";
import { formatFieldError, type FieldError } from "../../../lib/manifest/field-error.js";
import { findIgnoredFields } from "../../../lib/kinds/support/support.js";

const ignored = (pod: unknown): string[] => {
  const found: FieldError[] = [];
  findIgnoredFields(pod, (w) => found.push(w));
  return found.map((w) => `${[w.path, ...(w.others ?? [])].map((p) => p.display).join(", ")}: ${w.detail}`);
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
        imagePullSecrets: [{ name: "regcred" }],
        initContainers: [{ name: "i", image: "x", command: ["true"] }],
        containers: [
          {
            name: "a",
            image: "x",
            args: ["-v"],
            env: [{ name: "A", value: "1" }],
            ports: [{ containerPort: 80, name: "http" }],
            lifecycle: { postStart: { exec: { command: ["true"] } } },
          },
        ],
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
          {
            name: "a",
            image: "x",
            resources: { limits: { cpu: "1", "ephemeral-storage": "1Gi" } },
            env: [
              { name: "A", valueFrom: { fileKeyRef: { volumeName: "e", path: "p", key: "k" } } },
              { name: "B", valueFrom: { secretKeyRef: { name: "s", key: "k" } } },
            ],
            envFrom: [{ configMapRef: { name: "c" } }],
          },
          {
            name: "b",
            image: "x",
            livenessProbe: { tcpSocket: { port: 80 } },
            volumeMounts: [{ name: "v", mountPath: "/v", readOnly: true, recursiveReadOnly: "Enabled" }],
          },
        ],
        volumes: [
          { name: "e", emptyDir: {} },
          { name: "v", nfs: { server: "s", path: "/" } },
        ],
      },
      status: { phase: "Running" },
    }),
    [
      "metadata.ownerReferences: not supported by podrun yet: ignored",
      "spec.containers[0].resources.limits.ephemeral-storage: not supported by podrun yet: ignored",
      "spec.volumes[1].nfs: not supported by podrun yet: ignored",
      "status: not supported by podrun yet: ignored",
      "spec.nodeSelector: scheduling does not apply on one machine: ignored",
      "spec.containers[1].livenessProbe: probed only while `podrun up --wait` waits (a failure restarts the container, as the kubelet does): not probed once podrun returns",
      "spec.containers[1].volumeMounts[0].recursiveReadOnly: mounted read-only, but not recursively: podrun asks none of the engines for recursive read-only binds (docker 25 and podman 5 can)",
    ],
  );
});

t.test(
  "mountPropagation and recursiveReadOnly IfPossible are acted on, but a Memory emptyDir mounted once is a private tmpfs",
  async (t) => {
    const volumes = [
      { name: "mem", emptyDir: { medium: "Memory" } },
      { name: "disk", emptyDir: {} },
      { name: "host", hostPath: { path: "/mnt" } },
    ];
    const mounts = [
      { name: "mem", mountPath: "/mem", mountPropagation: "HostToContainer" },
      { name: "disk", mountPath: "/disk", mountPropagation: "HostToContainer" },
      { name: "host", mountPath: "/host", mountPropagation: "None", readOnly: true, recursiveReadOnly: "IfPossible" },
    ];
    t.same(ignored({ spec: { volumes, containers: [{ name: "a", image: "x", volumeMounts: mounts }] } }), [
      "spec.containers[0].volumeMounts[0].mountPropagation: this Memory emptyDir is the container's own tmpfs, which the engines mount private: no propagation",
    ]);
  },
);

t.test(
  "readiness and startup probes of app containers and sidecars are acted on (up --wait, init order); liveness only while up --wait waits, in one Warning",
  async (t) => {
    const probe = { httpGet: { port: 80 }, periodSeconds: 1 };
    const sidecar = {
      name: "s",
      image: "x",
      restartPolicy: "Always",
      readinessProbe: probe,
      startupProbe: probe,
      livenessProbe: probe,
      lifecycle: { preStop: { sleep: { seconds: 1 } } },
    };
    t.same(
      ignored({
        spec: {
          initContainers: [sidecar],
          containers: [{ name: "a", image: "x", readinessProbe: probe, startupProbe: probe, livenessProbe: probe }],
        },
      }),
      [
        "spec.initContainers[0].livenessProbe, spec.containers[0].livenessProbe: probed only while `podrun up --wait` waits (a failure restarts the container, as the kubelet does): not probed once podrun returns",
      ],
    );
  },
);

t.test(
  "cpu and memory limits and requests are acted on, for containers and init containers; other resources are not",
  async (t) => {
    const resources = {
      limits: { cpu: "500m", memory: "64Mi", "ephemeral-storage": "1Gi", "hugepages-2Mi": "4Mi" },
      requests: { cpu: "250m", memory: "32Mi", "ephemeral-storage": "1Gi", "example.com/gpu": "1" },
      claims: [{ name: "gpu" }],
    };
    t.same(
      ignored({
        spec: {
          resources: { limits: { cpu: "1" } },
          initContainers: [{ name: "i", image: "x", resources }],
          containers: [
            { name: "a", image: "x", resources, resizePolicy: [{ resourceName: "cpu", restartPolicy: "NotRequired" }] },
          ],
        },
      }),
      [
        "spec.initContainers[0].resources.limits.ephemeral-storage: not supported by podrun yet: ignored",
        "spec.initContainers[0].resources.limits.hugepages-2Mi: not supported by podrun yet: ignored",
        "spec.initContainers[0].resources.requests.ephemeral-storage: not supported by podrun yet: ignored",
        "spec.initContainers[0].resources.requests.example.com/gpu: not supported by podrun yet: ignored",
        "spec.initContainers[0].resources.claims: not supported by podrun yet: ignored",
        "spec.containers[0].resources.limits.ephemeral-storage: not supported by podrun yet: ignored",
        "spec.containers[0].resources.limits.hugepages-2Mi: not supported by podrun yet: ignored",
        "spec.containers[0].resources.requests.ephemeral-storage: not supported by podrun yet: ignored",
        "spec.containers[0].resources.requests.example.com/gpu: not supported by podrun yet: ignored",
        "spec.containers[0].resources.claims: not supported by podrun yet: ignored",
        "spec.containers[0].resizePolicy: not supported by podrun yet: ignored",
      ],
    );
  },
);

t.test("null fields count as unset", async (t) => {
  t.same(ignored({ spec: { nodeSelector: null, containers: [{ name: "a", image: "x", resources: null }] } }), []);
});

t.test("warnings are located on the key", async (t) => {
  const found: FieldError[] = [];
  findIgnoredFields({ spec: { affinity: {} } }, (w) => found.push(w));
  t.equal(found[0]!.atKey, true);
  t.equal(formatFieldError(found[0]!), "spec.affinity: Forbidden: scheduling does not apply on one machine: ignored");
});

t.test("the scheduling fields share one warning, located at the first one written", async (t) => {
  const found: FieldError[] = [];
  const spec = {
    nodeName: "n1",
    nodeSelector: { disk: "ssd" },
    affinity: { nodeAffinity: {} },
    runtimeClassName: "gvisor",
    tolerations: [{ key: "k", operator: "Exists" }],
    priority: 10,
    priorityClassName: "high",
    preemptionPolicy: "Never",
    schedulerName: "other",
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" }],
    schedulingGates: [{ name: "g" }],
    containers: [{ name: "a", image: "x" }],
  };
  findIgnoredFields({ spec }, (w) => found.push(w));
  t.same(
    found.map((w) => [w.path.display, ...(w.others ?? []).map((p) => p.display)].join(", ") + `: ${w.detail}`),
    [
      "spec.runtimeClassName: not supported by podrun yet: ignored",
      "spec.nodeName, spec.nodeSelector, spec.affinity, spec.tolerations, spec.priority, spec.priorityClassName, spec.preemptionPolicy, spec.schedulerName, spec.topologySpreadConstraints, spec.schedulingGates: scheduling does not apply on one machine: ignored",
    ],
  );
  t.same(found[1]!.path.segments, ["spec", "nodeName"], "the position is the first field's");
  t.same(ignored({ spec: { containers: [{ name: "a", image: "x" }] } }), [], "none set: no line");
});

t.test("emptyDir volumes, their mounts and preStop hooks are acted on", async (t) => {
  t.same(
    ignored({
      spec: {
        volumes: [
          { name: "cache", emptyDir: { sizeLimit: "64Mi" } },
          { name: "mem", emptyDir: { medium: "Memory" } },
        ],
        initContainers: [{ name: "i", image: "x", volumeMounts: [{ name: "cache", mountPath: "/cache" }] }],
        containers: [
          {
            name: "a",
            image: "x",
            volumeMounts: [
              { name: "cache", mountPath: "/c", readOnly: true },
              { name: "mem", mountPath: "/m" },
            ],
            lifecycle: { preStop: { exec: { command: ["x"] } } },
          },
        ],
      },
    }),
    [],
  );
});

t.test("a Memory emptyDir mounted more than once is named: it is backed by disk", async (t) => {
  t.same(
    ignored({
      spec: {
        volumes: [
          { name: "once", emptyDir: { medium: "Memory" } },
          { name: "shared", emptyDir: { medium: "Memory" } },
        ],
        containers: [
          {
            name: "a",
            image: "x",
            volumeMounts: [
              { name: "once", mountPath: "/o" },
              { name: "shared", mountPath: "/s" },
            ],
          },
          { name: "b", image: "x", volumeMounts: [{ name: "shared", mountPath: "/s" }] },
        ],
      },
    }),
    [
      "spec.volumes[1].emptyDir.medium: mounted more than once, or by subPath: podrun backs this volume with an engine volume on disk, since a tmpfs cannot be shared or bound by subPath",
    ],
  );
});

t.test(
  "configMap, secret, downwardAPI, hostPath and projected volumes, subPath and subPathExpr are acted on; projections without an API server are not",
  async (t) => {
    t.same(
      ignored({
        spec: {
          containers: [
            {
              name: "a",
              image: "x",
              volumeMounts: [
                { name: "c", mountPath: "/c", subPath: "k", readOnly: true },
                { name: "h", mountPath: "/h", subPathExpr: "$(X)" },
              ],
            },
          ],
          volumes: [
            {
              name: "c",
              configMap: {
                name: "c",
                items: [{ key: "k", path: "k", mode: 0o400 }],
                defaultMode: 0o644,
                optional: true,
              },
            },
            { name: "s", secret: { secretName: "s", defaultMode: 0o400 } },
            { name: "d", downwardAPI: { items: [{ path: "l", fieldRef: { fieldPath: "metadata.labels" } }] } },
            { name: "h", hostPath: { path: "/tmp", type: "Directory" } },
            {
              name: "p",
              projected: {
                defaultMode: 0o444,
                sources: [
                  { configMap: { name: "c" } },
                  { secret: { name: "s" } },
                  { downwardAPI: { items: [] } },
                  { serviceAccountToken: { path: "token" } },
                  { clusterTrustBundle: { path: "b" } },
                ],
              },
            },
          ],
        },
      }),
      [
        "spec.volumes[4].projected.sources[3].serviceAccountToken: not supported by podrun yet: ignored",
        "spec.volumes[4].projected.sources[4].clusterTrustBundle: not supported by podrun yet: ignored",
      ],
    );
  },
);

t.test(
  "pod-level settings are acted on; a written ClusterFirst and a hostNetwork pod's settings are named",
  async (t) => {
    const settings = {
      hostname: "shop",
      hostAliases: [{ ip: "10.1.2.3", hostnames: ["foo.local"] }],
      dnsConfig: { nameservers: ["10.9.8.7"], searches: ["example"], options: [{ name: "ndots", value: "2" }] },
      shareProcessNamespace: true,
      enableServiceLinks: false,
    };
    const containers = [{ name: "a", image: "x" }];
    t.same(
      ignored({ spec: { ...settings, dnsPolicy: "None", containers } }),
      [],
      "None and Default are made as written",
    );
    t.same(ignored({ spec: { ...settings, dnsPolicy: "Default", containers } }), []);
    t.same(
      ignored({ spec: { dnsPolicy: "ClusterFirst", containers } }),
      [],
      "ClusterFirst is the engine's DNS on the cluster network",
    );
    t.same(
      ignored({ spec: { dnsPolicy: "ClusterFirstWithHostNet", containers } }),
      [],
      "and so is WithHostNet off the host",
    );
    t.same(
      ignored({ spec: { dnsPolicy: "ClusterFirst", hostNetwork: true, containers } }),
      [],
      "a node falls back to Default for a hostNetwork pod too",
    );
    t.same(ignored({ spec: { dnsPolicy: "ClusterFirstWithHostNet", hostNetwork: true, containers } }), [
      "spec.dnsPolicy: podrun's cluster DNS answers on its own network, which a hostNetwork pod does not join: ClusterFirstWithHostNet acts as Default (the host's resolv.conf, with dnsConfig)",
    ]);
    t.same(
      ignored({ spec: { ...settings, hostNetwork: true, shareProcessNamespace: false, containers } }),
      [],
      "a hostNetwork pod's /etc/hosts and resolv.conf are made too",
    );
    t.same(ignored({ spec: { ...settings, hostNetwork: true, containers } }), [
      "spec.shareProcessNamespace: not applied by podrun to a hostNetwork pod: ignored",
    ]);
    t.same(ignored({ spec: { subdomain: "web", containers } }), [], "subdomain: the FQDN in /etc/hosts");
    t.same(
      ignored({
        spec: {
          hostPID: true,
          hostIPC: true,
          securityContext: { sysctls: [{ name: "net.ipv4.ip_local_port_range", value: "1024 2048" }] },
          containers,
        },
      }),
      [],
      "hostPID, hostIPC and sysctls are acted on",
    );
    t.same(
      ignored({
        spec: {
          hostNetwork: true,
          securityContext: { sysctls: [{ name: "net.core.somaxconn", value: "1024" }] },
          containers,
        },
      }),
      ["spec.securityContext.sysctls: not applied by podrun to a hostNetwork pod: ignored"],
    );
  },
);

t.test(
  "securityContext: users, groups, fsGroup, runAsNonRoot, read-only root, capabilities, privileges, procMount are acted on",
  async (t) => {
    const own = {
      runAsUser: 1000,
      runAsGroup: 3000,
      readOnlyRootFilesystem: true,
      capabilities: { add: ["NET_ADMIN"], drop: ["ALL"] },
      privileged: false,
      allowPrivilegeEscalation: false,
    };
    t.same(
      ignored({
        spec: {
          securityContext: {
            runAsUser: 1000,
            runAsGroup: 3000,
            runAsNonRoot: true,
            supplementalGroups: [2000],
            fsGroup: 2000,
            fsGroupChangePolicy: "OnRootMismatch",
            seccompProfile: { type: "RuntimeDefault" },
          },
          initContainers: [{ name: "i", image: "x", securityContext: own }],
          containers: [
            {
              name: "a",
              image: "x",
              securityContext: {
                ...own,
                runAsNonRoot: true,
                procMount: "Default",
                seccompProfile: { type: "Unconfined" },
              },
            },
          ],
          os: { name: "linux" },
        },
      }),
      [],
    );
  },
);
