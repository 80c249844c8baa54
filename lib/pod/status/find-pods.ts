import {
  INFRA_CONTAINER_NAME,
  LABEL_CONTAINER_KIND,
  LABEL_CONTAINER_NAME,
  LABEL_MANAGED,
  LABEL_OWNER,
  LABEL_POD_NAME,
  LABEL_POD_NAMESPACE,
  LABEL_POD_UID,
  type ContainerRuntime,
  type ContainerState,
} from "../../runtime/types.js";
import { matchesLabelSelector, type LabelSelector } from "../../manifest/label-selector.js";

// The pods podrun runs, read back from the engine by label: `ps`, `logs` and `down` trust the
// engine, never a cache of ours, so what they print is always what is there.

export interface PodRecord {
  name: string;
  namespace: string;
  /** The UID of the run that made the pod's containers (the newest, if runs were mixed). */
  uid: string;
  /** The infra container (docker/nerdctl), or podman's infra container; absent with hostNetwork. */
  infra?: ContainerState;
  /** Init containers, sidecars among them (isSidecarState), oldest first: init order. */
  initContainers: ContainerState[];
  /** App containers, oldest first. */
  appContainers: ContainerState[];
}

/** The Kubernetes container name of a container podrun made (`POD` for the infra container). */
export function kubeContainerName(state: ContainerState): string {
  return state.labels[LABEL_CONTAINER_NAME] ?? state.name;
}

/** Whether a container podrun made is a sidecar (an init container with `restartPolicy: Always`), by its kind label. */
export function isSidecarState(state: ContainerState): boolean {
  return state.labels[LABEL_CONTAINER_KIND] === "sidecar";
}

/**
 * The pod's own labels (its metadata.labels), as `-l` selects on them: the sandbox carries them,
 * as the kubelet's does, beside the labels podrun adds (io.kubernetes.*, io.podrun.*), which are
 * left out here, but for the owner label a workload's template gives its pods (io.podrun.owner). A hostNetwork pod has no sandbox, so no labels to select on.
 */
export function podLabels(record: Pick<PodRecord, "infra">): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(record.infra?.labels ?? {}))
    if (key === LABEL_OWNER || (!key.startsWith("io.kubernetes.") && !key.startsWith("io.podrun.")))
      labels[key] = value;
  return labels;
}

/** The records whose pod labels (podLabels) the selector matches, in their order. */
export function selectByLabels<T extends Pick<PodRecord, "infra">>(
  records: readonly T[],
  selector: LabelSelector,
): T[] {
  return records.filter((record) => matchesLabelSelector(selector, podLabels(record)));
}

/**
 * The newest container of each Kubernetes name among `containers` (oldest first, as in a
 * PodRecord), in that order: what `ps` and `logs` show when runs of a pod left older ones behind.
 */
export function currentContainers(containers: readonly ContainerState[]): ContainerState[] {
  const newest = new Map<string, ContainerState>();
  for (const state of containers) newest.set(kubeContainerName(state), state);
  return containers.filter((state) => newest.get(kubeContainerName(state)) === state);
}

/**
 * Every podrun pod the engine has, optionally only those of `namespace` and/or `name`, sorted by
 * namespace then name. One `ps` and one `inspect` whatever the number of pods.
 */
export async function findPods(
  runtime: ContainerRuntime,
  filter: { namespace?: string; name?: string } = {},
): Promise<PodRecord[]> {
  const labels: Record<string, string> = { [LABEL_MANAGED]: "true" };
  if (filter.namespace !== undefined) labels[LABEL_POD_NAMESPACE] = filter.namespace;
  if (filter.name !== undefined) labels[LABEL_POD_NAME] = filter.name;
  return groupPods(await runtime.listContainers(labels));
}

/** Groups containers into pods by their labels (pure). Containers without pod labels are left out. */
export function groupPods(containers: readonly ContainerState[]): PodRecord[] {
  const pods = new Map<string, PodRecord & { newest: string }>();
  for (const state of [...containers].sort(byCreation)) {
    const name = state.labels[LABEL_POD_NAME];
    const namespace = state.labels[LABEL_POD_NAMESPACE];
    if (!name || !namespace) continue;
    const key = `${namespace}/${name}`;
    let pod = pods.get(key);
    if (!pod) pods.set(key, (pod = { name, namespace, uid: "", initContainers: [], appContainers: [], newest: "" }));
    if (timeOf(state.createdAt) >= timeOf(pod.newest)) {
      pod.newest = state.createdAt;
      pod.uid = state.labels[LABEL_POD_UID] ?? pod.uid;
    }
    const kind = state.labels[LABEL_CONTAINER_KIND];
    if (kind === "infra" || (kind === undefined && state.labels[LABEL_CONTAINER_NAME] === INFRA_CONTAINER_NAME))
      pod.infra = state;
    else if (kind === "init" || kind === "sidecar") pod.initContainers.push(state);
    else pod.appContainers.push(state);
  }
  return [...pods.values()]
    .map(({ newest: _newest, ...pod }) => pod)
    .sort((a, b) => (a.namespace === b.namespace ? compare(a.name, b.name) : compare(a.namespace, b.namespace)));
}

// RFC 3339 times with trimmed nanoseconds do not sort as strings ("…00.12Z" < "…00.1Z").
function byCreation(a: ContainerState, b: ContainerState): number {
  const [ta, tb] = [timeOf(a.createdAt), timeOf(b.createdAt)];
  return ta === tb ? compare(a.name, b.name) : ta - tb;
}

function timeOf(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : ms;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
