import type { Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import { describeError } from "../../runtime/engine-error.js";
import type { ContainerRuntime } from "../../runtime/types.js";
import { preparePodEtcFiles } from "../etc/etc-files.js";
import type { PodIdentity } from "../identity.js";
import type { ClusterNetwork } from "../cluster-network.js";
import type { PodObjects } from "../../manifest/pod-objects.js";
import { ensureClaimVolumes } from "../volumes/claim-volumes.js";
import { setUpEmptyDirs } from "../volumes/empty-dir-setup.js";
import type { MountSourceContext } from "../volumes/mount-sources.js";
import { prepareVolumes } from "../volumes/prepare-volumes.js";
import { choosePodDirectory } from "../volumes/termination-log.js";
import { planPodVolumes } from "../volumes/volume-plan.js";
import { writePodRecord } from "../pod-record.js";
import type { PodMounts } from "./start-container.js";
import type { StartPlan } from "./start-plan.js";
import type { UndoLog } from "./undo-log.js";

// What a pod's containers mount, made before any of them: claims, the volumes' files, the pod
// directory, /etc/hosts and resolv.conf (prepareDisk), then the emptyDir volumes, while the
// sandbox starts (createEmptyDirs).

type DiskDeps = { runtime: ContainerRuntime; recorder: Pick<EventRecorder, "event"> };

export interface DiskOptions {
  pod: Pod;
  identity: PodIdentity;
  objects: PodObjects;
  /** podrun's state directory: the files of configMap, secret, downwardAPI and projected volumes go under it. */
  stateDir?: string | undefined;
  /** The network the pod joins: its DNS is the pod's (resolv.conf). */
  cluster?: ClusterNetwork | undefined;
}

/** The pod with the run's UID in its metadata, as the API server would hold it. */
function withUid(pod: Pod, identity: PodIdentity): Pod {
  return { ...pod, metadata: { ...pod.metadata, uid: identity.uid } };
}

/** hostPath checks and the volumes' files: a failure here leaves nothing behind. */
export async function prepareDisk(
  deps: DiskDeps,
  plan: Pick<StartPlan, "volumes" | "dryRun">,
  options: DiskOptions,
  undo: UndoLog,
): Promise<Omit<PodMounts, "ready">> {
  const { pod, identity, objects, stateDir } = options;
  const { dryRun } = plan;
  const engine = deps.runtime.name;
  const kept = plan.volumes === "keep";
  await ensureClaimVolumes(deps, { pod, identity, objects, dryRun });
  const volumes = await prepareVolumes(deps.recorder, { pod, identity, objects, stateDir, engine, dryRun, kept });
  // Every container's termination message file goes there too (termination-log.ts).
  const podDir = await choosePodDirectory({ podDir: volumes.podDir, stateDir, engine, identity, dryRun });
  // A kept pod's directory is in use by its kept containers: a failure now must not remove it.
  if (podDir !== undefined && !kept && !dryRun) undo.podDirectory(podDir);
  // The pod's /etc/hosts and resolv.conf (lib/pod/etc/etc-files.ts), in the same directory.
  const etcFiles =
    stateDir === undefined
      ? undefined
      : await preparePodEtcFiles(deps.recorder, {
          pod,
          identity,
          stateDir,
          engine,
          kept,
          dryRun,
          cluster: options.cluster,
        });
  // The pod as run, for exec and wait (pod-record.ts): once its other files are written.
  if (podDir !== undefined && !dryRun) await writePodRecord(podDir, withUid(pod, identity));
  const mountpoints = new Map<string, Promise<string>>();
  const sources: MountSourceContext = {
    podDir,
    mountpoint: (name) => {
      let found = mountpoints.get(name);
      if (!found) mountpoints.set(name, (found = deps.runtime.inspectVolumeMountpoint(name)));
      return found;
    },
    touchDisk: !dryRun,
  };
  return { sources, ...(etcFiles ? { etcFiles } : {}) };
}

/**
 * The pod's emptyDir volumes, empty as the kubelet makes them: one left by a run that was killed
 * (the pod itself is gone: `up` removes a pod it recreates, volumes included, before this) is
 * removed first, since docker would hand it back with its files and podman would refuse the name.
 */
export async function createEmptyDirs(
  deps: DiskDeps,
  options: { pod: Pod; identity: PodIdentity; sources: MountSourceContext },
  undo: UndoLog,
): Promise<void> {
  const { pod, identity, sources } = options;
  const volumes = planPodVolumes(pod.spec!, identity);
  if (volumes.length > 0) {
    const names = volumes.map((v) => v.name);
    undo.volumes(names);
    const failed =
      (volume: string) =>
      (error: unknown): never => {
        const message = `MountVolume.SetUp failed for volume "${volume}" : ${describeError(error)}`;
        deps.recorder.event(toInvolvedObject(identity), "Warning", "FailedMount", message);
        throw new PodrunError("FailedMount", message, { cause: error });
      };
    await deps.runtime.removeVolumes(names).catch(failed(volumes[0]!.volume));
    await Promise.all(
      volumes.map((v) =>
        deps.runtime
          .createVolume(v.name, v.labels, v.group !== undefined ? { group: v.group } : undefined)
          .catch(failed(v.volume)),
      ),
    );
  }
  await setUpEmptyDirs({
    spec: pod.spec!,
    identity,
    engine: deps.runtime,
    mountpoint: sources.mountpoint,
    touchDisk: sources.touchDisk,
    recorder: deps.recorder,
  });
}
