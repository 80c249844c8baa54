import { SERVED_KINDS } from "./served-kinds.js";

// The kinds a manifest may hold: those podrun reads (each at the one apiVersion the API server
// serves it at), and the other kinds of the Kubernetes API, which a whole app directory holds too
// (`podrun validate k8s/`): those are skipped with a Warning, never an error, and so is a custom
// resource (another group's kind); a kind at a version the API server does not serve, or a kind
// a built-in group does not have (a typo), is kubectl's error (served-kinds.ts).

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

/** Where a kind's pod spec is: a Pod's `spec`, a workload's `spec.template.spec`; undefined for the others. */
export function podSpecPath(kind: string): readonly string[] | undefined {
  if (kind === "Pod") return ["spec"];
  return isWorkloadKind(kind) ? ["spec", "template", "spec"] : undefined;
}

/**
 * The built-in kinds of the Kubernetes API that podrun does not run (served-kinds.ts has them
 * all): a cluster's networking, access control, scheduling and policy objects, which have no
 * meaning on one machine. Each is one Warning at a version the API server serves.
 */
export const NOT_RUN_KINDS: ReadonlySet<string> = new Set(
  Object.keys(SERVED_KINDS).filter((kind) => !Object.hasOwn(KIND_API_VERSIONS, kind)),
);
