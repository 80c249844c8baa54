import type { Pod } from "kubernetes-types/core/v1.js";
import type { ContainerState } from "../../runtime/types.js";
import { currentContainers, kubeContainerName } from "./find-pods.js";
import type { PodSummary } from "./pod-status.js";

// Which pod and container `podrun exec` runs in (and `podrun cp` copies from), chosen as kubectl chooses them (pure), with its
// messages:
// - a workload's pod, or the first of `-l`: the most active one, as kubectl's
//   AttachablePodForObject sorts them (podutils.ActivePods, reversed): running before pending,
//   ready before not, fewer restarts first, then the oldest;
// - the container: `-c`, else the one the pod's `kubectl.kubernetes.io/default-container`
//   annotation names, else the pod's first container, with kubectl's "Defaulted container" note
//   when there was a choice (podcmd.FindOrDefaultContainerByName,
//   https://github.com/kubernetes/kubectl/blob/v0.34.0/pkg/cmd/util/podcmd/podcmd.go).
// The pod's spec comes from its record (pod-record.ts); without one (a pod of an older podrun)
// the engine's containers stand for it, in the order they were made.

export const DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container";

/** The pods sorted most active first; `exec` takes the first. */
export function sortMostActive<T extends Pick<PodSummary, "phase" | "ready" | "total" | "restarts" | "createdAt">>(
  pods: readonly T[],
): T[] {
  const phaseRank = (pod: T) => (pod.phase === "Running" ? 0 : pod.phase === "Pending" ? 2 : 1);
  const readyRank = (pod: T) => (pod.total > 0 && pod.ready === pod.total ? 0 : 1);
  const created = (pod: T) => Date.parse(pod.createdAt) || Number.MAX_SAFE_INTEGER;
  return [...pods].sort(
    (a, b) =>
      phaseRank(a) - phaseRank(b) || readyRank(a) - readyRank(b) || a.restarts - b.restarts || created(a) - created(b),
  );
}

export type ExecContainerChoice =
  | { ok: true; name: string; state: ContainerState; note?: string }
  /** kubectl's error line (without its `error: ` prefix); exit 1. */
  | { ok: false; message: string };

/**
 * The container to run in: `requested` (-c), else the default. A completed pod, a container that
 * is not there and one that is not running are refused with kubectl's words.
 */
export function chooseExecContainer(
  /** Its phase: none for `logs` and `cp`, which read exited containers too. */
  pod: Pick<PodSummary, "name" | "initContainers" | "appContainers"> & { phase?: PodSummary["phase"] },
  spec: Pod | undefined,
  requested: string | undefined,
  /** false (`cp`): a container that exited is chosen too, as the engines copy from it. */
  mustRun = true,
): ExecContainerChoice {
  if (mustRun && (pod.phase === "Succeeded" || pod.phase === "Failed"))
    return { ok: false, message: `cannot exec into a container in a completed pod; current phase is ${pod.phase}` };
  const states = new Map(
    currentContainers([...pod.initContainers, ...pod.appContainers]).map((state) => [kubeContainerName(state), state]),
  );
  const names = containerNames(pod, spec);
  let note: string | undefined;
  let name = requested;
  if (name === undefined) {
    const annotated = spec?.metadata?.annotations?.[DEFAULT_CONTAINER_ANNOTATION];
    if (annotated !== undefined && [...names.app, ...names.init].includes(annotated)) name = annotated;
    else {
      if (annotated !== undefined) note = `Default container name "${annotated}" not found in pod ${pod.name}`;
      name = names.app[0];
      const choice = names.app.length > 1 || names.init.length > 0;
      if (choice && name !== undefined) {
        const all = [...names.app, ...names.init.map((init) => `${init} (init)`)].join(", ");
        note = [note, `Defaulted container "${name}" out of: ${all}`].filter(Boolean).join("\n");
      }
    }
  }
  const state = name === undefined ? undefined : states.get(name);
  if (name === undefined || state === undefined)
    return { ok: false, message: `unable to upgrade connection: container not found ("${name ?? ""}")` };
  if (mustRun && !state.running)
    return {
      ok: false,
      message: `Internal error occurred: error executing command in container: failed to exec in container: container is in CONTAINER_EXITED state`,
    };
  return { ok: true, name, state, ...(note !== undefined ? { note } : {}) };
}

/** The pod's container names in spec order (from its record), else in the order the engine made them. */
function containerNames(
  pod: Pick<PodSummary, "initContainers" | "appContainers">,
  spec: Pod | undefined,
): { app: string[]; init: string[] } {
  if (spec?.spec)
    return {
      app: spec.spec.containers.map((c) => c.name),
      init: (spec.spec.initContainers ?? []).map((c) => c.name),
    };
  return {
    app: currentContainers(pod.appContainers).map(kubeContainerName),
    init: currentContainers(pod.initContainers).map(kubeContainerName),
  };
}
