import { findMemoryVolumesOnDisk } from "../pod/volumes/volume-plan.js";
import { FieldPath } from "./field-path.js";
import type { FieldError } from "./field-error.js";
import { findLivenessProbes } from "./liveness-warning.js";

// The fields `podrun up` acts on. A field the schema knows but that is absent here is accepted
// (the manifest stays valid for a cluster) and named in a Warning, never dropped silently:
// podman's silent drops are what its users complain of most. `*` stands for any list index.
// Grow this list as podrun learns fields; each entry covers everything beneath it.
export const HONOURED_POD_FIELDS = [
  "apiVersion",
  "kind",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "metadata.labels",
  "metadata.annotations",
  "spec.restartPolicy",
  "spec.hostNetwork",
  "spec.terminationGracePeriodSeconds",
  // Read by the kubelet's keyring rules (lib/credentials/pod-credentials.ts) and handed to the
  // engine for the pull only, never the user's own login overwritten.
  "spec.imagePullSecrets",
  // A volume of another type is named in a warning at its source (`spec.volumes[0].nfs`); so is a
  // projection podrun cannot make (serviceAccountToken, clusterTrustBundle, podCertificate: no API server).
  "spec.volumes[*].name",
  "spec.volumes[*].emptyDir",
  "spec.volumes[*].configMap",
  "spec.volumes[*].secret",
  "spec.volumes[*].downwardAPI",
  "spec.volumes[*].hostPath",
  "spec.volumes[*].projected.defaultMode",
  "spec.volumes[*].projected.sources[*].configMap",
  "spec.volumes[*].projected.sources[*].secret",
  "spec.volumes[*].projected.sources[*].downwardAPI",
  ...containerFields("spec.initContainers[*]"),
  ...containerFields("spec.containers[*]"),
  // securityContext (lib/pod/spec/security-context.ts, lib/runtime/security-args.ts): the
  // container's value over the pod's. fsGroup joins the supplemental groups but owns no volume
  // (a warning below); runAsNonRoot is checked before create (start-container.ts).
  // supplementalGroupsPolicy, AppArmor, SELinux and procMount stay warnings.
  "spec.securityContext.runAsUser",
  "spec.securityContext.runAsNonRoot",
  "spec.securityContext.runAsGroup",
  "spec.securityContext.supplementalGroups",
  "spec.securityContext.fsGroup",
  ...["spec.initContainers[*]", "spec.containers[*]"].flatMap((prefix) =>
    ["runAsUser", "runAsGroup", "runAsNonRoot", "readOnlyRootFilesystem", "capabilities.add", "capabilities.drop", "privileged", "allowPrivilegeEscalation"].map((field) => `${prefix}.securityContext.${field}`),
  ),
  // seccompProfile (lib/pod/spec/security-context.ts resolveSeccompProfile): Unconfined and
  // Localhost (a file under $PODRUN_SECCOMP_PROFILE_ROOT) as `--security-opt seccomp=`;
  // RuntimeDefault is the engine's default profile. spec.os.name: linux is what podrun runs;
  // windows is refused by validation (lib/manifest/validate-objects.ts).
  "spec.securityContext.seccompProfile",
  "spec.initContainers[*].securityContext.seccompProfile",
  "spec.containers[*].securityContext.seccompProfile",
  "spec.os.name",
  // `up --wait` runs them (lib/readiness/wait-ready.ts); livenessProbe stays a warning.
  "spec.containers[*].readinessProbe",
  "spec.containers[*].startupProbe",
  // Probed only while `up --wait` waits (lib/readiness/liveness.ts): a Warning below says so.
  "spec.containers[*].livenessProbe",
  // Native sidecars (`restartPolicy: Always`, the only value the API server allows): started in
  // init order and left running (lib/pod/start/start-pod.ts); the next init container waits for the
  // startup probe, `up --wait` for the readiness probe. Only sidecars may have probes and hooks.
  "spec.initContainers[*].restartPolicy",
  "spec.initContainers[*].readinessProbe",
  "spec.initContainers[*].startupProbe",
  "spec.initContainers[*].livenessProbe",
  // Pod-level settings carried by the sandbox (lib/pod/spec/pod-settings.ts): /etc/hosts entries,
  // the hostname, resolv.conf, one PID namespace. dnsPolicy ClusterFirst and a hostNetwork pod
  // setting any of them are warned about below. enableServiceLinks: no Services, nothing to add.
  "spec.hostAliases",
  "spec.hostname",
  "spec.dnsConfig",
  "spec.dnsPolicy",
  "spec.shareProcessNamespace",
  "spec.enableServiceLinks",
  // The host's PID and IPC namespaces on every container; namespaced sysctls set on the sandbox
  // (lib/pod/spec/pod-settings.ts, lib/runtime/sandbox-settings-args.ts).
  "spec.hostPID",
  "spec.hostIPC",
  "spec.securityContext.sysctls",
] as const;

function containerFields(prefix: string): string[] {
  return [
    "name",
    "image",
    "imagePullPolicy",
    "command",
    "args",
    "workingDir",
    "env[*].name",
    "env[*].value",
    // fileKeyRef (alpha) stays a warning.
    "env[*].valueFrom.configMapKeyRef",
    "env[*].valueFrom.secretKeyRef",
    "env[*].valueFrom.fieldRef",
    "env[*].valueFrom.resourceFieldRef",
    "envFrom",
    "ports",
    "lifecycle.postStart",
    "lifecycle.preStop",
    // mountPropagation, recursiveReadOnly stay warnings; a mount of a volume type podrun does not
    // make is left out, under the warning of that volume's source.
    "volumeMounts[*].name",
    "volumeMounts[*].mountPath",
    "volumeMounts[*].readOnly",
    "volumeMounts[*].subPath",
    "volumeMounts[*].subPathExpr",
    "terminationMessagePath",
    "terminationMessagePolicy",
    // Resources: cpu and memory as cgroup settings (lib/runtime/resource-args.ts); ephemeral-storage,
    // hugepages, extended resources, claims and resizePolicy stay warnings.
    "resources.limits.cpu",
    "resources.limits.memory",
    "resources.requests.cpu",
    "resources.requests.memory",
  ].map((field) => `${prefix}.${field}`);
}

interface PatternNode {
  /** The whole subtree is honoured. */
  all: boolean;
  children: Map<string, PatternNode>;
}

function buildPatternTree(patterns: readonly string[]): PatternNode {
  const root: PatternNode = { all: false, children: new Map() };
  for (const pattern of patterns) {
    let node = root;
    for (const part of pattern.replace(/\[\*\]/g, ".*").split(".")) {
      let next = node.children.get(part);
      if (!next) node.children.set(part, (next = { all: false, children: new Map() }));
      node = next;
    }
    node.all = true;
  }
  return root;
}

const POD_TREE = buildPatternTree(HONOURED_POD_FIELDS);

/**
 * Reports, as Forbidden-free warnings, each field set in a Pod that podrun does not act on yet:
 * one warning at the outermost such field. Runs on the manifest as written, before defaulting,
 * so that defaults never warn.
 */
export function findIgnoredFields(pod: unknown, report: (warning: FieldError) => void): void {
  const scheduling: FieldPath[] = [];
  walk(pod, POD_TREE, FieldPath.root(), (warning) => {
    if (isSchedulingField(warning.path)) scheduling.push(warning.path);
    else report(warning);
  });
  // One line for them all, at the first one written: a manifest made for a cluster often sets
  // several, and none of them means anything without a scheduler choosing among nodes.
  const [first, ...others] = scheduling;
  if (first) report({ type: "Forbidden", path: first, others, detail: "scheduling does not apply on one machine: ignored", atKey: true });
  findApproximatedFields(pod, report);
}

// The PodSpec fields read only by the scheduler (and the admission plugins feeding it).
const SCHEDULING_FIELDS = new Set([
  "nodeName",
  "nodeSelector",
  "affinity",
  "tolerations",
  "priority",
  "priorityClassName",
  "preemptionPolicy",
  "schedulerName",
  "topologySpreadConstraints",
  "schedulingGates",
  "schedulingGroup",
]);

function isSchedulingField(path: FieldPath): boolean {
  const [root, field] = path.segments;
  return path.segments.length === 2 && root === "spec" && typeof field === "string" && SCHEDULING_FIELDS.has(field);
}

/** Fields podrun acts on, but not exactly as a node would: named in a warning too. */
function findApproximatedFields(pod: unknown, report: (warning: FieldError) => void): void {
  const spec = (pod as { spec?: unknown } | null)?.spec;
  if (spec === null || typeof spec !== "object") return;
  findLivenessProbes(spec as Record<string, unknown>, report);
  for (const index of findMemoryVolumesOnDisk(spec)) {
    const path = FieldPath.root().child("spec").child("volumes").index(index).child("emptyDir").child("medium");
    report({ type: "Forbidden", path, detail: "mounted more than once, or by subPath: podrun backs this volume with an engine volume on disk, since a tmpfs cannot be shared or bound by subPath", atKey: true });
  }
  const fsGroup = (spec as { securityContext?: { fsGroup?: unknown } }).securityContext?.fsGroup;
  if (fsGroup !== undefined && fsGroup !== null) {
    const path = FieldPath.root().child("spec").child("securityContext").child("fsGroup");
    report({ type: "Forbidden", path, detail: "added to each container's supplemental groups, but volumes are not given to this group as a kubelet would", atKey: true });
  }
  findApproximatedPodSettings(spec as Record<string, unknown>, report);
}

// Pod-level settings podrun cannot make as a node does. Read as written, so that the API server's
// default dnsPolicy (ClusterFirst) never warns: only a policy the user wrote does.
function findApproximatedPodSettings(spec: Record<string, unknown>, report: (warning: FieldError) => void): void {
  const specPath = FieldPath.root().child("spec");
  const policy = spec.dnsPolicy;
  // A node gives a hostNetwork pod under ClusterFirst its own resolv.conf too: that one is exact.
  if ((policy === "ClusterFirst" && spec.hostNetwork !== true) || policy === "ClusterFirstWithHostNet") {
    report({ type: "Forbidden", path: specPath.child("dnsPolicy"), detail: `no cluster DNS on this machine: ${policy} acts as Default (the host's resolv.conf, with dnsConfig)`, atKey: true });
  }
  if (spec.hostNetwork !== true) return;
  // A hostNetwork pod has no sandbox of its own to carry them.
  for (const field of ["hostAliases", "dnsConfig", "shareProcessNamespace"]) {
    const value = spec[field];
    if (value === undefined || value === null || value === false) continue;
    report({ type: "Forbidden", path: specPath.child(field), detail: "not applied by podrun to a hostNetwork pod: ignored", atKey: true });
  }
  const sysctls = (spec.securityContext as { sysctls?: unknown } | undefined)?.sysctls;
  if (Array.isArray(sysctls) && sysctls.length > 0) {
    report({ type: "Forbidden", path: specPath.child("securityContext").child("sysctls"), detail: "not applied by podrun to a hostNetwork pod: ignored", atKey: true });
  }
}

function walk(value: unknown, node: PatternNode, path: FieldPath, report: (warning: FieldError) => void): void {
  if (node.all || value === null || typeof value !== "object") return;
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [i, item])
    : Object.entries(value as Record<string, unknown>);
  for (const [key, child] of entries) {
    if (child === null || child === undefined) continue;
    const childPath = typeof key === "number" ? path.index(key) : path.child(key);
    const next = typeof key === "number" ? node.children.get("*") : (node.children.get(key) ?? node.children.get("*"));
    if (next) walk(child, next, childPath, report);
    else report({ type: "Forbidden", path: childPath, detail: "not supported by podrun yet: ignored", atKey: true });
  }
}
