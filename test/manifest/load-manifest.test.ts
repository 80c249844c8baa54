import t from "tap";
import { checkManifest } from "../../lib/kinds/read-manifests.js";
import { podsOf } from "../../lib/kinds/views.js";
import { manifestErrorLines } from "../harness/manifest-errors.js";

// The whole pipeline on one file: YAML → objects → structure → semantic rules → one line per
// error in source order, each naming file, line, column and field path in kubectl's words.

const check = (text: string) => checkManifest({ name: "pod.yaml", text });
const errorsOf = (text: string) => manifestErrorLines(() => check(text));

const pod = (spec: string, extra = "") => `${extra}apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n${spec}`;

// [name, spec (indented by 2), expected lines]: the Pod header takes lines 1-5.
const cases: [string, string, string[]][] = [
  [
    "unknown field",
    "  containers:\n    - name: app\n      image: busybox\n      imagePullPolicyy: Always\n",
    ['pod.yaml:9:7: spec.containers[0]: unknown field "imagePullPolicyy"'],
  ],
  [
    "wrong type",
    "  containers:\n    - name: app\n      image: busybox\n      args: run\n",
    ['pod.yaml:9:13: spec.containers[0].args: Invalid value: "run": must be a list'],
  ],
  [
    "bad enum",
    "  restartPolicy: Sometimes\n  containers:\n    - {name: app, image: busybox}\n",
    [
      'pod.yaml:6:18: spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
    ],
  ],
  [
    "missing required",
    "  containers:\n    - image: busybox\n",
    ["pod.yaml:7:7: spec.containers[0].name: Required value"],
  ],
  ["no containers", "  restartPolicy: Never\n", ["pod.yaml:6:3: spec.containers: Required value"]],
  [
    "container name not DNS-1123",
    "  containers:\n    - {name: App_1, image: busybox}\n",
    [
      `pod.yaml:7:14: spec.containers[0].name: Invalid value: "App_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ],
  ],
  [
    "duplicate across init and app containers",
    "  initContainers:\n    - {name: app, image: busybox}\n  containers:\n    - {name: app, image: busybox}\n",
    ['pod.yaml:7:14: spec.initContainers[0].name: Duplicate value: "app"'],
  ],
  [
    "port out of range",
    "  containers:\n    - name: app\n      image: busybox\n      ports:\n        - containerPort: 70000\n",
    [
      "pod.yaml:10:26: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    ],
  ],
  [
    "duplicate volume and missing mount target",
    "  containers:\n    - name: app\n      image: busybox\n      volumeMounts:\n        - {name: dta, mountPath: /data}\n  volumes:\n    - {name: data, emptyDir: {}}\n    - {name: data, emptyDir: {}}\n",
    [
      'pod.yaml:10:18: spec.containers[0].volumeMounts[0].name: Not found: "dta"',
      'pod.yaml:13:14: spec.volumes[1].name: Duplicate value: "data"',
    ],
  ],
  [
    "config map and secret missing from the file",
    "  containers:\n    - name: app\n      image: busybox\n      env:\n        - name: A\n          valueFrom:\n            configMapKeyRef: {name: settings, key: a}\n        - name: B\n          valueFrom:\n            secretKeyRef: {name: creds, key: b, optional: true}\n  imagePullSecrets:\n    - name: regcred\n",
    [
      'pod.yaml:12:37: spec.containers[0].env[0].valueFrom.configMapKeyRef.name: Not found: "settings": no ConfigMap "settings" in namespace "default" in the file read (pod.yaml) (the kubelet\'s CreateContainerConfigError)',
      'pod.yaml:17:13: spec.imagePullSecrets[0].name: Not found: "regcred": no Secret "regcred" in namespace "default" in the file read (pod.yaml) (the kubelet\'s FailedToRetrieveImagePullSecret)',
      "hint: podrun reads only the files given: pass the file that defines each ConfigMap and Secret, or mark a reference that may be absent `optional: true`",
    ],
  ],
  [
    "invalid image reference",
    "  containers:\n    - {name: app, image: Busybox}\n",
    [
      'pod.yaml:7:26: spec.containers[0].image: Invalid value: "Busybox": invalid reference format: repository name (library/Busybox) must be lowercase (the kubelet\'s InvalidImageName)',
    ],
  ],
  [
    "float where an integer is needed",
    "  terminationGracePeriodSeconds: 2.5\n  containers:\n    - {name: app, image: busybox}\n",
    ["pod.yaml:6:34: spec.terminationGracePeriodSeconds: Invalid value: 2.5: must be an integer"],
  ],
];
for (const [name, spec, lines] of cases) {
  t.test(name, async (t) => t.same(errorsOf(pod(spec)), lines));
}

t.test("references resolve against ConfigMaps and Secrets of the same file and namespace", async (t) => {
  const objects =
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: '1'}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: other}\nstringData: {b: x}\n---\n";
  const spec =
    "  containers:\n    - name: app\n      image: busybox\n      env:\n        - {name: A, valueFrom: {configMapKeyRef: {name: settings, key: a}}}\n        - {name: B, valueFrom: {secretKeyRef: {name: creds, key: b}}}\n";
  t.same(errorsOf(pod(spec, objects)), [
    'pod.yaml:21:54: spec.containers[0].env[1].valueFrom.secretKeyRef.name: Not found: "creds": no Secret "creds" in namespace "default" in the file read (pod.yaml); pod.yaml:8:18 defines one in namespace "other" (the kubelet\'s CreateContainerConfigError)',
    "hint: podrun reads only the files given: pass the file that defines each ConfigMap and Secret, or mark a reference that may be absent `optional: true`",
  ]);
});

t.test("errors of List items carry the item's prefix and its own lines", async (t) => {
  const text =
    "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    metadata: {name: a}\n    spec:\n      containers:\n        - {name: x}\n";
  t.same(errorsOf(text), ["pod.yaml:9:11: items[0].spec.containers[0].image: Required value"]);
});

t.test("a valid manifest is defaulted, and ignored fields become warnings", async (t) => {
  const manifest = check(
    pod(
      "  nodeSelector: {disk: ssd}\n  containers:\n    - name: app\n      image: busybox:1.36\n      resources: {limits: {cpu: '1', ephemeral-storage: 1Gi}}\n",
    ),
  );
  t.equal(podsOf(manifest).length, 1);
  t.equal(podsOf(manifest)[0]!.spec!.containers[0]!.imagePullPolicy, "IfNotPresent");
  t.same(manifest.warnings, [
    "pod.yaml:6:3: Warning: spec.nodeSelector: scheduling does not apply on one machine: ignored",
    "pod.yaml:10:38: Warning: spec.containers[0].resources.limits.ephemeral-storage: not supported by podrun yet: ignored",
  ]);
});

t.test("scheduling fields give one warning line, at the first one, with a List item's prefix", async (t) => {
  const text =
    "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    metadata: {name: a}\n    spec:\n      tolerations: [{operator: Exists}]\n      containers:\n        - {name: x, image: busybox:1.36}\n      nodeSelector: {disk: ssd}\n";
  t.same(check(text).warnings, [
    "pod.yaml:8:7: Warning: items[0].spec.tolerations, items[0].spec.nodeSelector: scheduling does not apply on one machine: ignored",
  ]);
});

t.test(
  "spec.os.name: windows is refused, at its line; linux runs; another name is the API server's Unsupported",
  async (t) => {
    const containers = "  containers:\n    - {name: app, image: busybox:1.36}\n";
    t.same(errorsOf(pod(`  os:\n    name: windows\n${containers}`)), [
      "pod.yaml:7:11: spec.os.name: Forbidden: podrun runs Linux containers: a windows pod cannot run on this machine",
    ]);
    t.same(errorsOf(pod(`  os: {name: plan9}\n${containers}`)), [
      'pod.yaml:6:14: spec.os.name: Unsupported value: "plan9": supported values: "linux", "windows"',
    ]);
    const manifest = check(pod(`  os: {name: linux}\n${containers}`));
    t.same(manifest.warnings, [], "linux: nothing to say");
    t.equal(podsOf(manifest).length, 1);
  },
);

t.test("seccompProfile: the API server's rules for localhostProfile", async (t) => {
  const containers = (profile: string) =>
    `  containers:\n    - name: app\n      image: busybox:1.36\n      securityContext:\n        seccompProfile: ${profile}\n`;
  t.same(errorsOf(pod(containers("{type: Localhost}"))), [
    "pod.yaml:10:25: spec.containers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost",
  ]);
  t.match(
    errorsOf(pod(containers("{type: Localhost, localhostProfile: ../x.json}")))[0],
    /localhostProfile: Invalid value: "\.\.\/x\.json": must not contain '\.\.'/,
  );
  t.match(
    errorsOf(pod(containers("{type: RuntimeDefault, localhostProfile: x.json}")))[0],
    /localhostProfile: Invalid value: .*: can only be set when seccomp type is Localhost/,
  );
  t.same(check(pod(containers("{type: Localhost, localhostProfile: profiles/x.json}"))).warnings, []);
});

t.test("every error of every object is reported, in source order", async (t) => {
  const text =
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n---\n" + pod("  containers:\n    - {name: app}\n");
  const lines = errorsOf(text);
  t.equal(lines.length, 2, lines.join("\n"));
  t.match(lines[0], /^pod\.yaml:3:18: metadata\.name: Invalid value: "Bad_Name"/);
  t.equal(lines[1], "pod.yaml:11:7: spec.containers[0].image: Required value");
});

t.test("a missing object's name with a line break stays on its error's line (found by the fuzzing test)", async (t) => {
  const lines = errorsOf(
    pod(
      '  containers:\n    - name: app\n      image: busybox\n      envFrom:\n        - configMapRef: {name: "a\\nb"}\n',
    ),
  );
  t.notOk(
    lines.some((line) => line.includes("\n")),
    "no line break in any error",
  );
  t.same(
    lines.filter((line) => line.includes("Not found")),
    [
      'pod.yaml:10:32: spec.containers[0].envFrom[0].configMapRef.name: Not found: "a\\nb": no ConfigMap "a\\nb" in namespace "default" in the file read (pod.yaml) (the kubelet\'s CreateContainerConfigError)',
    ],
  );
});
