// The built-in kinds a Kubernetes v1.36 API server serves by default, each at the group/versions
// it serves it at, and the versions of them it no longer serves. A manifest valid for podrun must
// be one `kubectl apply` takes: a kind at a version the API server does not serve is refused
// there with `no matches for kind "CronJob" in version "batch/v1beta1"`, so podrun refuses it too,
// and says which version replaced it.
//
// Served by default: the GA versions of k8s.io/api 1.36 (https://github.com/kubernetes/api/tree/release-1.36),
// beta and alpha versions being off unless the cluster enables them (`--runtime-config`, since
// v1.24: https://github.com/kubernetes/enhancements/tree/master/keps/sig-architecture/3136-beta-apis-off-by-default).
// Removed: each kind's `APILifecycleRemoved` in k8s.io/api's zz_generated.prerelease-lifecycle.go
// files; the API server stops serving a kind at that release
// (https://github.com/kubernetes/apiserver/blob/release-1.36/pkg/server/deleted_kinds.go). The
// Kubernetes deprecation guide lists the same: https://kubernetes.io/docs/reference/using-api/deprecation-guide/

/** Each built-in kind, with the apiVersions a v1.36 API server serves it at by default. */
export const SERVED_KINDS: Readonly<Record<string, readonly string[]>> = {
  // core/v1
  ComponentStatus: ["v1"],
  ConfigMap: ["v1"],
  Endpoints: ["v1"],
  Event: ["v1", "events.k8s.io/v1"],
  LimitRange: ["v1"],
  Namespace: ["v1"],
  Node: ["v1"],
  PersistentVolume: ["v1"],
  PersistentVolumeClaim: ["v1"],
  Pod: ["v1"],
  PodTemplate: ["v1"],
  ReplicationController: ["v1"],
  ResourceQuota: ["v1"],
  Secret: ["v1"],
  Service: ["v1"],
  ServiceAccount: ["v1"],
  Binding: ["v1"],
  // apps, batch, autoscaling, policy
  ControllerRevision: ["apps/v1"],
  DaemonSet: ["apps/v1"],
  Deployment: ["apps/v1"],
  ReplicaSet: ["apps/v1"],
  StatefulSet: ["apps/v1"],
  CronJob: ["batch/v1"],
  Job: ["batch/v1"],
  HorizontalPodAutoscaler: ["autoscaling/v2", "autoscaling/v1"],
  PodDisruptionBudget: ["policy/v1"],
  // networking, discovery, node, scheduling, coordination
  Ingress: ["networking.k8s.io/v1"],
  IngressClass: ["networking.k8s.io/v1"],
  IPAddress: ["networking.k8s.io/v1"],
  NetworkPolicy: ["networking.k8s.io/v1"],
  ServiceCIDR: ["networking.k8s.io/v1"],
  EndpointSlice: ["discovery.k8s.io/v1"],
  RuntimeClass: ["node.k8s.io/v1"],
  PriorityClass: ["scheduling.k8s.io/v1"],
  Lease: ["coordination.k8s.io/v1"],
  // access control and policy
  ClusterRole: ["rbac.authorization.k8s.io/v1"],
  ClusterRoleBinding: ["rbac.authorization.k8s.io/v1"],
  Role: ["rbac.authorization.k8s.io/v1"],
  RoleBinding: ["rbac.authorization.k8s.io/v1"],
  MutatingAdmissionPolicy: ["admissionregistration.k8s.io/v1"],
  MutatingAdmissionPolicyBinding: ["admissionregistration.k8s.io/v1"],
  MutatingWebhookConfiguration: ["admissionregistration.k8s.io/v1"],
  ValidatingAdmissionPolicy: ["admissionregistration.k8s.io/v1"],
  ValidatingAdmissionPolicyBinding: ["admissionregistration.k8s.io/v1"],
  ValidatingWebhookConfiguration: ["admissionregistration.k8s.io/v1"],
  TokenReview: ["authentication.k8s.io/v1"],
  SelfSubjectReview: ["authentication.k8s.io/v1"],
  LocalSubjectAccessReview: ["authorization.k8s.io/v1"],
  SelfSubjectAccessReview: ["authorization.k8s.io/v1"],
  SelfSubjectRulesReview: ["authorization.k8s.io/v1"],
  SubjectAccessReview: ["authorization.k8s.io/v1"],
  CertificateSigningRequest: ["certificates.k8s.io/v1"],
  FlowSchema: ["flowcontrol.apiserver.k8s.io/v1"],
  PriorityLevelConfiguration: ["flowcontrol.apiserver.k8s.io/v1"],
  // storage, dynamic resources, the API's own extension
  CSIDriver: ["storage.k8s.io/v1"],
  CSINode: ["storage.k8s.io/v1"],
  CSIStorageCapacity: ["storage.k8s.io/v1"],
  StorageClass: ["storage.k8s.io/v1"],
  VolumeAttachment: ["storage.k8s.io/v1"],
  VolumeAttributesClass: ["storage.k8s.io/v1"],
  DeviceClass: ["resource.k8s.io/v1"],
  ResourceClaim: ["resource.k8s.io/v1"],
  ResourceClaimTemplate: ["resource.k8s.io/v1"],
  ResourceSlice: ["resource.k8s.io/v1"],
  CustomResourceDefinition: ["apiextensions.k8s.io/v1"],
  APIService: ["apiregistration.k8s.io/v1"],
};

/** A version a kind was once served at: the release that stopped serving it. */
interface Removed {
  groupVersions: readonly string[];
  kinds: readonly string[] | "all";
  release: string;
}

/** The versions of built-in kinds that API servers stopped serving, by release. */
const REMOVED: readonly Removed[] = [
  {
    groupVersions: ["extensions/v1beta1"],
    kinds: ["DaemonSet", "Deployment", "ReplicaSet", "NetworkPolicy", "PodSecurityPolicy"],
    release: "v1.16",
  },
  { groupVersions: ["apps/v1beta1", "apps/v1beta2"], kinds: "all", release: "v1.16" },
  { groupVersions: ["extensions/v1beta1", "networking.k8s.io/v1beta1"], kinds: ["Ingress"], release: "v1.22" },
  {
    groupVersions: [
      "networking.k8s.io/v1beta1",
      "admissionregistration.k8s.io/v1beta1",
      "apiextensions.k8s.io/v1beta1",
      "apiregistration.k8s.io/v1beta1",
      "authentication.k8s.io/v1beta1",
      "authorization.k8s.io/v1beta1",
      "certificates.k8s.io/v1beta1",
      "coordination.k8s.io/v1beta1",
      "rbac.authorization.k8s.io/v1beta1",
      "rbac.authorization.k8s.io/v1alpha1",
      "scheduling.k8s.io/v1beta1",
      "scheduling.k8s.io/v1alpha1",
      "storage.k8s.io/v1beta1",
    ],
    kinds: [
      "IngressClass",
      "MutatingWebhookConfiguration",
      "ValidatingWebhookConfiguration",
      "CustomResourceDefinition",
      "APIService",
      "TokenReview",
      "LocalSubjectAccessReview",
      "SelfSubjectAccessReview",
      "SelfSubjectRulesReview",
      "SubjectAccessReview",
      "CertificateSigningRequest",
      "Lease",
      "ClusterRole",
      "ClusterRoleBinding",
      "Role",
      "RoleBinding",
      "PriorityClass",
      "CSIDriver",
      "CSINode",
      "StorageClass",
      "VolumeAttachment",
    ],
    release: "v1.22",
  },
  { groupVersions: ["storage.k8s.io/v1alpha1"], kinds: ["CSIStorageCapacity", "VolumeAttachment"], release: "v1.24" },
  { groupVersions: ["batch/v1beta1", "batch/v2alpha1"], kinds: ["CronJob"], release: "v1.25" },
  { groupVersions: ["discovery.k8s.io/v1beta1"], kinds: ["EndpointSlice"], release: "v1.25" },
  { groupVersions: ["events.k8s.io/v1beta1"], kinds: ["Event"], release: "v1.25" },
  { groupVersions: ["node.k8s.io/v1beta1", "node.k8s.io/v1alpha1"], kinds: ["RuntimeClass"], release: "v1.25" },
  { groupVersions: ["policy/v1beta1"], kinds: ["PodDisruptionBudget", "PodSecurityPolicy"], release: "v1.25" },
  { groupVersions: ["autoscaling/v2beta1"], kinds: ["HorizontalPodAutoscaler"], release: "v1.25" },
  { groupVersions: ["autoscaling/v2beta2"], kinds: ["HorizontalPodAutoscaler"], release: "v1.26" },
  { groupVersions: ["flowcontrol.apiserver.k8s.io/v1beta1"], kinds: "all", release: "v1.26" },
  { groupVersions: ["storage.k8s.io/v1beta1"], kinds: ["CSIStorageCapacity"], release: "v1.27" },
  { groupVersions: ["flowcontrol.apiserver.k8s.io/v1beta2"], kinds: "all", release: "v1.29" },
  { groupVersions: ["flowcontrol.apiserver.k8s.io/v1beta3"], kinds: "all", release: "v1.32" },
  {
    groupVersions: ["admissionregistration.k8s.io/v1alpha1"],
    kinds: ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"],
    release: "v1.32",
  },
  {
    groupVersions: ["admissionregistration.k8s.io/v1beta1"],
    kinds: ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"],
    release: "v1.34",
  },
  { groupVersions: ["storage.k8s.io/v1alpha1"], kinds: ["VolumeAttributesClass"], release: "v1.35" },
  { groupVersions: ["settings.k8s.io/v1alpha1"], kinds: ["PodPreset"], release: "v1.20" },
];

// Built-in groups a v1.36 API server serves no version of by default (their only versions are
// alpha or beta: StorageVersionMigration, StorageVersion): a kind of theirs is no match either.
const OFF_BY_DEFAULT_GROUPS = ["storagemigration.k8s.io", "internal.apiserver.k8s.io"];

/**
 * The groups of the Kubernetes components' configuration files (an audit policy, a kubelet or
 * kube-proxy configuration, an admission configuration, kubeadm's and kind's): files a component
 * reads with a flag, which look like objects but no API server serves. kubectl refuses them with
 * `no matches for kind`, and so does podrun, saying what they are.
 */
const COMPONENT_CONFIG_GROUPS = new Set([
  "audit.k8s.io",
  "apiserver.config.k8s.io",
  "apiserver.k8s.io",
  "kubelet.config.k8s.io",
  "kubeproxy.config.k8s.io",
  "kubescheduler.config.k8s.io",
  "kubecontrollermanager.config.k8s.io",
  "cloudcontrollermanager.config.k8s.io",
  "kubeadm.k8s.io",
  "pod-security.admission.config.k8s.io",
  "eventratelimit.admission.k8s.io",
  "podtolerationrestriction.admission.k8s.io",
  "credentialprovider.kubelet.k8s.io",
  "client.authentication.k8s.io",
  "imagepolicy.k8s.io",
  "kind.x-k8s.io",
]);

/** kustomize's own files (a kustomization.yaml in a directory given to `-f`): rendered by `-k`, not applied. */
const KUSTOMIZE_GROUP = "kustomize.config.k8s.io";

/** Groups whose kinds are all built in: a kind of them that is not one of the API's is a typo, not a custom resource. */
const BUILT_IN_GROUPS = new Set([
  ...[...Object.values(SERVED_KINDS).flat(), ...REMOVED.flatMap((r) => r.groupVersions), "extensions/v1beta1"].map(
    (apiVersion) => groupOf(apiVersion),
  ),
  ...OFF_BY_DEFAULT_GROUPS,
]);

function groupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** What a v1.36 API server makes of `kind` at `apiVersion`. */
export type KindMatch =
  | { status: "served" }
  /** A built-in kind at a version not served: `servedAt` is what to use; `removedIn` when it once was served. */
  | { status: "not-served"; servedAt: readonly string[]; removedIn?: string }
  /** A kind of a built-in group that the API does not have (a typo): no match. */
  | { status: "unknown-kind" }
  /** A kind of another group: a custom resource, served only where its CustomResourceDefinition is installed. */
  | { status: "custom-resource" }
  /** A Kubernetes component's configuration file (COMPONENT_CONFIG_GROUPS): no match. */
  | { status: "component-config" }
  /** A kustomization file: for `-k`. */
  | { status: "kustomization" };

export function matchKind(apiVersion: string, kind: string): KindMatch {
  const servedAt = Object.hasOwn(SERVED_KINDS, kind) ? SERVED_KINDS[kind]! : undefined;
  if (servedAt?.includes(apiVersion)) return { status: "served" };
  const removed = REMOVED.find(
    (r) => r.groupVersions.includes(apiVersion) && (r.kinds === "all" || r.kinds.includes(kind)),
  );
  // A kind removed with no successor (PodSecurityPolicy) is served nowhere.
  if (servedAt || removed)
    return { status: "not-served", servedAt: servedAt ?? [], ...(removed ? { removedIn: removed.release } : {}) };
  const group = groupOf(apiVersion);
  if (BUILT_IN_GROUPS.has(group)) return { status: "unknown-kind" };
  if (COMPONENT_CONFIG_GROUPS.has(group)) return { status: "component-config" };
  return group === KUSTOMIZE_GROUP ? { status: "kustomization" } : { status: "custom-resource" };
}

/**
 * kubectl's words for a kind the API server does not serve at that version
 * (k8s.io/apimachinery pkg/api/meta/errors.go, NoKindMatchError), with what to use instead.
 */
export function describeNoMatch(apiVersion: string, kind: string, match: KindMatch): string {
  const base = `no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(apiVersion)}`;
  if (match.status === "unknown-kind") {
    const near = nearestKind(kind);
    return near ? `${base}: did you mean ${near}?` : base;
  }
  if (match.status === "component-config")
    return `${base}: a configuration file of a Kubernetes component (${groupOf(apiVersion)}), not an object an API server takes`;
  if (match.status !== "not-served") return base;
  const use = match.servedAt.length > 0 ? `; use apiVersion ${match.servedAt.join(" or ")}` : "";
  return match.removedIn
    ? `${base}: ${apiVersion} ${kind} is no longer served since Kubernetes ${match.removedIn}${use}`
    : `${base}: a v1.36 API server serves ${kind} at apiVersion ${match.servedAt.join(" or ")}`;
}

/** The served kind a typo most likely meant: at most two edits away, case aside. */
function nearestKind(kind: string): string | undefined {
  let best: { kind: string; distance: number } | undefined;
  for (const candidate of Object.keys(SERVED_KINDS)) {
    const distance = editDistance(kind.toLowerCase(), candidate.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { kind: candidate, distance };
  }
  return best?.kind;
}

/** Levenshtein's distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}
