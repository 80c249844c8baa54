import type { Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import { describeError } from "../../runtime/engine-error.js";
import type { ContainerRuntime } from "../../runtime/types.js";
import { HOSTS_FILE, preparePodEtcFiles } from "../etc/etc-files.js";
import { join } from "node:path";
import {
  COPIED_PATHS,
  collectPodFiles,
  copiesPodFiles,
  copyToEngine,
  emptyDirEntries,
  ENGINE_COPY_HASH_FILE,
  filesVolumeLabels,
  filesVolumeName,
  makeSubPathOnEngine,
  terminationLogEntries,
} from "../volumes/engine-files.js";
import { OWNERSHIP_WARNING_REASON } from "../volumes/volume-ownership.js";
import { planTerminationLog } from "../termination-message.js";
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
  // Copied to the engine (engine-files.ts): the fsGroup's group is then given there, not here.
  const copied = copiesPodFiles(deps.runtime.files, pod.spec!.securityContext?.fsGroup);
  await ensureClaimVolumes(deps, { pod, identity, objects, dryRun });
  const volumes = await prepareVolumes(deps.recorder, {
    pod,
    identity,
    objects,
    stateDir,
    engine,
    dryRun,
    kept,
    ownershipByEngine: copied,
  });
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
  const mountpoint = (name: string) => {
    let found = mountpoints.get(name);
    if (!found) mountpoints.set(name, (found = deps.runtime.inspectVolumeMountpoint(name)));
    return found;
  };
  // An engine that does not see this host's files: the pod directory's copy in an engine volume (engine-files.ts).
  const engineDir =
    podDir !== undefined && copied && !dryRun
      ? await makeFilesVolume(deps, { identity, kept, mountpoint }, undo)
      : undefined;
  const sources: MountSourceContext = {
    podDir,
    mountpoint,
    touchDisk: !dryRun,
    ...(engineDir !== undefined
      ? {
          engineDir,
          engineSubPath: (volume: string, subPath: string) => makeSubPathOnEngine(deps.runtime, volume, subPath),
        }
      : {}),
  };
  return { sources, ...(etcFiles ? { etcFiles } : {}) };
}

/** The pod's files volume, made (a new pod's, anew) and found on the engine's host. */
async function makeFilesVolume(
  deps: DiskDeps,
  options: { identity: PodIdentity; kept: boolean; mountpoint: (name: string) => Promise<string> },
  undo: UndoLog,
): Promise<string> {
  const name = filesVolumeName(options.identity);
  const failed = (error: unknown) => failFilesMount(deps, options.identity, error);
  if (!options.kept) {
    undo.volumes([name]);
    await deps.runtime.removeVolumes([name]).catch(failed);
    await deps.runtime.createVolume(name, filesVolumeLabels(options.identity)).catch(failed);
  }
  return options.mountpoint(name).catch(failed);
}

/**
 * Copies the pod directory's files into its files volume through the engine (engine-files.ts),
 * with a new pod's empty termination files and emptyDir set-up; a kept pod's copy is made only
 * when its files changed. Nothing to do for an engine that sees this host's files.
 */
export async function copyFilesToEngine(
  deps: DiskDeps,
  options: { pod: Pod; identity: PodIdentity; sources: MountSourceContext; kept: boolean },
): Promise<void> {
  const { pod, identity, sources } = options;
  if (sources.engineDir === undefined || sources.podDir === undefined) return;
  const spec = pod.spec!;
  const fsGroup = spec.securityContext?.fsGroup;
  const emptyDirs = options.kept ? [] : planPodVolumes(spec, identity);
  const containers = options.kept
    ? []
    : [...(spec.initContainers ?? []), ...spec.containers]
        .filter(
          (c) =>
            planTerminationLog(
              c,
              (c.volumeMounts ?? []).map((m) => m.mountPath),
            ) !== undefined,
        )
        .map((c) => c.name);
  const entries = [
    ...(await collectPodFiles(sources.podDir, COPIED_PATHS, fsGroup)),
    ...terminationLogEntries(containers),
    ...emptyDirEntries(emptyDirs, fsGroup),
  ];
  const failures = await copyToEngine(deps.runtime, {
    pod: identity,
    entries,
    owned: ["volumes"],
    emptyDirs,
    hashFile: join(sources.podDir, ENGINE_COPY_HASH_FILE),
    skipUnchanged: options.kept,
  }).catch((error: unknown) => failFilesMount(deps, identity, error));
  if (failures.length > 0)
    deps.recorder.event(
      toInvolvedObject(identity),
      "Warning",
      OWNERSHIP_WARNING_REASON,
      `the pod's files on ${deps.runtime.name}'s host: ${failures[0]}${failures.length > 1 ? ` (and ${failures.length - 1} more)` : ""}`,
    );
}

/** The pod's files volume could not be made or filled: the kubelet's FailedMount, event and error. */
function failFilesMount(deps: DiskDeps, identity: PodIdentity, error: unknown): never {
  const message = `MountVolume.SetUp failed for the pod's files (${filesVolumeName(identity)}) : ${describeError(error)}`;
  deps.recorder.event(toInvolvedObject(identity), "Warning", "FailedMount", message);
  throw new PodrunError("FailedMount", message, { cause: error });
}

/** The pod's hosts file, completed with its IP here (etc-files.ts), copied again where the engine cannot see it. */
export async function copyHostsFileToEngine(
  deps: DiskDeps,
  options: { identity: PodIdentity; sources: MountSourceContext },
): Promise<void> {
  const { sources } = options;
  if (sources.engineDir === undefined || sources.podDir === undefined) return;
  const entries = await collectPodFiles(sources.podDir, [HOSTS_FILE], undefined);
  await copyToEngine(deps.runtime, { pod: options.identity, entries });
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
    // An engine that does not see this host's files: set up through it, with the files (copyFilesToEngine).
    touchDisk: sources.touchDisk && sources.engineDir === undefined,
    recorder: deps.recorder,
  });
}
