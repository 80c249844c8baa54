import { chmod, stat } from "node:fs/promises";
import type { PodSpec } from "kubernetes-types/core/v1.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import type { ContainerRuntime } from "../../runtime/types.js";
import type { PodIdentity } from "../identity.js";
import { countVolumeMounts, planPodVolumes, type PodVolume } from "./volume-plan.js";
import {
  describeOwnershipFailures,
  describeOwnershipWarning,
  EMPTY_DIR_MODE,
  OWNERSHIP_WARNING_REASON,
  setVolumeOwnership,
} from "./volume-ownership.js";
import { errorFirstLine } from "../../errors.js";

// The kubelet's emptyDir SetUp (pkg/volume/emptydir/empty_dir.go) on the engine volume that
// stands for it: the directory made 0777 (the engines make it 0755, which a container running as
// another user than root cannot write to), then, with a pod fsGroup, given to that group
// (volume-ownership.ts). podrun does it on the volume's directory on the host, found by `volume
// inspect`, right after `volume create`: it needs that directory on this machine (not a remote
// engine's, nor one in a VM) and the right to change it (root, or the user of a rootless engine,
// who may chmod but not chown to another group). What it cannot do is a Warning event naming the
// field, the volume and the engine; the kubelet itself ignores these errors.
// A Memory emptyDir that is a container's own tmpfs gets its group from the mount options
// (create-args.ts), where the engine has them: podman 4.3's `--tmpfs` refuses `gid=`.

export interface EmptyDirSetupOptions {
  spec: PodSpec;
  identity: PodIdentity;
  engine: Pick<ContainerRuntime, "name" | "capabilities">;
  /** The volume's directory on the host (ContainerRuntime.inspectVolumeMountpoint). */
  mountpoint: (runtimeName: string) => Promise<string>;
  /** False in a dry run: no directory is looked at or changed (what the engine cannot do is still said). */
  touchDisk?: boolean;
  recorder: Pick<EventRecorder, "event">;
}

/** Sets up the pod's emptyDir engine volumes (just created) as the kubelet sets up its directories; never throws. */
export async function setUpEmptyDirs(options: EmptyDirSetupOptions): Promise<void> {
  const { spec, identity } = options;
  const engine = options.engine.name;
  const volumes = planPodVolumes(spec, identity);
  const fsGroup = spec.securityContext?.fsGroup;
  const warn = (message: string) =>
    options.recorder.event(toInvolvedObject(identity), "Warning", OWNERSHIP_WARNING_REASON, message);
  for (const volume of options.touchDisk === false ? [] : volumes) {
    const cannot = (cause: string) => {
      if (fsGroup !== undefined)
        warn(describeOwnershipWarning(volume.volume, fsGroup, `${engine} volume ${volume.name}: ${cause}`));
      else
        warn(
          `${emptyDirField(spec, volume.volume)}: volume "${volume.volume}" not made mode 0777 as a kubelet would (a container not running as root may not write to it): ${engine} volume ${volume.name}: ${cause}`,
        );
    };
    let dir: string;
    try {
      dir = await options.mountpoint(volume.name);
    } catch (error) {
      cannot(`no directory found: ${errorFirstLine(error)}`);
      continue;
    }
    const info = await stat(dir).catch((error: NodeJS.ErrnoException) => error);
    if (info instanceof Error) {
      cannot(
        info.code === "ENOENT"
          ? `its directory ${dir} is not on this machine`
          : `stat ${dir}: ${info.code ?? info.message}`,
      );
      continue;
    }
    if ((info.mode & 0o7777) !== EMPTY_DIR_MODE) {
      const failed = await chmod(dir, EMPTY_DIR_MODE).then(
        () => undefined,
        (error: NodeJS.ErrnoException) => error,
      );
      if (failed) {
        cannot(
          `chmod ${dir}: ${failed.code === "EPERM" ? "operation not permitted" : failed.code === "EACCES" ? "permission denied" : failed.message}`,
        );
        continue;
      }
    }
    if (fsGroup === undefined) continue;
    const failures = await setVolumeOwnership(dir, fsGroup, { readOnly: false }).catch((error: Error) => error);
    if (failures instanceof Error) cannot(failures.message);
    else if (failures.length > 0)
      warn(
        describeOwnershipFailures(
          volume.volume,
          fsGroup,
          failures.map((f) => ({ ...f, path: `${f.path} (${engine} volume ${volume.name})` })),
        ),
      );
  }
  if (fsGroup !== undefined && !options.engine.capabilities.tmpfsGroup) {
    for (const name of findOwnTmpfsVolumes(spec, volumes)) {
      warn(
        describeOwnershipWarning(
          name,
          fsGroup,
          `${engine}'s --tmpfs takes no gid option: the tmpfs stays group root (mode 1777)`,
        ),
      );
    }
  }
}

/** The Memory emptyDirs mounted as a container's own tmpfs: mounted, and not given an engine volume. */
function findOwnTmpfsVolumes(spec: PodSpec, engineVolumes: readonly PodVolume[]): string[] {
  const mounts = countVolumeMounts(spec);
  const onDisk = new Set(engineVolumes.map((v) => v.volume));
  return (spec.volumes ?? [])
    .filter((v) => v.emptyDir?.medium === "Memory" && (mounts.get(v.name) ?? 0) > 0 && !onDisk.has(v.name))
    .map((v) => v.name);
}

function emptyDirField(spec: PodSpec, volume: string): string {
  return `spec.volumes[${(spec.volumes ?? []).findIndex((v) => v.name === volume)}].emptyDir`;
}
