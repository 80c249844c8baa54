import type { Pod } from "kubernetes-types/core/v1.js";
import { plural } from "../text/plural.js";
import type { ContainerRuntime } from "../runtime/types.js";
import { sandboxRuntimeName, type PodIdentity } from "./identity.js";
import type { StartedPod } from "./start/start-pod.js";
import type { CreatedByRun } from "./start/undo-log.js";
import { removePodDirectory } from "./volumes/pod-dir.js";
import { planPodVolumes } from "./volumes/volume-plan.js";
import { podDirectory } from "./volumes/pod-dir.js";
import { errorFirstLine } from "../errors.js";

// What `up` takes back when a pod does not come up: after a failed start, what this run created
// (unless --keep-on-failure); after Ctrl-C while starting, the same, whatever the flags say;
// after Ctrl-C during --wait with --rm-on-interrupt, the whole pod. Each returns the line that
// tells the user what happened (nothing is printed here), and never throws: a removal that fails
// is told, not raised, so that the error that caused the undo stays the one reported.

/** Removes what a run created: containers (newest first), then the sandbox, then the volumes and the pod directory. */
export async function undoStart(runtime: ContainerRuntime, created: CreatedByRun): Promise<void> {
  if (created.containerIds.length > 0) await runtime.removeContainers([...created.containerIds].reverse());
  if (created.sandbox) await runtime.removeSandbox(created.sandbox);
  if (created.volumes && created.volumes.length > 0) await runtime.removeVolumes(created.volumes);
  if (created.podDir !== undefined) await removePodDirectory(created.podDir);
}

/** A failed start: its containers, sandbox, volumes and pod directory go, unless `keep`. */
export async function undoFailedStart(
  runtime: ContainerRuntime,
  created: CreatedByRun,
  options: { label: string; keep: boolean },
): Promise<string[]> {
  const count = countCreated(created);
  // Volumes and the pod directory go too, even when no container was made (a hostNetwork pod whose image failed).
  const anything = count > 0 || (created.volumes?.length ?? 0) > 0 || created.podDir !== undefined;
  if (!anything || options.keep) return [];
  try {
    await undoStart(runtime, created);
    return count > 0
      ? [
          `podrun: removed the ${plural(count, "container")} this run created for ${options.label} (--keep-on-failure keeps them)`,
        ]
      : [];
  } catch (error) {
    return [`podrun: could not remove everything this run created for ${options.label}: ${errorFirstLine(error)}`];
  }
}

/** Ctrl-C while the pod was starting: what this run made goes, whatever --keep-on-failure says. */
export async function undoInterruptedStart(runtime: ContainerRuntime, created: CreatedByRun): Promise<string> {
  const count = countCreated(created);
  try {
    await undoStart(runtime, created);
    return count === 0
      ? "podrun: interrupted; this run had created no container"
      : `podrun: interrupted; removed the ${plural(count, "container")} this run created`;
  } catch (error) {
    return `podrun: interrupted; could not remove everything this run created: ${errorFirstLine(error)}`;
  }
}

/** Ctrl-C during `--wait` with --rm-on-interrupt: the whole pod, kept containers included. */
export async function removeInterruptedPod(
  runtime: ContainerRuntime,
  options: { pod: Pod; identity: PodIdentity; started: StartedPod; stateDir: string },
): Promise<string> {
  const { identity, started } = options;
  const label = `pod/${identity.name}`;
  try {
    // Kept containers too (`up` of a pod that was already there): they are in `containers` only.
    const containerIds = [...new Set([...started.containerIds, ...started.containers.map((c) => c.id)])];
    const volumes = planPodVolumes(options.pod.spec!, identity).map((volume) => volume.name);
    const podDir = podDirectory(options.stateDir, runtime.name, identity);
    await undoStart(runtime, {
      sandbox: started.sandboxId !== undefined ? sandboxRuntimeName(identity) : undefined,
      containerIds,
      volumes,
      podDir,
    });
    return `podrun: interrupted; removed ${label} (--rm-on-interrupt)`;
  } catch (error) {
    return `podrun: interrupted; could not remove everything of ${label}: ${errorFirstLine(error)}`;
  }
}

const countCreated = (created: CreatedByRun): number => created.containerIds.length + (created.sandbox ? 1 : 0);
