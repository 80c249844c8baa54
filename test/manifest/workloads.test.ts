import t from "tap";
import { ManifestError } from "../../lib/errors.js";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { summarize, validate } from "../../lib/commands/validate.js";
import { checkManifests } from "../../lib/kinds/read-manifests.js";
import { podsOf, workloadsOf } from "../../lib/kinds/views.js";

const check = (text: string) => {
  try {
    const manifest = checkManifests([{ name: "w.yaml", text }]);
    return { errors: [] as string[], manifest };
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    return { errors: error.lines, manifest: undefined };
  }
};

const deployment = (spec: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
${spec}`;

const TEMPLATE = `  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: busybox
`;

t.test("a valid Deployment loads, with its pods", async (t) => {
  const { errors, manifest } = check(
    deployment(`  replicas: 2\n  selector:\n    matchLabels: {app: web}\n${TEMPLATE}`),
  );
  t.same(errors, []);
  const [workload] = workloadsOf(manifest!.files[0]!);
  t.equal(workload!.kind, "Deployment");
  t.equal(workload!.pods.length, 2);
  t.same(podsOf(manifest!), [], "workload pods are not the manifest's bare pods: up does not run them yet");
});

const cases: [string, string, string[]][] = [
  [
    "negative replicas",
    deployment(`  replicas: -1\n  selector:\n    matchLabels: {app: web}\n${TEMPLATE}`),
    ["w.yaml:6:13: spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
  ],
  ["no selector", deployment(TEMPLATE), ["w.yaml:6:3: spec.selector: Required value"]],
  [
    "a selector that does not match the template",
    deployment(`  selector:\n    matchLabels: {app: api}\n${TEMPLATE}`),
    [
      'w.yaml:10:15: spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ],
  ],
  [
    "matchExpressions are evaluated",
    deployment(`  selector:\n    matchExpressions: [{key: app, operator: NotIn, values: [web]}]\n${TEMPLATE}`),
    [
      'w.yaml:10:15: spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ],
  ],
  [
    "an empty selector",
    deployment(`  selector: {}\n${TEMPLATE}`),
    ["w.yaml:6:13: spec.selector: Invalid value: {}: empty selector is invalid for deployment"],
  ],
  [
    "restartPolicy other than Always in a Deployment",
    deployment(`  selector:\n    matchLabels: {app: web}\n${TEMPLATE}      restartPolicy: OnFailure\n`),
    ['w.yaml:15:22: spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'],
  ],
  [
    "the Pod rules apply to the template, under spec.template",
    deployment(`  selector:\n    matchLabels: {app: web}\n${TEMPLATE.replace("image: busybox", 'image: ""')}`),
    ["w.yaml:14:18: spec.template.spec.containers[0].image: Required value"],
  ],
  [
    "a Job without restartPolicy",
    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      containers: [{name: m, image: busybox}]\n",
    ['w.yaml:7:7: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'],
  ],
  [
    "Job counts are non-negative",
    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  completions: -1\n  parallelism: -2\n  backoffLimit: -3\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: m, image: busybox}]\n",
    [
      "w.yaml:5:16: spec.completions: Invalid value: -1: must be greater than or equal to 0",
      "w.yaml:6:16: spec.parallelism: Invalid value: -2: must be greater than or equal to 0",
      "w.yaml:7:17: spec.backoffLimit: Invalid value: -3: must be greater than or equal to 0",
    ],
  ],
  [
    "a Job with a podFailurePolicy and OnFailure",
    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  podFailurePolicy:\n    rules: [{action: FailJob, onExitCodes: {operator: In, values: [0]}}]\n  template:\n    spec:\n      restartPolicy: OnFailure\n      containers: [{name: m, image: busybox}]\n",
    [
      "w.yaml:6:68: spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator",
      'w.yaml:9:22: spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified',
    ],
  ],
  [
    "a workload at the wrong apiVersion",
    "apiVersion: v1\nkind: Deployment\nmetadata: {name: d}\n",
    [
      'w.yaml:1:13: apiVersion: no matches for kind "Deployment" in version "v1": a v1.36 API server serves Deployment at apiVersion apps/v1',
    ],
  ],
  [
    "the structural schema covers workload fields",
    deployment(`  replica: 2\n  selector:\n    matchLabels: {app: web}\n${TEMPLATE}`),
    ['w.yaml:6:3: spec: unknown field "replica"'],
  ],
];
for (const [name, text, expected] of cases) {
  t.test(name, async (t) => {
    t.same(check(text).errors, expected);
  });
}

t.test("other Kubernetes kinds are one Warning each, never an error; unknown built-in kinds are errors", async (t) => {
  const text = `${deployment(`  selector:\n    matchLabels: {app: web}\n${TEMPLATE}`)}---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web}\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\n`;
  const { errors, manifest } = check(text);
  t.same(errors, []);
  t.same(manifest!.warnings, [
    "w.yaml:17:7: Warning: kind: ServiceAccount/web: not run by podrun",
    "w.yaml:21:7: Warning: kind: Ingress/web: not run by podrun",
  ]);
  const unknown = check("apiVersion: apps/v1\nkind: Widget\nmetadata: {name: w}\n").errors;
  t.same(unknown, ['w.yaml:2:7: kind: no matches for kind "Widget" in version "apps/v1"']);
});

t.test("a PersistentVolumeClaim is accepted and checked structurally", async (t) => {
  const ok = check(
    "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n",
  );
  t.same(ok.errors, []);
  t.same(
    check(
      "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec:\n  size: 1\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n",
    ).errors,
    ['w.yaml:5:3: spec: unknown field "size"'],
  );
});

const statefulSet = (claimSpec: string) =>
  "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec:\n      containers:\n      - name: db\n        image: busybox\n        volumeMounts: [{name: data, mountPath: /data}]\n" +
  `  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec: ${claimSpec}\n`;

t.test("a StatefulSet's volumeClaimTemplates: mounted by name, each checked as a claim", async (t) => {
  t.same(
    check(statefulSet("{accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}")).errors,
    [],
    "a mount of a claim template's name is a mount of a volume",
  );
  t.same(check(statefulSet("{accessModes: [ReadWriteOnce]}")).errors, [
    "w.yaml:15:11: spec.volumeClaimTemplates[0].spec.resources[storage]: Required value",
  ]);
  const noClaims = statefulSet("{}").replace(/ {2}volumeClaimTemplates:[^]*$/, "");
  t.same(
    check(noClaims).errors,
    ['w.yaml:12:31: spec.template.spec.containers[0].volumeMounts[0].name: Not found: "data"'],
    "without the template, the mount names nothing",
  );
});

t.test("fields of the template podrun ignores are warned about under spec.template", async (t) => {
  const text =
    "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec:\n      nodeSelector: {disk: ssd}\n      containers: [{name: a, image: busybox}]\n";
  const { errors, manifest } = check(text);
  t.same(errors, []);
  t.same(manifest!.warnings, [
    "w.yaml:9:7: Warning: spec.template.spec.nodeSelector: scheduling does not apply on one machine: ignored",
  ]);
});

t.test("validate's summary names each workload with its pods and containers", async (t) => {
  const job =
    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate}\nspec:\n  parallelism: 2\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: m, image: busybox}, {name: side, image: busybox}]\n";
  const { manifest } = check(
    `${deployment(`  replicas: 2\n  selector:\n    matchLabels: {app: web}\n${TEMPLATE}`)}---\n${job}`,
  );
  t.same(summarize(manifest!.files[0]!), [
    "w.yaml: Deployment web (2 replicas, 1 container)",
    "w.yaml: Job migrate (2 parallel pods, 2 containers)",
  ]);
});

t.test("validate --json lists the workloads with the other objects", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-workloads-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "web.yaml");
  await writeFile(file, deployment(`  selector:\n    matchLabels: {app: web}\n${TEMPLATE}`));
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  await validate({ files: [file], json: true, stdout, stderr });
  const list = JSON.parse(out) as { items: { kind: string; metadata: { name: string; namespace: string } }[] };
  t.same(
    list.items.map((i) => `${i.kind}/${i.metadata.namespace}/${i.metadata.name}`),
    ["Deployment/default/web"],
  );
});
