import t from "tap";
import { planObjects } from "../../lib/apply/plan-objects.js";
import { checkManifests } from "../../lib/kinds/read-manifests.js";
import { acceptedTypes, entryOfType } from "../../lib/kinds/resource-names.js";
import { inRunOrder, KINDS } from "../../lib/kinds/table.js";
import { KIND_API_VERSIONS, NOT_RUN_KINDS } from "../../lib/manifest/kinds.js";

t.test("the table holds every kind of the generated schema, at its apiVersion, and warns of the others", async (t) => {
  t.same(Object.fromEntries(KINDS.kinds.map((k) => [k.kind, k.apiVersion])), KIND_API_VERSIONS);
  t.equal(KINDS.warned, NOT_RUN_KINDS);
});

t.test("TYPE/NAME spellings", async (t) => {
  t.equal(
    acceptedTypes(KINDS, "logs"),
    "pod (po), deployment (deploy), replicaset (rs), statefulset (sts), daemonset (ds), job",
    "logs reads pods' containers: no Service",
  );
  for (const command of ["down", "ps", "events"])
    t.equal(
      acceptedTypes(KINDS, command),
      "pod (po), service (svc), deployment (deploy), replicaset (rs), statefulset (sts), daemonset (ds), job",
      `a Service is ${command}'s`,
    );
  const cases: [string, string | undefined][] = [
    ["po", "Pod"],
    ["deployments.apps", "Deployment"],
    ["RS", "ReplicaSet"],
    ["statefulset", "StatefulSet"],
    ["daemonsets", "DaemonSet"],
    ["jobs.batch", "Job"],
    ["configmap", undefined],
    ["svc", "Service"],
    ["services", "Service"],
  ];
  for (const [type, kind] of cases) t.equal(entryOfType(type)?.kind, kind, type);
});

t.test(
  "a run's order: objects pods read, bare pods, then the workloads as read; Jobs last, by their controller",
  async (t) => {
    const text = `apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: m, image: busybox}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: solo}
spec:
  containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
`;
    const manifest = checkManifests([{ name: "all.yaml", text }]);
    t.same(
      inRunOrder(manifest.items).map((item) => item.kind),
      ["ConfigMap", "Pod", "Job", "Deployment"],
    );
    const plan = planObjects(manifest.items);
    t.same(
      plan.runs.map((run) => run.owner?.name ?? run.pod.metadata!.name),
      ["solo", "web", "web"],
    );
    t.same(
      plan.jobs.map((job) => job.workload.name),
      ["migrate"],
    );
    t.same(
      plan.owners.map((o) => o.name),
      ["migrate", "web"],
    );
    t.same(
      plan.controllers.map((o) => o.name),
      ["web"],
    );
    t.same(
      plan.pods.map((p) => p.pod.metadata!.name),
      ["solo"],
    );
    t.equal(plan.runsAnything, true);
    t.equal(
      planObjects(checkManifests([{ name: "cm.yaml", text: text.split("---\n")[3]! }]).items).runsAnything,
      false,
    );
  },
);
