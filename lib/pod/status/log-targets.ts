import { UsageError } from "../../errors.js";
import type { ContainerState } from "../../runtime/types.js";
import { currentContainers, kubeContainerName, type PodRecord } from "./find-pods.js";

// Which containers `podrun logs` reads, chosen as `kubectl logs` chooses, with its messages (pure).

export interface LogTarget {
  /** The Kubernetes container name. */
  name: string;
  init: boolean;
  state: ContainerState;
}

/**
 * `-c NAME` (an app or an init container; the caller refuses it with `allContainers`), every
 * container with `allContainers` (init containers first, then app containers, each in creation
 * order), else the pod's only app container. Anything else is a UsageError with kubectl's words, naming the choices.
 */
export function selectLogTargets(
  record: PodRecord,
  request: { container?: string | undefined; allContainers: boolean },
): LogTarget[] {
  const init = currentContainers(record.initContainers).map((state) => ({
    name: kubeContainerName(state),
    init: true,
    state,
  }));
  const app = currentContainers(record.appContainers).map((state) => ({
    name: kubeContainerName(state),
    init: false,
    state,
  }));
  if (request.container !== undefined) {
    const chosen = [...app, ...init].find((target) => target.name === request.container);
    if (!chosen) throw new UsageError(`container ${request.container} is not valid for pod ${record.name}`);
    return [chosen];
  }
  if (request.allContainers) return [...init, ...app];
  if (app.length === 1) return app;
  const choices = `choose one of: ${goList(app.map((t) => t.name))}`;
  const inits = init.length > 0 ? ` or one of the init containers: ${goList(init.map((t) => t.name))}` : "";
  throw new UsageError(`a container name must be specified for pod ${record.name}, ${choices}${inits}`);
}

/** A container that never started has no log: kubectl's BadRequest line for it, else undefined. */
export function describeNotStarted(pod: string, target: LogTarget): string | undefined {
  if (target.state.running || target.state.startedAt !== "") return undefined;
  return `container "${target.name}" in pod "${pod}" is waiting to start: ContainerCreating`;
}

// How Go prints a []string, which is what kubectl's messages show.
function goList(names: readonly string[]): string {
  return `[${names.join(" ")}]`;
}
