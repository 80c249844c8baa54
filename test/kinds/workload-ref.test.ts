import t from "tap";
import { UsageError } from "../../lib/errors.js";
import { createWorkloadEventFilter } from "../../lib/kinds/workload-event-filter.js";
import type { KubeEvent } from "../../lib/events/types.js";
import type { PodRecord } from "../../lib/pod/status/find-pods.js";
import {
  formatNotFound,
  formatRef,
  isPodNameOf,
  ownerOf,
  ownerReferencesOf,
  parseRefs,
  parseResourceRef,
  selectByRefs,
  withOwner,
  type WorkloadRef,
} from "../../lib/kinds/workload-ref.js";
import { expandWorkload, OWNER_LABEL } from "../../lib/workloads/expand.js";
import type { ContainerState } from "../../lib/runtime/types.js";
import { claimVolumeRows, formatClaimTable } from "../../lib/commands/ps-volumes.js";
import { LABEL_CLAIM } from "../../lib/pod/volumes/claim-volumes.js";
import { buildContainerSpec, buildSandboxSpec } from "../../lib/pod/spec/container-spec.js";
import { buildCreateArgs, buildSandboxArgs } from "../../lib/runtime/create-args.js";
import { DIALECTS } from "../../lib/runtime/dialects.js";

// Workload references (`deploy/web`), the pods they stand for, the names and owners a pod of a
// workload has, and the `ps --volumes` rows (pure). The commands: test/commands/workload-ref.test.ts.

t.test("TYPE/NAME as kubectl spells it: plural, singular, short name, kind, with its group", async (t) => {
  const kinds = (args: string[]) => args.map((arg) => parseResourceRef(arg, "ps")?.kind);
  t.same(
    kinds(["deployment/web", "deployments/web", "deploy/web", "Deployment/web", "deployments.apps/web"]),
    Array(5).fill("Deployment"),
  );
  t.same(kinds(["rs/web", "replicaset/web", "replicasets.apps/web"]), Array(3).fill("ReplicaSet"));
  t.same(kinds(["sts/db", "statefulset/db", "statefulsets/db"]), Array(3).fill("StatefulSet"));
  t.same(kinds(["ds/agent", "daemonset/agent", "daemonsets.apps/agent"]), Array(3).fill("DaemonSet"));
  t.same(kinds(["job/migrate", "jobs/migrate", "jobs.batch/migrate"]), Array(3).fill("Job"));
  t.same(kinds(["pod/web", "pods/web", "po/web"]), Array(3).fill("Pod"));
  t.equal(parseResourceRef("web", "ps"), undefined, "no slash: a pod's name, as it was");
  t.same(parseRefs(["web", "deploy/api"], "ps"), [
    { kind: "Pod", name: "web" },
    { kind: "Deployment", name: "api" },
  ]);
});

t.test("an unknown type is a usage error naming the accepted types; a bad name too", async (t) => {
  t.throws(
    () => parseResourceRef("svc/web", "logs"),
    new UsageError(
      '"svc/web": podrun logs takes pods and workloads, not "svc": the types are pod (po), deployment (deploy), replicaset (rs), statefulset (sts), daemonset (ds), job',
    ),
    "logs takes no Service: it reads pods' containers",
  );
  t.same(parseResourceRef("svc/web", "events"), { kind: "Service", name: "web" }, "events and ps take one");
  t.throws(
    () => parseResourceRef("ingress/web", "ps"),
    new UsageError(
      '"ingress/web": podrun ps takes pods, workloads and Services, not "ingress": the types are pod (po), service (svc), deployment (deploy), replicaset (rs), statefulset (sts), daemonset (ds), job',
    ),
  );
  t.throws(
    () => parseResourceRef("ingress/web", "logs"),
    new UsageError(
      '"ingress/web": podrun logs takes pods and workloads, not "ingress": the types are pod (po), deployment (deploy), replicaset (rs), statefulset (sts), daemonset (ds), job',
    ),
  );
  t.throws(() => parseResourceRef("cronjob/nightly", "ps"), UsageError);
  t.throws(() => parseResourceRef("deploy/Web_1", "ps"), { message: /^"deploy\/Web_1": invalid deployment name: / });
  t.throws(() => parseResourceRef("deploy/", "ps"), UsageError);
});

t.test("kubectl's NotFound line names the resource and its group", async (t) => {
  t.equal(
    formatNotFound({ kind: "Deployment", name: "web" }),
    'Error from server (NotFound): deployments.apps "web" not found',
  );
  t.equal(
    formatNotFound({ kind: "Job", name: "migrate" }),
    'Error from server (NotFound): jobs.batch "migrate" not found',
  );
  t.equal(
    formatNotFound({ kind: "StatefulSet", name: "db" }),
    'Error from server (NotFound): statefulsets.apps "db" not found',
  );
  t.equal(
    formatNotFound({ kind: "Pod", name: "web" }),
    'Error from server (NotFound): pods "web" not found',
    "a pod's line as it was",
  );
  t.equal(formatRef({ kind: "DaemonSet", name: "agent" }), "daemonset/agent");
});

const state = (name: string, labels: Record<string, string> = {}): ContainerState => ({
  id: name,
  name,
  status: "running",
  running: true,
  exitCode: 0,
  startedAt: "",
  finishedAt: "",
  createdAt: "",
  restartCount: 0,
  labels,
  image: "busybox",
});
const record = (name: string, owner?: string, where: "infra" | "app" = "infra"): PodRecord => {
  const labels: Record<string, string> = owner ? { [OWNER_LABEL]: owner } : {};
  return {
    name,
    namespace: "default",
    uid: "",
    ...(where === "infra" ? { infra: state(`${name}_POD`, labels) } : {}),
    initContainers: [],
    appContainers: [state(`${name}_app`, where === "app" ? labels : {})],
  };
};

t.test(
  "a pod's owner is read from the label of its sandbox or of any container (a hostNetwork pod has no sandbox)",
  async (t) => {
    t.same(ownerOf(record("web-abc-bcdfg", "Deployment/web")), { kind: "Deployment", name: "web" });
    t.same(ownerOf(record("agent-bcdfg", "DaemonSet/agent", "app")), { kind: "DaemonSet", name: "agent" });
    t.equal(ownerOf(record("web")), undefined, "a bare pod");
    t.equal(ownerOf(record("x", "Service/x")), undefined, "a kind that makes no pods");
  },
);

t.test("a reference selects its pods, in the records' order; one that selects none is missing", async (t) => {
  const records = [
    record("api-bcdfg", "ReplicaSet/api"),
    record("web"),
    record("web-7f-bcdfg", "Deployment/web"),
    record("web-7f-hjklm", "Deployment/web"),
    record("web-bcdfg", "Job/web"),
  ];
  const names = (refs: string[]) => {
    const { selected, missing } = selectByRefs(records, parseRefs(refs, "ps"));
    return { selected: selected.map((r) => r.name), missing: missing.map(formatRef) };
  };
  t.same(names(["deploy/web"]), { selected: ["web-7f-bcdfg", "web-7f-hjklm"], missing: [] });
  t.same(
    names(["job/web", "web"]),
    { selected: ["web", "web-bcdfg"], missing: [] },
    "a Job and a pod of the same name: each its own",
  );
  t.same(
    names(["deploy/api", "pod/nope", "deploy/api"]),
    { selected: [], missing: ["deployment/api", "pod/nope"] },
    "a ReplicaSet's pods are not a Deployment's",
  );
  t.same(names([]).selected.length, 5, "no reference: every pod");
});

t.test("the pod names each controller gives, and no other", async (t) => {
  const template = { spec: { containers: [{ name: "app", image: "busybox" }] } };
  for (const kind of ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"] as const) {
    const workload = expandWorkload({
      kind,
      metadata: { name: "web" },
      spec: { replicas: 3, parallelism: 3, template },
    });
    for (const pod of workload.pods)
      t.ok(isPodNameOf({ kind, name: "web" }, pod.metadata!.name!), `${kind}: ${pod.metadata!.name}`);
    const other = expandWorkload({ kind, metadata: { name: "web-db" }, spec: { template } }).pods[0]!.metadata!.name!;
    t.notOk(isPodNameOf({ kind, name: "web" }, other), `${kind}: ${other} is web-db's`);
  }
  const deploy: WorkloadRef = { kind: "Deployment", name: "web" };
  t.notOk(isPodNameOf(deploy, "web"));
  t.notOk(isPodNameOf(deploy, "web-bcdfg"), "a ReplicaSet-style name");
  t.notOk(isPodNameOf(deploy, "web-abc-bcdfg"), "vowels are not in the alphabet");
  t.notOk(isPodNameOf({ kind: "StatefulSet", name: "db" }, "db-01"));
  t.notOk(isPodNameOf({ kind: "Job", name: "m" }, "mx-bcdfg"));
  t.ok(isPodNameOf({ kind: "Job", name: "m" }, "m-3-bcdfg"), "an Indexed Job's pod");
  t.notOk(isPodNameOf({ kind: "ReplicaSet", name: "m" }, "m-3-bcdfg"));
});

t.test(
  "ps --json: the owner label and the ownerReferences the controller sets (a Deployment's pods: its ReplicaSet's)",
  async (t) => {
    const web = expandWorkload({
      kind: "Deployment",
      metadata: { name: "web" },
      spec: { template: { spec: { containers: [{ name: "app", image: "busybox" }] } } },
    });
    const name = web.pods[0]!.metadata!.name!;
    const [reference] = ownerReferencesOf({ name, namespace: "default" }, { kind: "Deployment", name: "web" });
    t.match(reference, {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      name: `web-${web.templateHash}`,
      controller: true,
      blockOwnerDeletion: true,
    });
    t.match(reference!.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const job = expandWorkload({
      kind: "Job",
      metadata: { name: "m", namespace: "ci" },
      spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "i" }] } } },
    });
    const [jobRef] = ownerReferencesOf(
      { name: job.pods[0]!.metadata!.name!, namespace: "ci" },
      { kind: "Job", name: "m" },
    );
    t.match(
      jobRef,
      { apiVersion: "batch/v1", kind: "Job", name: "m", uid: job.pods[0]!.metadata!.labels!["controller-uid"] },
      "the Job's UID is its controller-uid label's",
    );
    const pod = withOwner<{ metadata: { name: string; namespace: string; labels?: Record<string, string> } }>(
      { metadata: { name, namespace: "default" } },
      { kind: "Deployment", name: "web" },
    );
    t.same(pod.metadata.labels, { [OWNER_LABEL]: "Deployment/web" });
    t.same(
      withOwner({ metadata: { name: "bare" } }, undefined),
      { metadata: { name: "bare" } },
      "a bare pod is left as it was",
    );
  },
);

const event = (kind: string, name: string, reason = "Started", namespace = "default"): KubeEvent =>
  ({
    kind: "Event",
    metadata: { name: `${name}.1`, namespace },
    involvedObject: { apiVersion: "v1", kind, name, namespace, uid: "" },
    reason,
    type: "Normal",
    message: "",
  }) as unknown as KubeEvent;

t.test("events deploy/web: the workload's own events and its pods', by the names its controller gives", async (t) => {
  const filter = createWorkloadEventFilter({ kind: "Deployment", name: "web" }, {});
  t.ok(filter.active);
  t.ok(filter.matches(event("Deployment", "web", "ScalingReplicaSet")));
  t.ok(filter.matches(event("Pod", "web-5d8b7c9f4-bcdfg")));
  t.notOk(filter.matches(event("Pod", "web")), "the bare pod web");
  t.notOk(filter.matches(event("Job", "web")), "the Job web");
  t.notOk(filter.matches(event("Deployment", "web-db")));
  t.ok(
    createWorkloadEventFilter({ kind: "Job", name: "m" }, {}).matches(event("Job", "m", "SuccessfulCreate")),
    "a Job's own events (involvedObject kind Job)",
  );
  t.ok(filter.mayMatchLine(JSON.stringify(event("Pod", "web-5d8b7c9f4-bcdfg"))));
  t.notOk(filter.mayMatchLine(JSON.stringify(event("Pod", "api-5d8b7c9f4-bcdfg"))));
  const warnings = createWorkloadEventFilter({ kind: "Job", name: "m" }, { type: "Warning", namespace: "ci" });
  t.notOk(warnings.matches(event("Pod", "m-bcdfg", "BackOff", "ci")), "the other filters still apply: type");
  t.ok(warnings.matches({ ...event("Pod", "m-bcdfg", "BackOff", "ci"), type: "Warning" }));
  t.notOk(warnings.matches({ ...event("Pod", "m-bcdfg", "BackOff", "default"), type: "Warning" }), "and namespace");
});

t.test("events svc/api: the Service's own events alone (it has no pods)", async (t) => {
  const filter = createWorkloadEventFilter({ kind: "Service", name: "api" }, {});
  t.ok(filter.matches(event("Service", "api", "Pulled")), "its proxy image's");
  t.notOk(filter.matches(event("Pod", "api")), "the pod api");
  t.notOk(filter.matches(event("Pod", "api-0")), "nor a pod named as a workload's");
  t.notOk(filter.matches(event("Deployment", "api")), "the Deployment api");
});

t.test("ps --volumes: each claim's volume and the pods mounting it, whatever else the engine holds", async (t) => {
  const claimVolume = (namespace: string, claim: string) => ({
    name: `${namespace}_${claim}`,
    labels: { "io.podrun.managed": "true", "io.kubernetes.pod.namespace": namespace, [LABEL_CLAIM]: claim },
  });
  const volumes = [
    claimVolume("default", "data"),
    claimVolume("ci", "cache"),
    {
      name: "default_web_tmp",
      labels: {
        "io.podrun.managed": "true",
        "io.kubernetes.pod.namespace": "default",
        "io.kubernetes.pod.name": "web",
      },
    },
  ];
  const pod = (name: string, mounted: string[]) => ({
    ...state(`default_${name}_app`, { "io.kubernetes.pod.name": name, "io.kubernetes.pod.namespace": "default" }),
    volumes: mounted,
  });
  const rows = claimVolumeRows(volumes, [
    pod("web-1", ["default_data", "default_web_tmp"]),
    pod("web-0", ["default_data"]),
    pod("other", ["default_other"]),
  ]);
  t.same(rows, [
    { persistentVolumeClaim: "cache", namespace: "ci", volume: "ci_cache", usedBy: [] },
    { persistentVolumeClaim: "data", namespace: "default", volume: "default_data", usedBy: ["web-0", "web-1"] },
  ]);
  t.same(formatClaimTable(rows, { namespaceColumn: true }), [
    "NAMESPACE   NAME    VOLUME         USED BY",
    "ci          cache   ci_cache       <none>",
    "default     data    default_data   web-0,web-1",
  ]);
  t.same(formatClaimTable(rows.slice(1), { namespaceColumn: false }), [
    "NAME   VOLUME         USED BY",
    "data   default_data   web-0,web-1",
  ]);
});

t.test(
  "argv goldens: the owner label reaches every container a workload's pod makes, nerdctl included; a bare pod's argv has none",
  async (t) => {
    const template = {
      metadata: { labels: { app: "agent" } },
      spec: { containers: [{ name: "app", image: "busybox:1.36" }] },
    };
    const [pod] = expandWorkload({ kind: "DaemonSet", metadata: { name: "agent" }, spec: { template } }).pods;
    const identity = { name: pod!.metadata!.name!, namespace: "default", uid: "u" };
    const container = pod!.spec!.containers[0]!;
    const owner = ["--label", "io.podrun.owner=DaemonSet/agent"];
    const has = (args: string[]) => args.some((arg, i) => arg === owner[0] && args[i + 1] === owner[1]);
    for (const dialect of [DIALECTS.docker, DIALECTS.podman, DIALECTS.nerdctl]) {
      t.ok(
        has(
          buildCreateArgs(
            dialect,
            buildContainerSpec({ pod: pod!, identity, container, kind: "app", imageRef: "busybox:1.36" }),
            { byName: [], childEnv: {} },
          ),
        ),
        `${dialect.name}: container`,
      );
      t.ok(
        has(
          buildSandboxArgs(
            dialect,
            buildSandboxSpec({ pod: pod!, identity, infraImage: "pause:3.10", publishAll: false }),
          ),
        ),
        `${dialect.name}: sandbox (podman: the pod, whose labels its infra container gets)`,
      );
      const hostNetwork = { ...pod!, spec: { ...pod!.spec!, hostNetwork: true } };
      t.ok(
        has(
          buildCreateArgs(
            dialect,
            buildContainerSpec({ pod: hostNetwork, identity, container, kind: "app", imageRef: "busybox:1.36" }),
            { byName: [], childEnv: {} },
          ),
        ),
        `${dialect.name}: hostNetwork, no sandbox`,
      );
      const bare = {
        apiVersion: "v1" as const,
        kind: "Pod" as const,
        metadata: { name: "agent", labels: { app: "agent" } },
        spec: pod!.spec!,
      };
      t.notOk(
        buildCreateArgs(
          dialect,
          buildContainerSpec({ pod: bare, identity, container, kind: "app", imageRef: "busybox:1.36" }),
          { byName: [], childEnv: {} },
        ).some((arg) => arg.startsWith("io.podrun.owner")),
        `${dialect.name}: bare pod`,
      );
    }
  },
);
