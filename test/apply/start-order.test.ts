import t from "tap";
import { inSequence, planObjects, type PodRun } from "../../lib/apply/plan-objects.js";
import { checkManifests } from "../../lib/kinds/read-manifests.js";

// Which pod of `up` waits for which (plan-objects.ts, pure): every pod starts at once, but a
// StatefulSet of OrderedReady (the default) starts each pod after the one before it, and a dry
// run goes pod by pod.

const statefulSet = (name: string, policy?: string) => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ${name}}
spec:
  replicas: 3
  serviceName: ${name}
${policy ? `  podManagementPolicy: ${policy}\n` : ""}  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: c, image: busybox}]
`;
const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: busybox}]
`;
const pod = `apiVersion: v1
kind: Pod
metadata: {name: solo}
spec:
  containers: [{name: c, image: busybox}]
`;

/** Each pod's name, the one it waits for ("-": none), and how many wait for it (start slots go to them first). */
const order = (runs: readonly PodRun[]): string[] =>
  runs.map(
    (run) =>
      `${run.pod.metadata!.name} after ${run.after?.pod.metadata!.name ?? "-"}${run.waitedOnBy ? `, ${run.waitedOnBy} waiting` : ""}`,
  );

const cases: { name: string; files: string[]; dryRun?: boolean; want: string[] }[] = [
  {
    name: "OrderedReady, the default: each ordinal after the one before it",
    files: [statefulSet("db")],
    want: ["db-0 after -, 2 waiting", "db-1 after db-0, 1 waiting", "db-2 after db-1"],
  },
  {
    name: "OrderedReady written out: the same",
    files: [statefulSet("db", "OrderedReady")],
    want: ["db-0 after -, 2 waiting", "db-1 after db-0, 1 waiting", "db-2 after db-1"],
  },
  {
    name: "Parallel: all at once",
    files: [statefulSet("db", "Parallel")],
    want: ["db-0 after -", "db-1 after -", "db-2 after -"],
  },
  {
    name: "a bare pod and a Deployment's pods start at once, beside an ordered set",
    files: [pod, deployment, statefulSet("db")],
    want: [
      "solo after -",
      /^web-[a-z0-9]+-[a-z0-9]{5} after -$/.source,
      /^web-[a-z0-9]+-[a-z0-9]{5} after -$/.source,
      "db-0 after -, 2 waiting",
      "db-1 after db-0, 1 waiting",
      "db-2 after db-1",
    ],
  },
  {
    name: "two ordered sets: each in its own order, not after the other",
    files: [statefulSet("db"), statefulSet("cache")],
    want: [
      "db-0 after -, 2 waiting",
      "db-1 after db-0, 1 waiting",
      "db-2 after db-1",
      "cache-0 after -, 2 waiting",
      "cache-1 after cache-0, 1 waiting",
      "cache-2 after cache-1",
    ],
  },
  {
    name: "a dry run: pod by pod, in the plan's order",
    files: [pod, statefulSet("db", "Parallel")],
    dryRun: true,
    want: ["solo after -", "db-0 after solo", "db-1 after db-0", "db-2 after db-1"],
  },
];

for (const c of cases)
  t.test(c.name, async (t) => {
    const manifest = checkManifests(c.files.map((text, i) => ({ name: `${i}.yaml`, text })));
    const plan = planObjects(manifest.items);
    const got = order((c.dryRun ? inSequence(plan) : plan).runs);
    t.equal(got.length, c.want.length);
    c.want.forEach((want, i) => (want.startsWith("^") ? t.match(got[i], new RegExp(want)) : t.equal(got[i], want)));
  });
