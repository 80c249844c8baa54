import t from "tap";
import { ManifestError } from "../../lib/errors.js";
import { checkManifest, checkManifests } from "../../lib/kinds/read-manifests.js";

// The PersistentVolumeClaim kind: the API server's rules for its own fields, the Warnings for
// what an engine's local volume cannot be, and the claims handed on with the manifest.

const check = (text: string) => checkManifest({ name: "pvc.yaml", text });
const errorsOf = (text: string): string[] => {
  try {
    check(text);
    return [];
  } catch (error) {
    if (error instanceof ManifestError) return [...error.lines];
    throw error;
  }
};
const claim = (spec: string) => `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: db\nspec:\n${spec}`;

t.test("a valid claim is kept, with Warnings for its size and class", async (t) => {
  const manifest = check(
    claim(
      "  accessModes: [ReadWriteOnce]\n  storageClassName: fast\n  resources:\n    requests:\n      storage: 1Gi\n",
    ),
  );
  t.equal(manifest.persistentVolumeClaims?.length, 1);
  t.equal(manifest.persistentVolumeClaims?.[0]?.metadata?.name, "db");
  t.same(manifest.warnings, [
    "pvc.yaml:7:21: Warning: spec.storageClassName: podrun has no storage classes: the claim is the engine's local volume",
    "pvc.yaml:10:16: Warning: spec.resources.requests.storage: podrun gives the claim the engine's local volume, which has no size: it holds what the disk holds",
  ]);
});

t.test("a manifest without claims has none", async (t) => {
  const manifest = check(
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: busybox}]\n",
  );
  t.equal(manifest.persistentVolumeClaims, undefined);
});

const rejected: [string, string, string[]][] = [
  [
    "no access mode",
    "  resources: {requests: {storage: 1Gi}}\n",
    ["pvc.yaml:6:3: spec.accessModes: Required value: at least 1 access mode is required"],
  ],
  ["no storage request", "  accessModes: [ReadWriteMany]\n", ["pvc.yaml:6:3: spec.resources[storage]: Required value"]],
  [
    "a zero storage request",
    "  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 0}}\n",
    ['pvc.yaml:7:14: spec.resources[storage]: Invalid value: "0": must be greater than zero'],
  ],
  [
    "a negative storage request",
    "  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: -1Gi}}\n",
    [
      'pvc.yaml:7:14: spec.resources[storage]: Invalid value: "-1Gi": must be greater than or equal to 0',
      'pvc.yaml:7:14: spec.resources[storage]: Invalid value: "-1Gi": must be greater than zero',
    ],
  ],
  [
    "ReadWriteOncePod with another mode",
    "  accessModes: [ReadWriteOncePod, ReadOnlyMany]\n  resources: {requests: {storage: 1Gi}}\n",
    ["pvc.yaml:6:16: spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"],
  ],
  [
    "an unknown access mode",
    "  accessModes: [ReadWriteSometimes]\n  resources: {requests: {storage: 1Gi}}\n",
    [
      'pvc.yaml:6:17: spec.accessModes[0]: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    ],
  ],
  [
    "a bad storage class name",
    "  accessModes: [ReadWriteOnce]\n  storageClassName: Fast_Disk\n  resources: {requests: {storage: 1Gi}}\n",
    [],
  ],
];
for (const [name, spec, lines] of rejected) {
  t.test(name, async (t) => {
    const errors = errorsOf(claim(spec));
    if (lines.length > 0) t.same(errors, lines);
    else t.match(errors, [/spec\.storageClassName: Invalid value: "Fast_Disk": a lowercase RFC 1123 subdomain/]);
  });
}

t.test("a claim without spec: access modes and storage are both required", async (t) => {
  const errors = errorsOf("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: db}\n");
  t.match(errors, [/spec\.accessModes: Required value/, /spec\.resources\[storage\]: Required value/]);
});

t.test(
  "a pod naming a claim in none of the files: a Warning at validate, an error at up (the kubelet's FailedMount)",
  async (t) => {
    const podText =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  volumes:\n  - name: data\n    persistentVolumeClaim: {claimName: db}\n  containers: [{name: c, image: busybox}]\n";
    const message =
      'spec.volumes[0].persistentVolumeClaim.claimName: Not found: "db": no PersistentVolumeClaim "db" in namespace "default" in the files read';
    const warned = checkManifests([{ name: "pvc.yaml", text: podText }], { kubeletChecks: "warn" });
    t.same(warned.warnings, [`pvc.yaml:7:40: Warning: ${message} (the kubelet's FailedMount: up refuses it)`]);
    t.same(errorsOf(podText), [`pvc.yaml:7:40: ${message} (the kubelet's FailedMount)`], "up: refused");
    const withClaim = check(
      `${claim("  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n")}---\n${podText}`,
    );
    t.same(
      withClaim.warnings.filter((line) => line.includes("claimName")),
      [],
      "defined in the set: no Warning",
    );
  },
);
