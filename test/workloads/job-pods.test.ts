import t from "tap";
import { expandWorkload } from "../../lib/workloads/expand.js";
import {
  COMPLETION_INDEX_KEY,
  isJobPod,
  jobPod,
  nextJobPodName,
  observationsOf,
  podIndexOf,
  readJobPod,
} from "../../lib/workloads/job-pods.js";
import { parseJobRecord, expiryOf } from "../../lib/workloads/job-state.js";
import type { PodRecord } from "../../lib/pod/status/find-pods.js";
import type { ContainerState } from "../../lib/runtime/types.js";

// The pure half of a Job's pods on an engine (lib/workloads/job-pods.ts) and the Job record's
// reader (job-state.ts): pods from the template, their names, which engine pods are the Job's,
// and what a pod read back from the engine tells the controller.

const job = (spec: Record<string, unknown> = {}) =>
  expandWorkload({
    kind: "Job",
    metadata: { name: "migrate" },
    spec: {
      ...spec,
      template: {
        metadata: { labels: { app: "db" } },
        spec: {
          restartPolicy: "Never",
          containers: [{ name: "main", image: "busybox" }],
          initContainers: [{ name: "prep", image: "busybox" }],
        },
      },
    },
  } as never);

const container = (fields: Partial<ContainerState> & { name: string }): ContainerState => ({
  id: `id-${fields.name}`,
  status: "running",
  running: true,
  exitCode: 0,
  startedAt: "2026-01-01T00:00:00Z",
  finishedAt: "",
  createdAt: "2026-01-01T00:00:00Z",
  restartCount: 0,
  labels: { "io.kubernetes.container.name": fields.name },
  image: "busybox",
  ...fields,
});
const exited = (name: string, exitCode: number, finishedAt = "2026-01-01T00:00:05Z") =>
  container({ name, status: "exited", running: false, exitCode, finishedAt });
const record = (fields: Partial<PodRecord> = {}): PodRecord => ({
  name: "migrate-bcdfg",
  namespace: "default",
  uid: "u",
  initContainers: [exited("prep", 0)],
  appContainers: [],
  ...fields,
});

t.test(
  "jobPod: the template under the new name; an Indexed pod gets its index as annotation, label, env and hostname",
  async (t) => {
    const w = job();
    const pod = jobPod(w, { name: "migrate-xyz12" });
    t.equal(pod.metadata!.name, "migrate-xyz12");
    t.equal(pod.metadata!.labels!["job-name"], "migrate");
    t.equal(pod.metadata!.labels!["io.podrun.owner"], "Job/migrate");
    t.equal(w.pods[0]!.metadata!.name !== "migrate-xyz12", true, "the template is not changed");
    t.notOk(pod.spec!.hostname);

    const indexed = jobPod(job({ completionMode: "Indexed", completions: 3 }), { name: "migrate-2-xyz12", index: 2 });
    t.equal(indexed.metadata!.annotations![COMPLETION_INDEX_KEY], "2");
    t.equal(indexed.metadata!.labels![COMPLETION_INDEX_KEY], "2");
    t.equal(indexed.spec!.hostname, "migrate-2");
    for (const c of [...indexed.spec!.initContainers!, ...indexed.spec!.containers]) {
      t.same(c.env, [
        {
          name: "JOB_COMPLETION_INDEX",
          valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX_KEY}']` } },
        },
      ]);
    }
  },
);

t.test(
  "nextJobPodName: the first pod is the one validate shows; names taken are skipped; indexes in the name",
  async (t) => {
    const w = job();
    const first = nextJobPodName(w, new Set());
    t.equal(first, w.pods[0]!.metadata!.name);
    t.match(first, /^migrate-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const second = nextJobPodName(w, new Set([first]));
    t.not(second, first);
    t.equal(nextJobPodName(w, new Set([first])), second, "stable");
    t.match(nextJobPodName(w, new Set(), 4), /^migrate-4-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  },
);

t.test(
  "isJobPod: by the owner label on the sandbox; without a sandbox (hostNetwork on docker) by the name's form",
  async (t) => {
    const w = job();
    const infra = (owner: string) => container({ name: "POD", labels: { "io.podrun.owner": owner } });
    t.ok(isJobPod(record({ infra: infra("Job/migrate") }), w));
    t.notOk(isJobPod(record({ infra: infra("Job/migrate-2") }), w));
    t.notOk(isJobPod(record({ infra: infra("Job/migrate"), namespace: "other" }), w));
    t.ok(isJobPod(record({ name: "migrate-bcdfg" }), w));
    t.ok(isJobPod(record({ name: "migrate-3-bcdfg" }), w));
    t.notOk(isJobPod(record({ name: "migrate-web" }), w), "a vowel: not a drawn suffix");
    t.notOk(isJobPod(record({ name: "other-bcdfg" }), w));
    t.equal(podIndexOf(record({ name: "migrate-3-bcdfg" }), w), 3);
    t.equal(podIndexOf(record({ infra: container({ name: "POD", labels: { [COMPLETION_INDEX_KEY]: "7" } }) }), w), 7);
    t.equal(podIndexOf(record({ name: "migrate-bcdfg" }), w), undefined);
  },
);

t.test("readJobPod: finished when every app container stopped, or an init container failed", async (t) => {
  t.same(readJobPod(record({ appContainers: [container({ name: "main" })] }), "Never").state, "running");
  const done = readJobPod(record({ appContainers: [exited("main", 3)] }), "Never");
  t.same(done, {
    state: "exited",
    containers: [
      { name: "main", exitCode: 3 },
      { name: "prep", exitCode: 0, init: true },
    ],
    restartCount: 0,
    finishedAt: Date.parse("2026-01-01T00:00:05Z"),
  });
  const initFailed = readJobPod(record({ initContainers: [exited("prep", 2)] }), "Never");
  t.equal(initFailed.state, "exited");
  t.same(initFailed.containers, [{ name: "prep", exitCode: 2, init: true }]);
  t.equal(
    readJobPod(record({ appContainers: [exited("main", 0), container({ name: "side" })] }), "Never").state,
    "running",
    "one app container still runs",
  );
  const sidecar = container({
    name: "proxy",
    labels: { "io.kubernetes.container.name": "proxy", "io.podrun.container.kind": "sidecar" },
  });
  t.equal(
    readJobPod(record({ initContainers: [sidecar], appContainers: [exited("main", 0)] }), "Never").state,
    "exited",
    "a sidecar still running is not waited for",
  );
});

t.test(
  "readJobPod with OnFailure: a non-zero exit is the engine's to restart, only a zero exit is final; restarts summed",
  async (t) => {
    t.equal(readJobPod(record({ appContainers: [exited("main", 1)] }), "OnFailure").state, "running");
    t.equal(
      readJobPod(record({ appContainers: [container({ name: "main", status: "restarting" })] }), "OnFailure").state,
      "running",
    );
    const restarted = readJobPod(
      record({
        appContainers: [container({ name: "main", restartCount: 2 }), container({ name: "b", restartCount: 1 })],
      }),
      "OnFailure",
    );
    t.equal(restarted.restartCount, 3);
    t.equal(readJobPod(record({ appContainers: [exited("main", 0)] }), "OnFailure").state, "exited");
  },
);

t.test("observationsOf: started once, restarts when they grow, the exit with its time", async (t) => {
  const running = { state: "running" as const, containers: [], restartCount: 0 };
  t.same(observationsOf("p", running, { started: false, restartCount: 0 }, 10), [
    { kind: "started", pod: "p", at: 10 },
  ]);
  t.same(observationsOf("p", running, { started: true, restartCount: 0 }, 10), []);
  t.same(observationsOf("p", { ...running, restartCount: 2 }, { started: true, restartCount: 1 }, 10), [
    { kind: "restarted", pod: "p", restartCount: 2, at: 10 },
  ]);
  const containers = [{ name: "main", exitCode: 1 }];
  t.same(
    observationsOf(
      "p",
      { state: "exited", containers, restartCount: 0, finishedAt: 7 },
      { started: true, restartCount: 0 },
      10,
    ),
    [{ kind: "exited", pod: "p", containers, at: 7 }],
  );
});

t.test("a Job record is read leniently; its expiry is the finish plus the TTL", async (t) => {
  t.equal(parseJobRecord(undefined), undefined);
  t.equal(parseJobRecord("{not json"), undefined);
  t.equal(parseJobRecord('{"name": 3}'), undefined);
  const finished = { type: "Complete", reason: "CompletionsReached", message: "m", at: 1000 };
  const record = parseJobRecord(
    JSON.stringify({
      namespace: "default",
      name: "j",
      startTime: 5,
      finished,
      ttlSecondsAfterFinished: 2,
      extra: true,
    }),
  );
  t.same(record, { namespace: "default", name: "j", startTime: 5, finished, ttlSecondsAfterFinished: 2 });
  t.equal(expiryOf(record!), 3000);
  t.equal(expiryOf({ namespace: "default", name: "j", ttlSecondsAfterFinished: 2 }), undefined, "not finished");
  t.equal(expiryOf({ namespace: "default", name: "j", finished: finished as never }), undefined, "no TTL");
  t.same(parseJobRecord(JSON.stringify({ namespace: "a", name: "b", finished: { type: "Odd", at: 1 } })), {
    namespace: "a",
    name: "b",
  });
});
