import type { Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import type { LiveStatus } from "../../lib/output/live-status.js";
import { showPodProgress } from "../../lib/output/live-status-sink.js";

// The live block of `up --wait` follows the pod's flow: a kept pod's init containers, the wait's
// view of each container. (Its events are the console sink's and the live sink's business.)

function recordingLive() {
  const rows: string[] = [];
  const live: LiveStatus = {
    set: (label, text, tone) => rows.push(`${label} ${text} ${tone}`),
    print: () => undefined,
    stop: () => undefined,
  };
  return { rows, live };
}

const pod: Pod = {
  metadata: { name: "web" },
  spec: {
    initContainers: [
      { name: "migrate", image: "busybox" },
      { name: "proxy", image: "busybox", restartPolicy: "Always" },
    ],
    containers: [{ name: "app", image: "busybox" }],
  },
};

t.test("a kept pod: its init containers completed, its sidecars run", async (t) => {
  const { rows, live } = recordingLive();
  showPodProgress(live, pod, { kind: "kept", label: "pod/web", unchanged: ["app"] });
  t.same(rows, ["pod/web[migrate] Completed done", "pod/web[proxy] Running active"]);
});

t.test("the wait: each container's state and tone", async (t) => {
  const { rows, live } = recordingLive();
  showPodProgress(live, pod, {
    kind: "containers",
    label: "pod/web",
    containers: [
      { name: "proxy", state: "Ready", ready: true, failed: false },
      { name: "app", state: "Waiting for readiness (1/3)", ready: false, failed: false },
    ],
  });
  showPodProgress(live, pod, {
    kind: "containers",
    label: "pod/web",
    containers: [{ name: "app", state: "Terminated", ready: false, failed: true }],
  });
  t.same(rows, [
    "pod/web[proxy] Ready done",
    "pod/web[app] Waiting for readiness (1/3) active",
    "pod/web[app] Terminated failed",
  ]);
});

t.test("the other steps leave the block as it is", async (t) => {
  const { rows, live } = recordingLive();
  showPodProgress(live, pod, { kind: "ending", label: "pod/web" });
  t.same(rows, []);
});
