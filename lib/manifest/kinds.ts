// The kinds a manifest may hold: those podrun reads (each at the one apiVersion the API server
// serves it at), and the other kinds of the Kubernetes API, which a whole app directory holds too
// (`podrun validate k8s/`): those are skipped with a Warning, never an error, while a kind
// Kubernetes does not know (a typo, a custom resource) stays an error.

/** The apiVersion of each kind podrun reads. */
export const KIND_API_VERSIONS = {
  Pod: "v1",
  ConfigMap: "v1",
  Secret: "v1",
  PersistentVolumeClaim: "v1",
  Service: "v1",
  Deployment: "apps/v1",
  ReplicaSet: "apps/v1",
  StatefulSet: "apps/v1",
  DaemonSet: "apps/v1",
  Job: "batch/v1",
} as const;

/** The kinds whose pod template podrun runs as pods, the way their controller would. */
export const WORKLOAD_KINDS = ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

export function isWorkloadKind(kind: string): kind is WorkloadKind {
  return (WORKLOAD_KINDS as readonly string[]).includes(kind);
}

/**
 * The built-in kinds of the Kubernetes API (v1.34) that podrun does not run: a cluster's
 * networking, access control, scheduling and policy objects, which have no meaning on one machine.
 * The list stops at built-in kinds so that a typo in a kind podrun runs is still caught.
 */
export const NOT_RUN_KINDS: ReadonlySet<string> = new Set([
  // core/v1
  "ServiceAccount",
  "Namespace",
  "Endpoints",
  "LimitRange",
  "ResourceQuota",
  "PersistentVolume",
  "PodTemplate",
  "ReplicationController",
  "Event",
  "Binding",
  "Node",
  "ComponentStatus",
  // apps, batch, autoscaling, policy
  "ControllerRevision",
  "CronJob",
  "HorizontalPodAutoscaler",
  "PodDisruptionBudget",
  // networking.k8s.io, discovery.k8s.io
  "Ingress",
  "IngressClass",
  "NetworkPolicy",
  "IPAddress",
  "ServiceCIDR",
  "EndpointSlice",
  // rbac.authorization.k8s.io
  "Role",
  "RoleBinding",
  "ClusterRole",
  "ClusterRoleBinding",
  // storage.k8s.io, scheduling.k8s.io, node.k8s.io, coordination.k8s.io
  "StorageClass",
  "VolumeAttachment",
  "CSIDriver",
  "CSINode",
  "CSIStorageCapacity",
  "VolumeAttributesClass",
  "PriorityClass",
  "RuntimeClass",
  "Lease",
  // admissionregistration.k8s.io, apiextensions.k8s.io, apiregistration.k8s.io, certificates.k8s.io
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
  "CustomResourceDefinition",
  "APIService",
  "CertificateSigningRequest",
  "ClusterTrustBundle",
  // flowcontrol.apiserver.k8s.io, resource.k8s.io
  "FlowSchema",
  "PriorityLevelConfiguration",
  "DeviceClass",
  "ResourceClaim",
  "ResourceClaimTemplate",
  "ResourceSlice",
]);
