import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import t from "tap";
import { parse } from "yaml";
import { JsonPathError, parseJsonPathTemplate, renderJsonPath } from "../../lib/output/jsonpath/index.js";

// renderJsonPath against kubectl itself, offline: `kubectl label --local -f FILE` prints the object
// of FILE with no cluster (the label it sets is one the pod already has, so the object is
// unchanged), and `-o jsonpath=TEMPLATE` runs kubectl's own template code over it. Each template
// must print the same text in both, or fail with the same reason in kubectl's words.
// The oracle when this was written: kubectl v1.32.4 (`kubectl version --client`); scripts/test-env.sh
// installs it.

/** The kubectl on PATH (test-env.sh installs Debian's when the machine has none). */
const KUBECTL = (process.env.PATH ?? "")
  .split(delimiter)
  .map((dir) => join(dir, "kubectl"))
  .find((file) => existsSync(file));

// Map keys are chosen so that no template below depends on Go's map order, which is random:
// a wildcard reads one-key maps only, a recursive descent reads under lists.
const POD_YAML = `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
  labels:
    app.kubernetes.io/name: web
    tier: fe
  annotations:
    note: a <b> & c
spec:
  terminationGracePeriodSeconds: 30
  nodeName: null
  # kubectl's local read keeps fields a Pod does not have: values of every JSON type.
  podrunTest:
    ratio: 1234567.5
    small: 0.00001
    flag: true
  containers:
  - name: app
    image: nginx:1.27
    args: [--port, "8080"]
    ports:
    - {name: http, containerPort: 80}
    - {name: https, containerPort: 443}
    resources:
      limits: {cpu: 500m}
  - name: sidecar
    image: busybox
    ports: []
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True"}
  - {type: PodScheduled, status: "False"}
`;

interface Case {
  template: string;
  /** --allow-missing-template-keys=false */
  strict?: boolean;
  /** -o jsonpath-as-json */
  asJson?: boolean;
}

const CASES: Case[] = [
  { template: "kind={.kind} name={.metadata.name}{'\\n'}" },
  { template: "{$.metadata.name} {@.metadata.namespace}" },
  { template: '{range .spec.containers[*]}{.name}{"\\t"}{.image}{"\\n"}{end}' },
  { template: "{range .spec.containers[*]}{.name}:{range .ports[*]}{' '}{.containerPort}{end};{end}" },
  { template: '{.status.conditions[?(@.type=="Ready")].status}' },
  { template: "{.status.conditions[?(@.status!='True')].type}" },
  { template: "{.spec.containers[0].ports[?(@.containerPort>=100)].name}" },
  { template: "{.spec.containers[?(@.args)].name} {.spec.containers[?(@.ports[0])].name}" },
  { template: "{.spec.containers[0].ports[?(@.containerPort>80.5)].name}" },
  { template: "{.metadata.labels.app\\.kubernetes\\.io/name} {.metadata.labels['app\\.kubernetes\\.io/name']}" },
  { template: "{.metadata.labels['app.kubernetes.io/name']}" },
  { template: "{.spec..name}" },
  { template: "{.spec.containers[0,1].name} {.status.conditions[*]['type','status']}" },
  { template: "{.spec.containers[-1].name} {.spec.containers[-1:].image} {.spec.containers[0].ports[::2].name}" },
  { template: "{.spec.containers[1:3].name}" },
  { template: "{.spec.containers[*].ports[*].name}" },
  // The second list's slice selects nothing: kubectl reads no list after it (sidecar's ports come first).
  { template: "{.spec.containers[1,0].ports[*].name}" },
  { template: '{\'it\\\'s\'} {"say \\"hi\\""} {"\\u00e9\\101"}' },
  { template: "{.metadata.annotations} {.spec.containers[1]} {.spec.containers[0].args}" },
  { template: "{.spec.podrunTest.ratio} {.spec.podrunTest.small} {.spec.podrunTest.flag} {.spec.nodeName}" },
  { template: "{.spec.containers[0].resources.limits.*} {.metadata.name.*} {.spec.containers.length}" },
  { template: "{}" },
  { template: "[{.metadata.nope}] [{.spec.containers[*].nope}]" },
  { template: "{.spec.containers[*].nope}", strict: true },
  { template: "{range .spec.containers[1].ports[*]}{.name}{end}", strict: true },
  { template: "{.metadata.name[0]}" },
  { template: "{end}" },
  { template: "{.spec.containers[?(@.ports[*].name=='http')].name}" },
  { template: "{.spec.containers[" },
  { template: "{....name}" },
  { template: '{"\\q"}' },
  { template: "{.metadata.name}{.spec.containers[*].ports}{.nope}", asJson: true },
];

/** What a template gave: the text printed, or kubectl's reason for failing. */
type Outcome = { output: string } | { error: string };

function kubectlArgs(file: string, { template, strict, asJson }: Case): string[] {
  return [
    ...["label", "--local", "-f", file, "tier=fe", "--overwrite"],
    ...["-o", `${asJson ? "jsonpath-as-json" : "jsonpath"}=${template}`],
    ...(strict ? ["--allow-missing-template-keys=false"] : []),
  ];
}

/** kubectl's outcome; its reason cut from `error parsing jsonpath T, R` or `Error executing template: R. Printing…`. */
function runKubectl(file: string, test: Case): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(KUBECTL!, kubectlArgs(file, test), { encoding: "utf8" }, (error, stdout, stderr) => {
      if (!error) return resolve({ output: stdout });
      const parsing = `error: error parsing jsonpath ${test.template}, `;
      if (stderr.startsWith(parsing)) return resolve({ error: stderr.slice(parsing.length).trimEnd() });
      const executing = /Error executing template: ([\s\S]*?)\. Printing more information/.exec(stderr);
      resolve({ error: executing?.[1] ?? `kubectl failed: ${stderr}` });
    });
  });
}

function runOurs(data: unknown, { template, strict, asJson }: Case): Outcome {
  try {
    return { output: renderJsonPath(parseJsonPathTemplate(template), data, { allowMissingKeys: !strict, asJson }) };
  } catch (error) {
    if (error instanceof JsonPathError) return { error: error.reason };
    throw error;
  }
}

/** fn over the items, a few at a time: each kubectl takes some 45 MB. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

// Under CI a missing kubectl is a failure (test-env.sh installs one), elsewhere a skip.
const missing = KUBECTL === undefined ? "no kubectl on PATH (scripts/test-env.sh installs one)" : undefined;
if (missing && process.env.CI) t.fail(missing);
const skip = missing ?? false;

t.test("renderJsonPath prints what kubectl prints", { skip }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-jsonpath-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "pod.yaml");
  await writeFile(file, POD_YAML);
  const data: unknown = parse(POD_YAML);

  const theirs = await mapLimited(CASES, 6, (test) => runKubectl(file, test));
  CASES.forEach((test, i) => {
    const name = `${test.asJson ? "jsonpath-as-json" : "jsonpath"}=${test.template}${test.strict ? " (strict)" : ""}`;
    t.same(runOurs(data, test), theirs[i], name);
  });
  t.ok(
    theirs.filter((outcome) => "error" in outcome).length >= 8,
    "kubectl's failures are compared too (none of them failed for another reason)",
  );
});
