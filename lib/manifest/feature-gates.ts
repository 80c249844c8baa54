import { FieldPath } from "./field-path.js";
import type { Reporter } from "./field-error.js";
import { podSpecPath } from "./kinds.js";
import { asObject, type RawObject } from "./rules/raw.js";

// The fields a Kubernetes v1.36 API server drops from an object it creates, because the feature
// gate behind them is off by default in that release: the object is stored without them, and
// the rest of it is then validated (a projected source left empty fails as one). podrun does the
// same, and says which gate in a Warning, where a cluster says nothing. The gates and their
// defaults are those of v1.36's pkg/features/kube_features.go; the drops are its
// dropDisabledFields (pkg/api/pod/util.go), and the StatefulSet and PersistentVolumeClaim
// strategies' equivalents. docs/support.md, "Feature gates", lists every gated field and what
// podrun does with it. https://github.com/kubernetes/kubernetes/blob/release-1.36/pkg/api/pod/util.go

interface DroppedField {
  gate: string;
  stage: "alpha" | "beta";
  /** Field names from the pod spec, or from the object for `kinds`; `*` is every item of a list. */
  path: readonly string[];
  /** Kinds whose object holds `path` itself (absent: a pod spec field, of a Pod or a template). */
  kinds?: readonly string[];
}

const CONTAINER_LISTS = ["containers", "initContainers", "ephemeralContainers"] as const;

export const DROPPED_FIELDS: readonly DroppedField[] = [
  {
    gate: "ClusterTrustBundleProjection",
    stage: "beta",
    path: ["volumes", "*", "projected", "sources", "*", "clusterTrustBundle"],
  },
  {
    gate: "PodCertificateRequest",
    stage: "beta",
    path: ["volumes", "*", "projected", "sources", "*", "podCertificate"],
  },
  { gate: "GenericWorkload", stage: "alpha", path: ["schedulingGroup"] },
  ...CONTAINER_LISTS.map((list) => ({
    gate: "ContainerStopSignals",
    stage: "alpha" as const,
    path: [list, "*", "lifecycle", "stopSignal"],
  })),
  {
    gate: "MaxUnavailableStatefulSet",
    stage: "beta",
    path: ["spec", "updateStrategy", "rollingUpdate", "maxUnavailable"],
    kinds: ["StatefulSet"],
  },
  {
    gate: "CrossNamespaceVolumeDataSource",
    stage: "alpha",
    path: ["spec", "dataSourceRef", "namespace"],
    kinds: ["PersistentVolumeClaim"],
  },
  {
    gate: "CrossNamespaceVolumeDataSource",
    stage: "alpha",
    path: ["spec", "volumeClaimTemplates", "*", "spec", "dataSourceRef", "namespace"],
    kinds: ["StatefulSet"],
  },
];

/**
 * Removes from `object` (of `kind`, already checked against the schema) each field a v1.36 API
 * server would drop, with a Warning naming its gate. A container's `lifecycle` left empty goes too.
 */
export function dropDisabledFields(kind: string, object: RawObject, warn: Reporter): void {
  const podSpec = podSpecPath(kind);
  for (const field of DROPPED_FIELDS) {
    const path = field.kinds
      ? field.kinds.includes(kind)
        ? field.path
        : undefined
      : podSpec && [...podSpec, ...field.path];
    if (!path) continue;
    dropAt(object, path, FieldPath.root(), (found) =>
      warn({
        type: "Forbidden",
        path: found,
        atKey: true,
        detail: `dropped, as a v1.36 API server drops it: its feature gate ${field.gate} (${field.stage}) is off by default`,
      }),
    );
  }
}

function dropAt(value: unknown, path: readonly string[], at: FieldPath, dropped: (path: FieldPath) => void): void {
  const [head, ...rest] = path;
  if (head === "*") {
    if (Array.isArray(value)) value.forEach((item, i) => dropAt(item, rest, at.index(i), dropped));
    return;
  }
  const object = asObject(value);
  if (!object || head === undefined || !Object.hasOwn(object, head)) return;
  if (rest.length > 0) {
    dropAt(object[head], rest, at.child(head), dropped);
    // As the API server does with a stop signal's lifecycle: an object the drop emptied goes too.
    const left = asObject(object[head]);
    if (head === "lifecycle" && left && Object.keys(left).length === 0) delete object[head];
    return;
  }
  if (object[head] === null || object[head] === undefined) return;
  delete object[head];
  dropped(at.child(head));
}
