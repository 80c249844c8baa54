import t from "tap";
import { defaultPod } from "../../lib/manifest/defaults.js";
import { buildContainerSpec, computePodHash } from "../../lib/pod/spec/container-spec.js";
import {
  applyActiveDeadline,
  deadlineAtMs,
  parseEngineTime,
  podStartMs,
  readActiveDeadline,
} from "../../lib/pod/active-deadline.js";
import { activeDeadlineLabels, LABEL_ACTIVE_DEADLINE } from "../../lib/pod/spec/stop-labels.js";
import type { PodRecord } from "../../lib/pod/status/find-pods.js";
import { toPodObject } from "../../lib/pod/status/pod-object.js";
import { summarizePod } from "../../lib/pod/status/pod-status.js";
import type { ContainerState } from "../../lib/runtime/types.js";

// spec.activeDeadlineSeconds as the kubelet judges it (pastActiveDeadline: now - startTime >=
// deadline), from what the engine says: the start time is the sandbox's creation, the deadline a
// label on the containers. The real engines: test/commands/active-deadline.e2e.test.ts.

const START = "2026-01-01T10:00:00.123456789Z";
const START_MS = Date.parse("2026-01-01T10:00:00.123Z");

function container(
  name: string,
  kind: "app" | "init" | "infra",
  state: Partial<ContainerState> = {},
  deadline?: number,
): ContainerState {
  return {
    id: `${name}-id`,
    name: `default_job_${name}`,
    status: "running",
    running: true,
    exitCode: 0,
    startedAt: "2026-01-01T10:00:01Z",
    finishedAt: "",
    createdAt: "2026-01-01T10:00:00.5Z",
    restartCount: 0,
    labels: {
      "io.kubernetes.pod.name": "job",
      "io.kubernetes.pod.namespace": "default",
      "io.kubernetes.container.name": name,
      "io.podrun.container.kind": kind,
      ...(deadline !== undefined ? { [LABEL_ACTIVE_DEADLINE]: String(deadline) } : {}),
    },
    image: "busybox:1.36",
    ...state,
  };
}

const exited = (exitCode: number, finishedAt: string): Partial<ContainerState> => ({
  status: "exited",
  running: false,
  exitCode,
  finishedAt,
});

function record(apps: ContainerState[], options: { hostNetwork?: boolean } = {}): PodRecord {
  const infra = options.hostNetwork ? undefined : container("POD", "infra", { createdAt: START, ip: "10.88.0.9" });
  return {
    name: "job",
    namespace: "default",
    uid: "uid-1",
    ...(infra ? { infra } : {}),
    initContainers: [],
    appContainers: apps,
  };
}

const judge = (pod: PodRecord, secondsAfterStart: number) =>
  applyActiveDeadline(summarizePod(pod, "docker"), pod, START_MS + secondsAfterStart * 1000);

t.test("the label: only on a pod that sets the field, read back as a number", async (t) => {
  t.same(activeDeadlineLabels({}), {}, "no field, no label: the same labels (and argv) as before");
  t.same(activeDeadlineLabels({ activeDeadlineSeconds: 30 }), { [LABEL_ACTIVE_DEADLINE]: "30" });
  t.equal(readActiveDeadline([container("app", "app", {}, 30)]), 30);
  t.equal(readActiveDeadline([container("app", "app")]), undefined);
  t.equal(
    readActiveDeadline([container("app", "app", { labels: { [LABEL_ACTIVE_DEADLINE]: "soon" } })]),
    undefined,
    "a label edited by hand is no deadline",
  );
});

t.test("start time: the sandbox's creation, else the first container's; nanoseconds read", async (t) => {
  t.equal(parseEngineTime(START), START_MS);
  t.equal(parseEngineTime(""), undefined);
  t.equal(parseEngineTime("not a time"), undefined);
  t.equal(podStartMs(container("POD", "infra", { createdAt: START }), [container("app", "app")]), START_MS);
  t.equal(
    podStartMs(undefined, [
      container("b", "app", { createdAt: "2026-01-01T10:00:03Z" }),
      container("a", "app", { createdAt: "2026-01-01T10:00:02Z" }),
    ]),
    Date.parse("2026-01-01T10:00:02Z"),
  );
  t.equal(podStartMs(undefined, []), undefined);
  t.equal(deadlineAtMs(START_MS, 2), START_MS + 2000);
});

t.test("past the deadline (now - start >= deadline): Failed, DeadlineExceeded, nothing ready", async (t) => {
  const pod = record([container("app", "app", {}, 2)]);
  t.equal(judge(pod, 1.999).status, "Running", "before it");
  const past = judge(pod, 2);
  t.equal(past.phase, "Failed", "at it: the kubelet's test is >=");
  t.equal(past.status, "DeadlineExceeded", "STATUS as kubectl prints the pod's reason");
  t.equal(past.reason, "DeadlineExceeded");
  t.equal(past.message, "Pod was active on the node longer than the specified deadline");
  t.equal(past.ready, 0);
  t.equal(past.total, 1);
  t.equal(past.containerStatuses[0]!.ready, false);
  const object = toPodObject(past);
  t.match(object.status, {
    phase: "Failed",
    reason: "DeadlineExceeded",
    message: "Pod was active on the node longer than the specified deadline",
  });
  t.notOk("reason" in toPodObject(judge(pod, 1)).status!, "no reason before it");
});

t.test("no deadline, or a pod that ended before it: unchanged", async (t) => {
  const none = record([container("app", "app")]);
  t.same(judge(none, 3600), summarizePod(none, "docker"));
  const succeeded = record([container("app", "app", exited(0, "2026-01-01T10:00:01.5Z"), 2)]);
  t.equal(judge(succeeded, 60).status, "Completed", "Succeeded before the deadline stays Succeeded");
  const failed = record([container("app", "app", exited(3, "2026-01-01T10:00:01.5Z"), 2)]);
  t.equal(judge(failed, 60).status, "Error", "Failed by its container stays as it was");
  // Stopped at the deadline (what `up --wait` does): the exit came after it.
  const stopped = record([container("app", "app", exited(143, "2026-01-01T10:00:03Z"), 2)]);
  t.equal(judge(stopped, 60).status, "DeadlineExceeded");
});

t.test("a hostNetwork pod (no sandbox) counts from its first container", async (t) => {
  const pod = record([container("app", "app", { createdAt: "2026-01-01T10:00:10Z" }, 5)], { hostNetwork: true });
  t.equal(judge(pod, 14.8).status, "Running");
  t.equal(judge(pod, 15.2).status, "DeadlineExceeded");
});

t.test("the pod hash: unchanged without the field, another one with it (a new deadline is a new pod)", async (t) => {
  const manifest = (extra: object) =>
    defaultPod({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "job" },
      spec: { containers: [{ name: "app", image: "busybox:1.36" }], ...extra },
    });
  const identity = { name: "job", namespace: "default", uid: "u" };
  const hash = (extra: object) =>
    computePodHash({ pod: manifest(extra), identity, infraImage: "registry.k8s.io/pause:3.10", publishAll: false });
  t.not(hash({ activeDeadlineSeconds: 30 }), hash({}));
  t.not(hash({ activeDeadlineSeconds: 30 }), hash({ activeDeadlineSeconds: 60 }));
  const pod = manifest({ activeDeadlineSeconds: 30 });
  const spec = buildContainerSpec({
    pod,
    identity,
    container: pod.spec!.containers[0]!,
    kind: "app",
    imageRef: "busybox:1.36",
  });
  t.equal(spec.labels[LABEL_ACTIVE_DEADLINE], "30");
  const plain = manifest({});
  const without = buildContainerSpec({
    pod: plain,
    identity,
    container: plain.spec!.containers[0]!,
    kind: "app",
    imageRef: "busybox:1.36",
  });
  t.notOk(LABEL_ACTIVE_DEADLINE in without.labels);
  t.equal(
    spec.labels["io.podrun.spec-hash"],
    without.labels["io.podrun.spec-hash"],
    "the container's own hash does not change",
  );
});
