import { findMemoryVolumesOnDisk, findTmpfsPropagation } from "../../pod/volumes/volume-plan.js";
import { FieldPath } from "../../manifest/field-path.js";
import { findSecurityOptionWarnings } from "./security-warnings.js";
import type { FieldError } from "../../manifest/field-error.js";
import { findPodResourceWarnings } from "./pod-resources-support.js";
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
  // Read by the kubelet's keyring rules (lib/pod/pull-credentials.ts) and handed to the
  // engine for the pull only, never the user's own login overwritten.
  "spec.imagePullSecrets",
  // A volume of another type is named in a warning at its source (`spec.volumes[0].nfs`); so is a
  // projection podrun cannot make (serviceAccountToken: no API server; clusterTrustBundle and
  // podCertificate are dropped before, their feature gates being off: manifest/feature-gates.ts).
  "spec.volumes[*].name",
  "spec.volumes[*].emptyDir",
  "spec.volumes[*].configMap",
  "spec.volumes[*].secret",
  "spec.volumes[*].downwardAPI",
  "spec.volumes[*].hostPath",
  // One engine volume per claim, kept across `down` (lib/pod/volumes/claim-volumes.ts).
  "spec.volumes[*].persistentVolumeClaim",
  "spec.volumes[*].projected.defaultMode",
  "spec.volumes[*].projected.sources[*].configMap",
  "spec.volumes[*].projected.sources[*].secret",
  "spec.volumes[*].projected.sources[*].downwardAPI",
  ...containerFields("spec.initContainers[*]"),
  ...containerFields("spec.containers[*]"),
  // securityContext (lib/pod/spec/security-context.ts, lib/runtime/security-args.ts): the
  // container's value over the pod's. fsGroup joins the supplemental groups and owns the pod's
  // emptyDir, configMap, secret, downwardAPI and projected volumes (lib/pod/volumes/
  // volume-ownership.ts; fsGroupChangePolicy changes nothing for these kinds, as on a node);
  // runAsNonRoot is checked before create (start-container.ts).
  "spec.securityContext.runAsUser",
  "spec.securityContext.runAsNonRoot",
  "spec.securityContext.runAsGroup",
  "spec.securityContext.supplementalGroups",
  "spec.securityContext.fsGroup",
  "spec.securityContext.fsGroupChangePolicy",
  ...["spec.initContainers[*]", "spec.containers[*]"].flatMap((prefix) =>
    [
      "runAsUser",
      "runAsGroup",
      "runAsNonRoot",
      "readOnlyRootFilesystem",
      "capabilities.add",
      "capabilities.drop",
      "privileged",
      "allowPrivilegeEscalation",
    ].map((field) => `${prefix}.securityContext.${field}`),
  ),
  // seccompProfile (lib/pod/spec/security-context.ts resolveSeccompProfile): Unconfined and
  // Localhost (a file under $PODRUN_SECCOMP_PROFILE_ROOT) as `--security-opt seccomp=`;
  // RuntimeDefault is the engine's default profile. spec.os.name: linux is what podrun runs;
  // windows is refused by validation (lib/manifest/validate-objects.ts).
  "spec.securityContext.seccompProfile",
  "spec.initContainers[*].securityContext.seccompProfile",
  "spec.containers[*].securityContext.seccompProfile",
  "spec.os.name",
  // AppArmor, SELinux, /proc, user namespace and group options (lib/pod/spec/security-options.ts,
  // lib/kinds/support/security-warnings.ts): what this host or the engine cannot do is warned about.
  "spec.hostUsers",
  "spec.securityContext.appArmorProfile",
  "spec.securityContext.seLinuxOptions",
  "spec.securityContext.supplementalGroupsPolicy",
  ...["spec.initContainers[*]", "spec.containers[*]"].flatMap((prefix) =>
    ["appArmorProfile", "seLinuxOptions", "procMount"].map((field) => `${prefix}.securityContext.${field}`),
  ),
  // `up --wait` runs them (lib/pod/readiness/wait-ready.ts).
  "spec.containers[*].readinessProbe",
  "spec.containers[*].startupProbe",
  // Probed only while `up --wait` waits (lib/pod/readiness/liveness.ts): a Warning below says so.
  "spec.containers[*].livenessProbe",
  // Native sidecars (`restartPolicy: Always`, the only value the API server allows): started in
  // init order and left running (lib/pod/start/start-pod.ts); the next init container waits for the
  // startup probe, `up --wait` for the readiness probe. Only sidecars may have probes and hooks.
  "spec.initContainers[*].restartPolicy",
  "spec.initContainers[*].readinessProbe",
  "spec.initContainers[*].startupProbe",
  "spec.initContainers[*].livenessProbe",
  // Pod-level settings carried by the sandbox (lib/pod/spec/pod-settings.ts): the hostname, one PID
  // namespace; /etc/hosts (hostAliases, subdomain) and resolv.conf are the pod's own files
  // (lib/pod/etc/etc-files.ts), a hostNetwork pod's too; ClusterFirst's server is the engine's DNS
  // on the cluster network. ClusterFirstWithHostNet and a hostNetwork pod sharing its process
  // namespace are warned about below. enableServiceLinks: no Services.
  "spec.hostAliases",
  "spec.hostname",
  "spec.hostnameOverride",
  "spec.subdomain",
  "spec.dnsConfig",
  "spec.dnsPolicy",
  "spec.shareProcessNamespace",
  "spec.enableServiceLinks",
  // The host's PID and IPC namespaces on every container; namespaced sysctls set on the sandbox
  // (lib/pod/spec/pod-settings.ts, lib/runtime/sandbox-settings-args.ts).
  "spec.hostPID",
  "spec.hostIPC",
  "spec.securityContext.sysctls",
  // Enforced while `up --wait` waits and on an `up` of a pod already past it; `ps` shows it after
  // (lib/pod/active-deadline.ts). `up` without --wait says so in a Warning of its own.
  "spec.activeDeadlineSeconds",
  // The pod's cgroup on podman (lib/runtime/pod-resource-args.ts); docker and nerdctl have none,
  // which `up` says on them (lib/kinds/support/pod-resources-support.ts). hugepages stay warnings.
  "spec.resources.limits.cpu",
  "spec.resources.limits.memory",
  "spec.resources.requests.cpu",
  "spec.resources.requests.memory",
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
    "env[*].valueFrom.configMapKeyRef",
    "env[*].valueFrom.fileKeyRef",
    "env[*].valueFrom.secretKeyRef",
    "env[*].valueFrom.fieldRef",
    "env[*].valueFrom.resourceFieldRef",
    "envFrom",
    "ports",
    "lifecycle.postStart",
    "lifecycle.preStop",
    // A mount of a volume type podrun does not make is left out, under the warning of that volume's
    // source. mountPropagation: `bind-propagation` (volume-plan.ts). recursiveReadOnly: IfPossible
    // falls back to a plain read-only mount, as a node whose runtime cannot do it does; Enabled,
    // which such a node refuses, is named below.
    "volumeMounts[*].name",
    "volumeMounts[*].mountPath",
    "volumeMounts[*].readOnly",
    "volumeMounts[*].subPath",
    "volumeMounts[*].subPathExpr",
    "volumeMounts[*].mountPropagation",
    "volumeMounts[*].recursiveReadOnly",
    "terminationMessagePath",
    "terminationMessagePolicy",
    // `--interactive`/`--tty` (lib/runtime/terminal-args.ts); stdinOnce acts only when an attach
    // session ends, and podrun never attaches: nothing to do.
    "stdin",
    "stdinOnce",
    "tty",
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
  if (first)
    report({
      type: "Forbidden",
      path: first,
      others,
      detail: "scheduling does not apply on one machine: ignored",
      atKey: true,
    });
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
    report({
      type: "Forbidden",
      path,
      detail:
        "mounted more than once, or by subPath: podrun backs this volume with an engine volume on disk, since a tmpfs cannot be shared or bound by subPath",
      atKey: true,
    });
  }
  for (const { list, container, mount } of findTmpfsPropagation(spec)) {
    const path = FieldPath.root()
      .child("spec")
      .child(list)
      .index(container)
      .child("volumeMounts")
      .index(mount)
      .child("mountPropagation");
    report({
      type: "Forbidden",
      path,
      detail: "this Memory emptyDir is the container's own tmpfs, which the engines mount private: no propagation",
      atKey: true,
    });
  }
  for (const list of ["initContainers", "containers"] as const) {
    const containers =
      (spec as Partial<Record<typeof list, { volumeMounts?: { recursiveReadOnly?: unknown }[] }[]>>)[list] ?? [];
    containers.forEach((container, index) => {
      (container.volumeMounts ?? []).forEach((mount, mountIndex) => {
        if (mount.recursiveReadOnly !== "Enabled") return;
        const path = FieldPath.root()
          .child("spec")
          .child(list)
          .index(index)
          .child("volumeMounts")
          .index(mountIndex)
          .child("recursiveReadOnly");
        report({
          type: "Forbidden",
          path,
          detail:
            "mounted read-only, but not recursively: podrun asks none of the engines for recursive read-only binds (docker 25 and podman 5 can)",
          atKey: true,
        });
      });
    });
  }
  findApproximatedPodSettings(spec as Record<string, unknown>, report);
  findSecurityOptionWarnings(pod, report);
  findPodResourceWarnings(spec as Record<string, unknown>, report);
}

// Pod-level settings podrun cannot make as a node does. Read as written, so that the API server's
// default dnsPolicy (ClusterFirst) never warns: only a policy the user wrote does.
function findApproximatedPodSettings(spec: Record<string, unknown>, report: (warning: FieldError) => void): void {
  const specPath = FieldPath.root().child("spec");
  const policy = spec.dnsPolicy;
  // The cluster DNS is the engine's, on podrun's cluster network, which a hostNetwork pod does not
  // join (lib/pod/spec/cluster-network.ts). A node gives a hostNetwork pod under ClusterFirst the
  // host's resolv.conf too: that one is exact.
  if (policy === "ClusterFirstWithHostNet" && spec.hostNetwork === true) {
    report({
      type: "Forbidden",
      path: specPath.child("dnsPolicy"),
      detail: `podrun's cluster DNS answers on its own network, which a hostNetwork pod does not join: ${policy} acts as Default (the host's resolv.conf, with dnsConfig)`,
      atKey: true,
    });
  }
  if (spec.hostNetwork !== true) return;
  // A hostNetwork pod has no sandbox of its own to carry them. Its /etc/hosts (hostAliases) and
  // resolv.conf (dnsConfig) are files of the pod's, made for it as for any pod.
  const share = spec.shareProcessNamespace;
  if (share !== undefined && share !== null && share !== false) {
    report({
      type: "Forbidden",
      path: specPath.child("shareProcessNamespace"),
      detail: "not applied by podrun to a hostNetwork pod: ignored",
      atKey: true,
    });
  }
  const sysctls = (spec.securityContext as { sysctls?: unknown } | undefined)?.sysctls;
  if (Array.isArray(sysctls) && sysctls.length > 0) {
    report({
      type: "Forbidden",
      path: specPath.child("securityContext").child("sysctls"),
      detail: "not applied by podrun to a hostNetwork pod: ignored",
      atKey: true,
    });
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
