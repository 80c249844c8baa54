import type { PersistentVolumeClaim, Pod, PodTemplateSpec, Volume } from "kubernetes-types/core/v1.js";
import { defaultPod } from "../manifest/defaults.js";
import type { WorkloadKind } from "../manifest/kinds.js";
import type { Workload } from "../manifest/kind-hooks.js";

export type { Workload };
import { LABEL_OWNER } from "../runtime/types.js";
import type { PodRecord } from "../pod/status/find-pods.js";

// The pods a workload's controller would create from its template, as a pure function of the
// validated manifest: named and labelled as the controllers do, so `ps`, `logs` and `down` can find
// them by workload, and stable, so an unchanged re-up finds the same pods.
// Controllers: https://github.com/kubernetes/kubernetes/tree/v1.34.0/pkg/controller

/** podrun's own label on every pod of a workload, and on its containers: `Deployment/web`. */
export const OWNER_LABEL = LABEL_OWNER;

/** The owner label values (`Deployment/web`) of a pod's containers on the engine, sandbox first. */
export function ownerLabelsOf(record: Pick<PodRecord, "infra" | "initContainers" | "appContainers">): string[] {
  return [...(record.infra ? [record.infra] : []), ...record.appContainers, ...record.initContainers]
    .map((state) => state.labels[OWNER_LABEL])
    .filter((value) => value !== undefined);
}

interface RawWorkload {
  kind: WorkloadKind;
  metadata?: { name?: string; namespace?: string };
  spec?: {
    replicas?: number;
    parallelism?: number;
    completions?: number;
    template?: PodTemplateSpec;
    selector?: { matchLabels?: Record<string, string> };
    volumeClaimTemplates?: PersistentVolumeClaim[];
  };
}

/** The pods of a validated workload object. */
export function expandWorkload(object: RawWorkload): Workload {
  const kind = object.kind;
  const name = object.metadata?.name ?? "";
  const namespace = object.metadata?.namespace || "default";
  const spec = object.spec ?? {};
  const template = spec.template ?? {};
  const count = podCount(kind, spec);
  // The API server defaults the template before any controller reads it, so hash the defaulted one.
  const defaulted = defaultPod({ metadata: { ...template.metadata }, spec: template.spec ?? { containers: [] } });
  const hashed: PodTemplateSpec = { metadata: { ...template.metadata }, spec: defaulted.spec };
  const templateHash = kind === "Deployment" || kind === "StatefulSet" ? computeHash(canonicalJson(hashed)) : "";
  const owner = { kind, name, namespace, templateHash };
  const pods: Pod[] = [];
  const claims: PersistentVolumeClaim[] = [];
  for (let i = 0; i < count; i++) {
    const { podName, labels } = namePod(owner, template.metadata?.labels, i);
    const pod: Pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { ...template.metadata, name: podName, namespace, labels },
      spec: structuredClone(defaulted.spec!),
    };
    if (kind === "StatefulSet") {
      // The StatefulSet controller gives each pod a stable hostname, under the governing service
      // (updateIdentity, pkg/controller/statefulset/stateful_set_utils.go): `db-0.db` resolves.
      pod.spec!.hostname = podName;
      const serviceName = (spec as { serviceName?: string }).serviceName;
      if (serviceName) pod.spec!.subdomain = serviceName;
      claims.push(...addClaimVolumes(pod, owner, spec, i));
    }
    pods.push(pod);
  }
  const written = object as unknown as Record<string, unknown>;
  return {
    kind,
    name,
    namespace,
    replicas: count,
    templateHash,
    pods,
    claims,
    object: { ...written, metadata: { ...object.metadata, namespace } },
  };
}

interface PodOwnerOf {
  kind: WorkloadKind;
  name: string;
  namespace: string;
  templateHash: string;
}

/** The name and labels the workload's controller gives its pod number `i`. */
function namePod(
  { kind, name, namespace, templateHash }: PodOwnerOf,
  templateLabels: Record<string, string> | undefined,
  i: number,
): { podName: string; labels: Record<string, string> } {
  const owner = `${kind}/${name}`;
  const labels: Record<string, string> = { ...templateLabels };
  let podName: string;
  switch (kind) {
    case "Deployment":
      // The Deployment controller names its ReplicaSet `<name>-<hash>` and adds the label to it.
      labels["pod-template-hash"] = templateHash;
      podName = `${name}-${templateHash}-${stableSuffix(namespace, owner, templateHash, i)}`;
      break;
    case "StatefulSet":
      podName = `${name}-${i}`;
      labels["controller-revision-hash"] = `${name}-${templateHash}`;
      labels["statefulset.kubernetes.io/pod-name"] = podName;
      labels["apps.kubernetes.io/pod-index"] = String(i);
      break;
    case "Job": {
      const uid = stableUid(namespace, owner);
      podName = `${name}-${stableSuffix(namespace, owner, "", i)}`;
      // The Job strategy adds both spellings of each label to the template.
      Object.assign(labels, {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": uid,
        "job-name": name,
      });
      break;
    }
    default:
      podName = `${name}-${stableSuffix(namespace, owner, "", i)}`;
  }
  labels[OWNER_LABEL] = owner;
  return { podName, labels };
}

/**
 * A StatefulSet pod's own claim per volumeClaimTemplate, labelled with the template's labels and
 * the selector's, mounted through a volume of the template's name (which replaces a pod volume of
 * that name); returns the claims.
 */
function addClaimVolumes(
  pod: Pod,
  { name, namespace }: PodOwnerOf,
  spec: RawWorkload["spec"] & object,
  i: number,
): PersistentVolumeClaim[] {
  const podClaims = (spec.volumeClaimTemplates ?? []).map((template): PersistentVolumeClaim => ({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: {
      name: `${template.metadata?.name}-${name}-${i}`,
      namespace,
      labels: { ...template.metadata?.labels, ...spec.selector?.matchLabels },
    },
    spec: structuredClone(template.spec),
  }));
  if (podClaims.length === 0) return [];
  const volumes: Volume[] = podClaims.map((claim, t) => ({
    name: spec.volumeClaimTemplates![t]!.metadata!.name!,
    persistentVolumeClaim: { claimName: claim.metadata!.name! },
  }));
  const taken = new Set(volumes.map((v) => v.name));
  pod.spec!.volumes = [...(pod.spec!.volumes ?? []).filter((v) => !taken.has(v.name)), ...volumes];
  return podClaims;
}

function podCount(kind: WorkloadKind, spec: RawWorkload["spec"] & object): number {
  if (kind === "DaemonSet") return 1;
  // A Job runs `parallelism` pods at once (default 1), never more than its completions.
  if (kind === "Job") return Math.min(spec.parallelism ?? 1, spec.completions ?? Number.MAX_SAFE_INTEGER);
  return spec.replicas ?? 1;
}

// rand.SafeEncodeString's alphabet (k8s.io/apimachinery/pkg/util/rand): no vowels, so no words,
// and no characters that look alike.
const ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

/** One character of the controllers' alphabet, as a regular expression. */
export const SUFFIX_CHARACTER = `[${ALPHANUMS}]`;

/** FNV-32a (hash/fnv) of the UTF-8 bytes of `text`. */
export function fnv32a(bytes: Uint8Array, hash = 0x811c9dc5): number {
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** rand.SafeEncodeString: each byte of `s` mapped onto the alphabet. */
export function safeEncodeString(s: string): string {
  return [...Buffer.from(s, "utf8")].map((b) => ALPHANUMS[b % ALPHANUMS.length]).join("");
}

/**
 * controller.ComputeHash's encoding: FNV-32a over the printed template, then over collisionCount
 * as 8 little-endian bytes (the upper four zero) when set, and the decimal of the sum encoded by
 * SafeEncodeString. The printed template here is canonical JSON, not Go's spew dump of the struct.
 */
export function computeHash(printed: string, collisionCount?: number): string {
  let hash = fnv32a(Buffer.from(printed, "utf8"));
  if (collisionCount !== undefined) {
    const count = Buffer.alloc(8);
    count.writeUInt32LE(collisionCount >>> 0, 0);
    hash = fnv32a(count, hash);
  }
  return safeEncodeString(String(hash));
}

/**
 * The 5 characters a controller draws at random (rand.String(5), same alphabet) are drawn here
 * from FNV-32a of the owner, its template hash and the pod's index: the same workload gives the
 * same names on every `up`, so an unchanged re-up finds its pods, and two replicas never collide
 * (27^5 names per owner).
 */
export function stableSuffix(namespace: string, owner: string, templateHash: string, index: number): string {
  let n = fnv32a(Buffer.from(`${namespace}/${owner}/${templateHash}/${index}`, "utf8"));
  let out = "";
  for (let i = 0; i < 5; i++) {
    out += ALPHANUMS[n % ALPHANUMS.length];
    n = Math.floor(n / ALPHANUMS.length);
  }
  return out;
}

/** A UID of UUID form for a Job's controller-uid label, stable per Job (no API server assigns one). */
export function stableUid(namespace: string, owner: string): string {
  const hex = [0, 1, 2, 3]
    .map((i) =>
      fnv32a(Buffer.from(`${i}/${namespace}/${owner}`, "utf8"))
        .toString(16)
        .padStart(8, "0"),
    )
    .join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** JSON with object keys sorted: the same template always prints the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}
