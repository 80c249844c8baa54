import t from "tap";
import { formatFieldError } from "../../lib/manifest/field-error.js";
import { collectObjects } from "../../lib/manifest/objects.js";
import { parseYamlDocuments } from "../../lib/manifest/parse-yaml.js";

const collect = (text: string) => {
  const { objects, errors } = collectObjects(parseYamlDocuments({ name: "m.yaml", text }));
  return {
    kinds: objects.map(
      (o) => `${o.prefix}${o.prefix ? " " : ""}${o.kind}/${(o.value.metadata as { name?: string } | undefined)?.name}`,
    ),
    errors: errors.map(({ error, sourceMap, prefix }) => {
      const { line, col } = sourceMap.locate(error.path.segments, error.atKey ?? false);
      return `${line}:${col}: ${prefix ? `${prefix}.` : ""}${formatFieldError(error)}`;
    }),
  };
};

t.test("multi-document files: Pod, ConfigMap, Secret, empty documents skipped", async (t) => {
  const text =
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\n";
  t.same(collect(text), { kinds: ["ConfigMap/c", "Pod/p", "Secret/s"], errors: [] });
});

t.test("kind: List is expanded, its items keep their own positions", async (t) => {
  const text =
    "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    metadata: {name: p}\n  - apiVersion: v1\n    kind: Widget\n";
  t.same(collect(text), {
    kinds: ["items[0] Pod/p"],
    errors: ['8:11: items[1].kind: no matches for kind "Widget" in version "v1"'],
  });
});

const rejected: [string, string, string][] = [
  [
    "a kind Kubernetes does not have is an error, never skipped",
    "apiVersion: v1\nkind: Servise\nmetadata: {name: s}\n",
    '2:7: kind: no matches for kind "Servise" in version "v1": did you mean Service?',
  ],
  [
    "a kind podrun does not run, without an apiVersion (found by the fuzzing test)",
    "kind: Config\n",
    "1:1: apiVersion: Required value",
  ],
  [
    "a missing kind",
    "apiVersion: v1\nmetadata: {name: s}\n",
    "1:1: kind: Required value: supported kinds: Pod, ConfigMap, Secret, PersistentVolumeClaim, Service, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, List",
  ],
  [
    "a workload at another apiVersion",
    "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: d}\n",
    '1:13: apiVersion: no matches for kind "Deployment" in version "extensions/v1beta1": extensions/v1beta1 Deployment is no longer served since Kubernetes v1.16; use apiVersion apps/v1',
  ],
  [
    "a kind at a version no longer served",
    "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: nightly}\n",
    '1:13: apiVersion: no matches for kind "CronJob" in version "batch/v1beta1": batch/v1beta1 CronJob is no longer served since Kubernetes v1.25; use apiVersion batch/v1',
  ],
  ["a missing apiVersion", "kind: Pod\nmetadata: {name: s}\n", "1:1: apiVersion: Required value"],
  [
    "a wrong apiVersion",
    "apiVersion: apps/v1\nkind: Pod\n",
    '1:13: apiVersion: no matches for kind "Pod" in version "apps/v1": a v1.36 API server serves Pod at apiVersion v1',
  ],
  [
    "a list document",
    "- a\n- b\n",
    "1:1: Forbidden: expected a Kubernetes object (a mapping with apiVersion and kind), got a list",
  ],
  [
    "a scalar document",
    "hello\n",
    'Forbidden: expected a Kubernetes object (a mapping with apiVersion and kind), got the string "hello"',
  ],
  ["a List without items", "apiVersion: v1\nkind: List\n", "1:1: items: Required value"],
];
for (const [name, text, line] of rejected) {
  t.test(name, async (t) => {
    const { errors } = collect(text);
    t.equal(errors.length, 1, errors.join("\n"));
    t.ok(errors[0]!.endsWith(line), `${errors[0]} ends with ${line}`);
  });
}

t.test("a built-in kind podrun does not run is one warning, not an object nor an error", async (t) => {
  const { objects, errors, warnings } = collectObjects(
    parseYamlDocuments({
      name: "m.yaml",
      text: "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r}\n",
    }),
  );
  t.same([objects.length, errors.length], [0, 0]);
  t.same(
    warnings.map((w) => w.error.detail),
    ["ServiceAccount/web: not run by podrun", "Role/r: not run by podrun"],
  );
});

t.test("a built-in kind podrun does not run is checked: its schema, its name", async (t) => {
  const { errors } = collect(
    "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nrules: [{verbs: get}]\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {generateName: sa-}\n",
  );
  t.same(errors, [
    '3:17: rules[0].verbs: Invalid value: "get": must be a list',
    "1:1: metadata.name: Required value: name or generateName is required",
  ]);
});

t.test("configuration files of Kubernetes components, and kustomize's", async (t) => {
  const { errors } = collect("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n");
  t.same(errors, [
    '1:13: apiVersion: no matches for kind "Policy" in version "audit.k8s.io/v1": a configuration file of a Kubernetes component (audit.k8s.io), not an object an API server takes',
  ]);
  const { warnings } = collectObjects(
    parseYamlDocuments({
      name: "kustomization.yaml",
      text: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [pod.yaml]\n",
    }),
  );
  t.same(
    warnings.map((w) => w.error.detail),
    ["Kustomization: a kustomize file, not applied (kubectl apply -f refuses it): render its directory with -k DIR"],
  );
  t.same(collect("apiVersion: settings.k8s.io/v1alpha1\nkind: PodPreset\nmetadata: {name: p}\n").errors, [
    '1:13: apiVersion: no matches for kind "PodPreset" in version "settings.k8s.io/v1alpha1": settings.k8s.io/v1alpha1 PodPreset is no longer served since Kubernetes v1.20',
  ]);
});

t.test("a custom resource is one warning naming it, not the kinds podrun runs", async (t) => {
  const { objects, errors, warnings } = collectObjects(
    parseYamlDocuments({
      name: "m.yaml",
      text: "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: web}\n",
    }),
  );
  t.same([objects.length, errors.length], [0, 0]);
  t.same(
    warnings.map((w) => w.error.detail),
    ["Gateway/web: a custom resource (gateway.networking.k8s.io/v1) that podrun does not know: not run"],
  );
});
