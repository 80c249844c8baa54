import { chmod, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Pod, Volume } from "kubernetes-types/core/v1.js";
import { errorMessage, PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import { writeAtomically, type Payload } from "./atomic-writer.js";
import { readNodeCapacity, readNodeName, type NodeCapacity } from "../spec/field-ref.js";
import { prepareHostPath } from "./host-path.js";
import type { PodIdentity } from "../identity.js";
import { ensurePodDirectory, podDirectory, removePodDirectory, volumeDirectory } from "./pod-dir.js";
import type { PodObjects } from "../../manifest/pod-objects.js";
import { isFileVolume, planVolumeFiles } from "./volume-files.js";
import {
  describeOwnershipFailures,
  fsGroupMode,
  OWNERSHIP_WARNING_REASON,
  setVolumeOwnership,
} from "./volume-ownership.js";

// The kubelet's volume manager before the pod's first container (WaitForAttachAndMount): every
// volume of the pod is set up, mounted by a container or not, or the pod goes no further. Here:
// hostPath type checks, and the files of configMap, secret, downwardAPI and projected volumes
// written in the pod directory. Every file's content is computed before anything is written, so a
// missing ConfigMap leaves nothing behind; a failure is a FailedMount event
// (`MountVolume.SetUp failed for volume "x" : …`) and a PodrunError of that reason.

export interface PrepareVolumesOptions {
  pod: Pod;
  identity: PodIdentity;
  objects: PodObjects;
  /** podrun's state directory: the pod directory goes under it. */
  stateDir?: string;
  /** The engine's name (docker, podman, nerdctl): each has its own pod directories. */
  engine: string;
  /** Compute and check, write nothing (and create no hostPath). */
  dryRun?: boolean;
  /**
   * The pod runs already (up of a kept pod): its files are rewritten in place, as the kubelet
   * updates configMap and secret volumes, and its directory is not removed on failure.
   */
  kept?: boolean;
  /** The files are copied to the engine, which gives them the fsGroup's group (engine-files.ts): a chown here that fails is not reported. */
  ownershipByEngine?: boolean;
}

/** Sets up the pod's volumes; resolves with the pod directory when it has file volumes. */
export async function prepareVolumes(
  recorder: Pick<EventRecorder, "event">,
  options: PrepareVolumesOptions,
): Promise<{ podDir?: string }> {
  const { pod, identity } = options;
  const volumes = pod.spec!.volumes ?? [];
  const fileVolumes = volumes.filter(isFileVolume);
  const failed = (volume: Volume, error: unknown): never => {
    const message = `MountVolume.SetUp failed for volume "${volume.name}" : ${errorMessage(error)}`;
    recorder.event(toInvolvedObject(identity), "Warning", "FailedMount", message);
    throw new PodrunError("FailedMount", message, { cause: error });
  };

  let node: NodeCapacity | undefined;
  const context = {
    pod,
    identity,
    objects: options.objects,
    nodeName: readNodeName(pod),
    nodeCapacity: () => (node ??= readNodeCapacity()),
  };
  const payloads = new Map<string, Payload>();
  for (const volume of fileVolumes) {
    try {
      payloads.set(volume.name, planVolumeFiles(volume, context));
    } catch (error) {
      failed(volume, error);
    }
  }
  for (const volume of volumes) {
    if (!volume.hostPath) continue;
    await prepareHostPath(volume.hostPath.path, volume.hostPath.type, { create: options.dryRun !== true }).catch(
      (error: unknown) => failed(volume, error),
    );
  }
  if (fileVolumes.length === 0) return {};
  if (options.stateDir === undefined)
    return failed(fileVolumes[0]!, new Error("podrun has no state directory to write the volume's files in"));
  const podDir = podDirectory(options.stateDir, options.engine, identity);
  if (options.dryRun) return { podDir };

  // A new pod starts from nothing: what a run that was killed left there is not its.
  if (!options.kept) await removePodDirectory(podDir);
  try {
    await ensurePodDirectory(options.stateDir, options.engine, identity);
    await mkdir(join(podDir, "volumes"), { recursive: true, mode: 0o750 });
    for (const volume of fileVolumes) {
      const dir = volumeDirectory(podDir, volume.name);
      try {
        await mkdir(dir, { recursive: true });
        // As the emptyDir the kubelet writes these volumes in: the container sees a 0777 root.
        await chmod(dir, 0o777);
        await writeAtomically(dir, payloads.get(volume.name)!, fsGroupSetPerms(recorder, options, volume.name, dir));
      } catch (error) {
        failed(volume, error);
      }
    }
  } catch (error) {
    // The volume's failure is the one reported; a directory left behind is removed by `down`.
    if (!options.kept) await removePodDirectory(podDir).catch(() => undefined);
    throw error;
  }
  return { podDir };
}

/** With a pod fsGroup, the kubelet's setPerms hook: the whole volume directory, read-only kind. */
function fsGroupSetPerms(
  recorder: Pick<EventRecorder, "event">,
  options: PrepareVolumesOptions,
  volume: string,
  dir: string,
): Parameters<typeof writeAtomically>[2] {
  const fsGroup = options.pod.spec!.securityContext?.fsGroup;
  if (fsGroup === undefined) return {};
  return {
    setPerms: async () => {
      const failures = (await setVolumeOwnership(dir, fsGroup, { readOnly: true })).filter(
        (failure) => !(options.ownershipByEngine && failure.operation === "chown"),
      );
      if (failures.length > 0)
        recorder.event(
          toInvolvedObject(options.identity),
          "Warning",
          OWNERSHIP_WARNING_REASON,
          describeOwnershipFailures(volume, fsGroup, failures),
        );
    },
    fileMode: (mode) => fsGroupMode(mode, { directory: false, readOnly: true }),
  };
}
