// Every feature-gated field of a v1.36 Pod, container, volume and workload: one case per row of
// docs/support.md's "Feature gates" table, which this test reads to check that each gate named
// there has a case here and the reverse. A gate on by default: the field is accepted, and acted
// on or named in a Warning. A gate off by default: the field is dropped with a Warning naming
// the gate, as the API server drops it, or refused where the API server refuses it.
import { readFileSync } from "node:fs";
import t from "tap";
import type { JobSpec } from "kubernetes-types/batch/v1.js";
import { ManifestError } from "../../lib/errors.js";
import { checkManifests } from "../../lib/kinds/read-manifests.js";
import type { Manifest } from "../../lib/manifest/load-manifest.js";
import { jobSpecWarnings } from "../../lib/workloads/job-controller.js";

type Expect = { valid: true; warn?: RegExp; engine?: [string, RegExp]; gone?: string[] } | { error: RegExp };

interface Case {
  gates: string[];
  /** YAML of a pod spec (indented two spaces), or a whole manifest when it starts with `apiVersion`. */
  yaml: string;
  expect: Expect;
  /** What a Job's controller warns of at `up` (job-controller.ts). */
  job?: RegExp;
}

const pod = (spec: string, meta = "") =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n${meta}spec:\n${spec}  containers:\n  - name: app\n    image: busybox:1.36\n`;
const podWith = (container: string, spec = "") =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n${spec}  containers:\n  - name: app\n    image: busybox:1.36\n${container}`;
const job = (spec: string) =>
  `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n${spec}  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - {name: app, image: busybox:1.36}\n`;
const claim = (spec: string) =>
  `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: c\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n${spec}`;
const service = (spec: string, name = "web") =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n${spec}`;
const statefulSet = (spec: string) =>
  `apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  serviceName: db\n  selector: {matchLabels: {app: db}}\n${spec}  template:\n    metadata: {labels: {app: db}}\n    spec:\n      containers: [{name: app, image: busybox:1.36}]\n`;
const projected = (source: string) =>
  podWith(
    "    volumeMounts: [{name: v, mountPath: /v}]\n",
    `  volumes:\n  - name: v\n    projected:\n      sources:\n      - ${source}\n`,
  );
const dropped = (gate: string, stage: string) =>
  new RegExp(`dropped, as a v1\\.36 API server drops it: its feature gate ${gate} \\(${stage}\\) is off by default`);
const SCHEDULING = /scheduling does not apply on one machine: ignored/;

const CASES: Case[] = [
  // Pod spec
  {
    gates: ["UserNamespacesSupport"],
    yaml: pod("  hostUsers: false\n"),
    expect: { valid: true, engine: ["docker", /hostUsers/] },
  },
  {
    gates: ["SupplementalGroupsPolicy"],
    yaml: pod("  securityContext: {supplementalGroupsPolicy: Strict}\n"),
    expect: { valid: true, warn: /supplementalGroupsPolicy: .*Strict acts as Merge/ },
  },
  {
    gates: ["PodLevelResources", "InPlacePodLevelResourcesVerticalScaling"],
    yaml: pod("  resources: {limits: {cpu: 500m, memory: 128Mi}}\n"),
    expect: { valid: true, engine: ["docker", /spec\.resources/] },
  },
  {
    gates: ["ProcMountType"],
    yaml: podWith("    securityContext: {procMount: Unmasked}\n", "  hostUsers: false\n"),
    expect: { valid: true, engine: ["nerdctl", /procMount/] },
  },
  {
    gates: [
      "NodeInclusionPolicyInPodTopologySpread",
      "MatchLabelKeysInPodTopologySpread",
      "MatchLabelKeysInPodTopologySpreadSelectorMerge",
    ],
    yaml: pod(
      "  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}, nodeAffinityPolicy: Honor, nodeTaintsPolicy: Ignore, matchLabelKeys: [pod-template-hash]}\n",
    ),
    expect: { valid: true, warn: SCHEDULING },
  },
  {
    gates: ["MatchLabelKeysInPodAffinity"],
    yaml: pod(
      "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {topologyKey: zone, labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [pod-template-hash], mismatchLabelKeys: [tenant]}\n",
    ),
    expect: { valid: true, warn: SCHEDULING },
  },
  {
    gates: ["DynamicResourceAllocation"],
    yaml: podWith(
      "    resources: {claims: [{name: gpu}]}\n",
      "  resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu}]\n",
    ),
    expect: { valid: true, warn: /spec\.resourceClaims: not supported by podrun yet: ignored/ },
  },
  {
    gates: ["ClusterTrustBundleProjection"],
    yaml: projected("clusterTrustBundle: {signerName: example.com/signer, path: ca.pem}"),
    expect: { valid: true, warn: dropped("ClusterTrustBundleProjection", "beta"), gone: ["clusterTrustBundle"] },
  },
  {
    gates: ["PodCertificateRequest"],
    yaml: projected(
      "podCertificate: {signerName: example.com/signer, keyType: ED25519, credentialBundlePath: creds.pem}",
    ),
    expect: { valid: true, warn: dropped("PodCertificateRequest", "beta"), gone: ["podCertificate"] },
  },
  {
    gates: ["GenericWorkload"],
    yaml: pod("  schedulingGroup: {podGroupName: g}\n"),
    expect: { valid: true, warn: dropped("GenericWorkload", "alpha"), gone: ["schedulingGroup"] },
  },
  {
    gates: ["InPlacePodVerticalScaling"],
    yaml: podWith("    resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]\n"),
    expect: { valid: true, warn: /resizePolicy: not supported by podrun yet: ignored/ },
  },
  {
    gates: ["SidecarContainers"],
    yaml: pod("  initContainers: [{name: side, image: busybox:1.36, restartPolicy: Always}]\n"),
    expect: { valid: true },
  },
  {
    gates: ["ContainerRestartRules"],
    yaml: podWith(
      "    restartPolicy: Never\n    restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]\n",
    ),
    expect: { valid: true, warn: /restartPolicyRules: not supported by podrun yet: ignored/ },
  },
  {
    gates: ["RestartAllContainersOnContainerExits"],
    yaml: podWith(
      "    restartPolicy: Never\n    restartPolicyRules: [{action: RestartAllContainers, exitCodes: {operator: In, values: [88]}}]\n",
    ),
    expect: { valid: true, warn: /restartPolicyRules: not supported by podrun yet: ignored/ },
  },
  {
    gates: ["RecursiveReadOnlyMounts"],
    yaml: podWith(
      "    volumeMounts: [{name: v, mountPath: /v, readOnly: true, recursiveReadOnly: IfPossible}]\n",
      "  volumes: [{name: v, emptyDir: {}}]\n",
    ),
    expect: { valid: true },
  },
  {
    gates: ["HostnameOverride"],
    yaml: pod("  hostnameOverride: my-app.example.internal\n"),
    expect: { valid: true },
  },
  {
    gates: ["EnvFiles"],
    yaml: podWith(
      "    env: [{name: DB, valueFrom: {fileKeyRef: {volumeName: cfg, path: config.env, key: DB}}}]\n",
      "  volumes: [{name: cfg, emptyDir: {}}]\n",
    ),
    expect: { valid: true },
  },
  {
    gates: ["PodLifecycleSleepAction", "PodLifecycleSleepActionAllowZero"],
    yaml: podWith("    lifecycle: {preStop: {sleep: {seconds: 0}}}\n"),
    expect: { valid: true },
  },
  {
    gates: ["ImageVolume"],
    yaml: podWith(
      "    volumeMounts: [{name: v, mountPath: /v}]\n",
      "  volumes: [{name: v, image: {reference: 'quay.io/crio/artifact:v2', pullPolicy: IfNotPresent}}]\n",
    ),
    expect: { valid: true, warn: /spec\.volumes\[0\]\.image: not supported by podrun yet: ignored/ },
  },
  {
    gates: ["SELinuxChangePolicy"],
    yaml: pod("  securityContext: {seLinuxChangePolicy: Recursive}\n"),
    expect: { valid: true, warn: /seLinuxChangePolicy: not supported by podrun yet: ignored/ },
  },
  {
    gates: ["SELinuxMount"],
    yaml: pod("  securityContext: {seLinuxChangePolicy: MountOption}\n"),
    expect: { error: /seLinuxChangePolicy: Unsupported value: "MountOption": supported values: "Recursive"/ },
  },
  {
    gates: ["ContainerStopSignals"],
    yaml: podWith("    lifecycle: {stopSignal: SIGUSR1}\n"),
    expect: { valid: true, warn: dropped("ContainerStopSignals", "alpha"), gone: ["lifecycle"] },
  },
  {
    gates: ["RelaxedEnvironmentVariableValidation"],
    yaml: podWith("    env: [{name: '1st.var-name', value: x}]\n"),
    expect: { valid: true },
  },
  {
    gates: ["RelaxedDNSSearchValidation"],
    yaml: pod("  dnsConfig: {searches: ['_sip._tcp.example.com', '.']}\n"),
    expect: { valid: true },
  },
  {
    gates: ["TaintTolerationComparisonOperators"],
    yaml: pod("  tolerations: [{key: gpu-count, operator: Lt, value: '4', effect: NoSchedule}]\n"),
    expect: { error: /tolerations\[0\]\.operator: Unsupported value: "Lt": supported values: "Equal", "Exists"/ },
  },
  {
    gates: ["UserNamespacesHostNetworkSupport"],
    yaml: pod("  hostNetwork: true\n  hostUsers: false\n"),
    expect: { error: /spec\.hostNetwork: Forbidden: when `pod\.Spec\.HostUsers` is false/ },
  },
  {
    gates: ["PodDeletionCost"],
    yaml: pod("", "  annotations: {controller.kubernetes.io/pod-deletion-cost: 'high'}\n"),
    expect: {
      error:
        /annotations\[controller\.kubernetes\.io\/pod-deletion-cost\]: Invalid value: "high": must be a 32bit integer/,
    },
  },
  {
    gates: ["StrictIPCIDRValidation"],
    yaml: pod("  hostAliases: [{ip: '010.0.0.5', hostnames: [db.local]}]\n"),
    expect: { error: /hostAliases\[0\]\.ip: Invalid value: "010\.0\.0\.5": must be a valid IP address/ },
  },
  // Job
  {
    gates: ["JobManagedBy"],
    yaml: job("  managedBy: example.com/controller\n"),
    expect: { valid: true },
    job: /spec\.managedBy: ignored/,
  },
  {
    gates: ["JobSuccessPolicy"],
    yaml: job(
      "  completionMode: Indexed\n  completions: 3\n  successPolicy: {rules: [{succeededIndexes: '0', succeededCount: 1}]}\n",
    ),
    expect: { valid: true },
    job: /spec\.successPolicy: ignored/,
  },
  {
    gates: ["JobBackoffLimitPerIndex"],
    yaml: job("  completionMode: Indexed\n  completions: 3\n  backoffLimitPerIndex: 1\n  maxFailedIndexes: 1\n"),
    expect: { valid: true },
    job: /spec\.backoffLimitPerIndex: ignored/,
  },
  { gates: ["JobPodReplacementPolicy"], yaml: job("  podReplacementPolicy: Failed\n"), expect: { valid: true } },
  {
    gates: ["MutablePodResourcesForSuspendedJobs", "MutableSchedulingDirectivesForSuspendedJobs"],
    yaml: job("  suspend: true\n"),
    expect: { valid: true },
    job: /spec\.suspend: ignored/,
  },
  // StatefulSet, PersistentVolumeClaim
  {
    gates: ["MaxUnavailableStatefulSet"],
    yaml: statefulSet("  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 2}}\n"),
    expect: { valid: true, warn: dropped("MaxUnavailableStatefulSet", "beta"), gone: ["maxUnavailable"] },
  },
  {
    gates: ["VolumeAttributesClass"],
    yaml: claim("  volumeAttributesClassName: gold\n"),
    expect: { valid: true, warn: /volumeAttributesClassName: not acted on by podrun/ },
  },
  {
    gates: ["AnyVolumeDataSource"],
    yaml: claim("  dataSourceRef: {apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: snap}\n"),
    expect: { valid: true, warn: /dataSourceRef: not acted on by podrun/ },
  },
  {
    gates: ["CrossNamespaceVolumeDataSource"],
    yaml: claim(
      "  dataSourceRef: {apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: snap, namespace: other}\n",
    ),
    expect: { valid: true, warn: dropped("CrossNamespaceVolumeDataSource", "alpha"), gone: ['"namespace":"other"'] },
  },
  // Service
  {
    gates: ["PreferSameTrafficDistribution"],
    yaml: service("  trafficDistribution: PreferSameNode\n"),
    expect: { valid: true, warn: /trafficDistribution changes nothing/ },
  },
  { gates: ["RelaxedServiceNameValidation"], yaml: service("", "1-web"), expect: { valid: true } },
  // Status: written by a cluster, never by the manifest
  {
    gates: [
      "DRAExtendedResource",
      "ResourceHealthStatus",
      "ResourceHealthStatusMessage",
      "PodObservedGenerationTracking",
      "ImageVolumeWithDigest",
      "DRANodeAllocatableResources",
      "DeploymentReplicaSetTerminatingReplicas",
      "PersistentVolumeClaimUnusedSinceTime",
    ],
    yaml: pod("", "").replace("spec:\n", "status: {observedGeneration: 1}\nspec:\n"),
    expect: { valid: true, warn: /status: / },
  },
];

function outcome(yaml: string): { manifest?: Manifest; errors?: string[] } {
  try {
    return { manifest: checkManifests([{ name: "m.yaml", text: yaml }], { kubeletChecks: "warn" }) };
  } catch (error) {
    if (error instanceof ManifestError) return { errors: [...error.lines] };
    throw error;
  }
}

for (const c of CASES) {
  t.test(c.gates.join(", "), async (t) => {
    const { manifest, errors } = outcome(c.yaml);
    const expect = c.expect;
    if ("error" in expect) {
      t.ok(
        errors?.some((line) => expect.error.test(line)),
        `refused: ${errors?.join(" | ")}`,
      );
      return;
    }
    t.same(errors, undefined, "accepted");
    if (!manifest) return;
    const warn = expect.warn;
    if (warn)
      t.ok(
        manifest.warnings.some((line) => warn.test(line)),
        manifest.warnings.join(" | "),
      );
    else t.same(manifest.warnings, [], "no Warning: acted on");
    if (expect.engine) {
      const [engine, pattern] = expect.engine;
      const lines = manifest.engineWarnings?.[engine as "docker"] ?? [];
      t.ok(
        lines.some((line) => pattern.test(line)),
        `a Warning on ${engine}: ${lines.join(" | ")}`,
      );
    }
    const stored = JSON.stringify(manifest.items.map((item) => item.object));
    for (const gone of expect.gone ?? []) t.notMatch(stored, gone, `${gone}: dropped from the object`);
    if (c.job) {
      const spec = (manifest.items[0]!.object as { spec: JobSpec }).spec;
      t.ok(
        jobSpecWarnings(spec).some((line) => c.job!.test(line)),
        "the Job's controller names it at up",
      );
    }
  });
}

t.test("docs/support.md's feature gate table and these cases name the same gates", async (t) => {
  const doc = readFileSync(new URL("../../docs/support.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Feature gates"));
  const documented = new Set(
    [...section.matchAll(/^\| (?!field )[^|]+\| ([A-Za-z, ]+) \|/gm)].flatMap((m) => m[1]!.split(", ")),
  );
  const tested = new Set(CASES.flatMap((c) => c.gates));
  t.same(
    [...documented].filter((gate) => !tested.has(gate)),
    [],
    "every documented gate has a case",
  );
  t.same(
    [...tested].filter((gate) => !documented.has(gate)),
    [],
    "every case's gate is documented",
  );
});
