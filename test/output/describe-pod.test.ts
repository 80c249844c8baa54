import t from "tap";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { FoldedRow } from "../../lib/events/fold.js";
import type { KubeEvent } from "../../lib/events/types.js";
import { describeProbe, formatPodDescription, qosClass } from "../../lib/output/describe-pod.js";
import { alignTabs } from "../../lib/output/tab-writer.js";

// `podrun describe pod`'s layout from fixed input (pure): kubectl's sections, tabwriter alignment,
// a Secret named but never shown, probes, QoS, folded events. On the engines: kubectl-verbs.ts.

t.test("tabwriter: a column is as wide as its widest cell over consecutive lines, plus 2", async (t) => {
  t.same(alignTabs(["Name:\tweb", "Service Account:\tdefault", "IPs:", "  IP:\t10.0.0.1"]), [
    "Name:             web",
    "Service Account:  default",
    "IPs:",
    "  IP:  10.0.0.1",
  ]);
  t.same(alignTabs(["a\tbb\tc", "aaa\tb\tcc", "x"]), ["a    bb  c", "aaa  b   cc", "x"]);
});

const status: Pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "ci", labels: { tier: "web", app: "shop" } },
  status: {
    phase: "Running",
    podIP: "10.244.0.7",
    podIPs: [{ ip: "10.244.0.7" }],
    startTime: "2026-12-04T02:00:00Z",
    conditions: [
      { type: "Initialized", status: "True" },
      { type: "Ready", status: "False" },
      { type: "ContainersReady", status: "False" },
    ],
    containerStatuses: [
      {
        name: "app",
        image: "shop:1",
        imageID: "",
        containerID: "docker://abc",
        restartCount: 4,
        ready: false,
        state: { waiting: { reason: "CrashLoopBackOff", message: "back-off" } },
        lastState: {
          terminated: {
            exitCode: 3,
            reason: "Error",
            startedAt: "2026-12-04T02:00:10Z",
            finishedAt: "2026-12-04T02:00:11Z",
          },
        },
      },
    ],
  },
};

const spec: Pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "ci", annotations: { "example.com/team": "shop" } },
  spec: {
    containers: [
      {
        name: "app",
        image: "shop:1",
        ports: [{ containerPort: 8080, protocol: "TCP" }],
        env: [
          { name: "MODE", value: "ci" },
          { name: "PASSWORD", valueFrom: { secretKeyRef: { name: "db", key: "password" } } },
        ],
        livenessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 5 },
        resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "100m", memory: "64Mi" } },
        volumeMounts: [{ name: "config", mountPath: "/etc/shop", readOnly: true }],
      },
    ],
    volumes: [{ name: "config", configMap: { name: "shop-config" } }],
  },
};

const event = (reason: string, type: string, message: string): KubeEvent =>
  ({ type, reason, message, source: { component: "podrun", host: "vm" } }) as unknown as KubeEvent;
const rows = [
  { event: event("Started", "Normal", "Started container app"), count: 1, firstMs: 0, lastMs: 50_000 },
  {
    event: event("BackOff", "Warning", "Back-off restarting failed container app"),
    count: 4,
    firstMs: 20_000,
    lastMs: 58_000,
  },
] as unknown as FoldedRow[];

t.test("a crash-looping container: its state, last state and exit code, probes, env, events", async (t) => {
  const text = formatPodDescription({
    status,
    spec,
    controlledBy: "Deployment/shop",
    node: "vm",
    events: rows,
    nowMs: 60_000,
  });
  const lines = text.split("\n");
  t.same(lines.slice(0, 11), [
    "Name:             web",
    "Namespace:        ci",
    "Service Account:  default",
    "Node:             vm",
    "Start Time:       Fri, 04 Dec 2026 02:00:00 +0000",
    "Labels:           app=shop",
    "                  tier=web",
    "Annotations:      example.com/team=shop",
    "Status:           Running",
    "IP:               10.244.0.7",
    "IPs:",
  ]);
  for (const expected of [
    "Controlled By:  Deployment/shop",
    "    State:          Waiting",
    "      Reason:       CrashLoopBackOff",
    "    Last State:     Terminated",
    "      Exit Code:    3",
    "    Restart Count:  4",
    "      PASSWORD:  <set to the key 'password' in secret 'db'>  Optional: false",
    "      /etc/shop from config (ro)",
    "QoS Class:       Guaranteed",
    "  Warning  BackOff  2s (x4 over 40s)  podrun  Back-off restarting failed container app",
  ])
    t.ok(lines.includes(expected), expected);
  // As Go's tabwriter aligns them: with the cells of the lines around (kubectl's own output does so).
  t.match(
    text,
    /\n {4}Liveness: +http-get http:\/\/:8080\/healthz delay=0s timeout=1s period=5s #success=1 #failure=3\n/,
  );
  t.match(text, /\n {4}Type: +ConfigMap \(a volume populated by a ConfigMap\)\n/);
  t.notMatch(text, /s3cret/, "no Secret value");
});

t.test("the probe line and the QoS class, as kubectl computes them", async (t) => {
  t.equal(
    describeProbe({ exec: { command: ["cat", "/tmp/ready"] } }),
    "exec [cat /tmp/ready] delay=0s timeout=1s period=10s #success=1 #failure=3",
  );
  t.equal(
    describeProbe({ tcpSocket: { port: 5432 }, initialDelaySeconds: 3 }),
    "tcp-socket :5432 delay=3s timeout=1s period=10s #success=1 #failure=3",
  );
  t.equal(qosClass({ spec: { containers: [{ name: "a" }] } }), "BestEffort");
  t.equal(qosClass({ spec: { containers: [{ name: "a", resources: { requests: { memory: "1Mi" } } }] } }), "Burstable");
  t.equal(qosClass(spec), "Guaranteed");
});
