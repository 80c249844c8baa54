import { createHash } from "node:crypto";
import { posix } from "node:path";
import type { Container, PodSpec, Volume, VolumeMount as VolumeMountSpec } from "kubernetes-types/core/v1.js";
import {
  LABEL_MANAGED,
  LABEL_POD_NAME,
  LABEL_POD_NAMESPACE,
  LABEL_POD_UID,
  LABEL_VOLUME,
  type VolumeMount,
} from "../../runtime/types.js";
import { parseQuantityBytes } from "../../resources/quantity.js";
import type { PodIdentity } from "../identity.js";
import { readNodeCapacity, readNodeName } from "../spec/field-ref.js";
import { isFileVolume, planVolumeFiles, type VolumeFilesContext } from "./volume-files.js";
import { claimVolumeName } from "./claim-volumes.js";
import { fileKeyRefsOf } from "../spec/env-file.js";
import { errorMessage } from "../../errors.js";

export { parseQuantityBytes };

// A pod's volumes and each container's mounts as the engines can give them (pure). The kubelet
// makes an emptyDir once per pod, empty, shared by every container that mounts it, and removes it
// with the pod:
// - medium "" → an engine named volume `<namespace>_<pod>_<volume>`, labelled like the pod's
//   containers, created before the sandbox and removed by `down` (found by its labels);
// - medium "Memory" mounted once in the whole pod → a tmpfs of that container (sizeLimit as its
//   size): nothing to share, nothing to remove. Mounted more than once (or by subPath), a tmpfs
//   cannot serve (each mount would be a separate one), so it becomes an engine volume on disk, and validation
//   warns (support.ts). Memory-backed engine volumes (`--opt type=tmpfs`) would lose their data
//   between an init container's exit and the app's start: the engines unmount them when unused.
// configMap, secret, downwardAPI and projected volumes are files podrun writes in the pod
// directory (volume-files.ts, start-pod.ts), bind-mounted read-only; a hostPath is bind-mounted
// after the kubelet's type check (host-path.ts); a subPath of any of them, or of an emptyDir's
// engine volume, is a bind of that path inside the volume's directory (mount-sources.ts).
// Other volume types are not honoured: mounts of them are left out, and validation warns.

/** An engine volume to create for the pod. */
export interface PodVolume {
  /** Runtime name: `<namespace>_<pod>_<volume>`. */
  name: string;
  /** The Kubernetes volume name. */
  volume: string;
  labels: Record<string, string>;
  /** The pod's fsGroup, for an engine that would otherwise give the volume to the container's user (Dialect.volumeGroupOption). */
  group?: number;
}

export function volumeRuntimeName(pod: Pick<PodIdentity, "name" | "namespace">, volume: string): string {
  return `${pod.namespace}_${pod.name}_${volume}`;
}

/** The pod's three labels, podrun's marker, and the volume's own name. */
export function volumeLabels(pod: PodIdentity, volume: string): Record<string, string> {
  return {
    [LABEL_POD_NAME]: pod.name,
    [LABEL_POD_NAMESPACE]: pod.namespace,
    [LABEL_POD_UID]: pod.uid,
    [LABEL_MANAGED]: "true",
    [LABEL_VOLUME]: volume,
  };
}

/** The engine volumes the pod needs: its emptyDirs that some container mounts, except single-mount Memory ones. */
export function planPodVolumes(spec: PodSpec, pod: PodIdentity): PodVolume[] {
  const mounts = countVolumeMounts(spec);
  const fsGroup = spec.securityContext?.fsGroup;
  return (spec.volumes ?? [])
    .filter(
      (volume) =>
        volume.emptyDir !== undefined && (mounts.get(volume.name) ?? 0) > 0 && !isOwnTmpfs(spec, volume.name, mounts),
    )
    .map((volume) => ({
      name: volumeRuntimeName(pod, volume.name),
      volume: volume.name,
      labels: volumeLabels(pod, volume.name),
      ...(fsGroup !== undefined ? { group: fsGroup } : {}),
    }));
}

/**
 * The container's volumeMounts, in manifest order, as planned (pure: the same on every run, so
 * that it can go into the spec hash). A bind's host path is resolved just before create
 * (mount-sources.ts). Mounts of volume types podrun does not honour are left out (validation warns).
 * configMap, secret, downwardAPI and projected volumes are always read-only, as the kubelet mounts them.
 */
export function planContainerMounts(
  spec: PodSpec,
  pod: Pick<PodIdentity, "name" | "namespace">,
  container: Container,
  content?: SubPathContent,
): VolumeMount[] {
  const mounts = countVolumeMounts(spec);
  const volumes = new Map((spec.volumes ?? []).map((v) => [v.name, v]));
  return (container.volumeMounts ?? []).flatMap((mount): VolumeMount[] => {
    const volume = volumes.get(mount.name);
    if (!volume) return [];
    const readOnly = mount.readOnly === true;
    const subPath = mount.subPathExpr
      ? { subPath: mount.subPathExpr, expand: true }
      : mount.subPath
        ? { subPath: mount.subPath }
        : {};
    const propagation = bindPropagation(mount);
    if (isFileVolume(volume)) {
      // A subPath mount keeps the file it was made with (the kubelet's too): the content counts in
      // the spec hash, so that `up` recreates the container when it changed. Whole-volume mounts are
      // updated in place instead (prepare-volumes.ts), and their content does not count.
      const digest = hasSubPath(mount) && content ? { contentDigest: digestVolumeFiles(volume, content) } : {};
      return [
        {
          volume: mount.name,
          target: containerMountPath(mount.mountPath),
          readOnly: true,
          bind: { from: "files", ...subPath, ...digest },
          ...propagation,
        },
      ];
    }
    if (volume.hostPath) {
      return [
        {
          volume: mount.name,
          target: containerMountPath(mount.mountPath),
          readOnly,
          bind: { from: "host", path: volume.hostPath.path, ...subPath },
          ...propagation,
        },
      ];
    }
    if (volume.persistentVolumeClaim) {
      // The claim's engine volume (claim-volumes.ts); a read-only claim source makes every mount of it read-only.
      const claim = {
        volume: claimVolumeName(pod.namespace, volume.persistentVolumeClaim.claimName),
        target: containerMountPath(mount.mountPath),
        readOnly: readOnly || volume.persistentVolumeClaim.readOnly === true,
      };
      return hasSubPath(mount) || propagation.propagation
        ? [{ ...claim, bind: { from: "engine-volume", ...subPath }, ...propagation }]
        : [claim];
    }
    const emptyDir = volume.emptyDir;
    if (!emptyDir) return [];
    const base = { volume: volumeRuntimeName(pod, mount.name), target: containerMountPath(mount.mountPath), readOnly };
    if (isOwnTmpfs(spec, mount.name, mounts)) {
      const size = emptyDir.sizeLimit === undefined ? undefined : parseQuantityBytes(emptyDir.sizeLimit);
      const fsGroup = spec.securityContext?.fsGroup;
      return [
        { ...base, tmpfs: true, tmpfsSizeBytes: size, ...(fsGroup !== undefined ? { tmpfsGroup: fsGroup } : {}) },
      ];
    }
    // The engines here have no volume-subpath option: a subPath is a bind of the directory in the
    // volume. So is a mount with propagation: docker takes no propagation on a named volume.
    if (hasSubPath(mount) || propagation.propagation)
      return [{ ...base, bind: { from: "engine-volume", ...subPath }, ...propagation }];
    return [base];
  });
}

// The kubelet's CRI propagation for a volumeMount: HostToContainer a slave of the host's mount,
// Bidirectional shared with it (validation keeps that to privileged containers), None private —
// the engines' default, so nothing is said and such a mount plans exactly as before.
function bindPropagation(mount: VolumeMountSpec): Pick<VolumeMount, "propagation"> {
  if (mount.mountPropagation === "HostToContainer") return { propagation: "rslave" };
  if (mount.mountPropagation === "Bidirectional") return { propagation: "rshared" };
  return {};
}

/**
 * Indexes of [container list, container, mount] whose mountPropagation is lost: a Memory
 * emptyDir mounted once is the container's own tmpfs, which the engines mount private.
 */
export function findTmpfsPropagation(
  spec: Partial<PodSpec>,
): { list: "initContainers" | "containers"; container: number; mount: number }[] {
  const mounts = countVolumeMounts(spec);
  const found: { list: "initContainers" | "containers"; container: number; mount: number }[] = [];
  for (const list of ["initContainers", "containers"] as const) {
    (spec[list] ?? []).forEach((container, containerIndex) => {
      (container.volumeMounts ?? []).forEach((mount, mountIndex) => {
        const propagation = mount.mountPropagation;
        if (
          (propagation === "HostToContainer" || propagation === "Bidirectional") &&
          isOwnTmpfs(spec, mount.name, mounts)
        ) {
          found.push({ list, container: containerIndex, mount: mountIndex });
        }
      });
    });
  }
  return found;
}

/** What a file volume's content is computed from, for the digest of a subPath mount of it. */
export type SubPathContent = Omit<VolumeFilesContext, "nodeCapacity" | "nodeName">;

/** SHA-256 of the volume's files (paths, modes, bytes), or of the reason they cannot be made. */
function digestVolumeFiles(volume: Volume, content: SubPathContent): string {
  const hash = createHash("sha256");
  try {
    // The pod's UID is new on every run until the pod is kept: a fixed marker, or the hash would never match.
    const identity = { ...content.identity, uid: "<pod uid>" };
    const files = planVolumeFiles(volume, {
      ...content,
      identity,
      nodeName: readNodeName(content.pod),
      nodeCapacity: readNodeCapacity,
    });
    for (const path of [...files.keys()].sort()) {
      const file = files.get(path)!;
      hash.update(`${path}\0${file.mode}\0${file.content.length}\0`).update(file.content);
    }
  } catch (error) {
    hash.update(`error\0${errorMessage(error)}`);
  }
  return hash.digest("hex");
}

function hasSubPath(mount: VolumeMountSpec): boolean {
  return Boolean(mount.subPath || mount.subPathExpr);
}

/** How many volumeMounts, across init and app containers, name each volume. */
export function countVolumeMounts(spec: Partial<PodSpec>): Map<string, number> {
  const counts = new Map<string, number>();
  const count = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    for (const mount of container.volumeMounts ?? []) count(mount.name);
    // An env file read from a volume (fileKeyRef) is a use too: the kubelet reads it on the node,
    // so the volume must outlive the init container that wrote it, never be its own tmpfs.
    for (const ref of fileKeyRefsOf(container)) count(ref.volumeName);
  }
  return counts;
}

/**
 * Indexes in spec.volumes of the Memory emptyDirs that are mounted more than once (or by subPath), and so get an
 * engine volume on disk instead of memory (validation names them in a warning).
 */
export function findMemoryVolumesOnDisk(spec: Partial<PodSpec>): number[] {
  const mounts = countVolumeMounts(spec);
  return (spec.volumes ?? []).flatMap((volume, index) =>
    volume.emptyDir?.medium === "Memory" && (mounts.get(volume.name) ?? 0) > 0 && !isOwnTmpfs(spec, volume.name, mounts)
      ? [index]
      : [],
  );
}

// A Memory emptyDir is the container's own tmpfs when one mount in the pod uses it, whole: a
// subPath of it needs a directory on the host to bind, so it becomes an engine volume.
function isOwnTmpfs(spec: Partial<PodSpec>, volume: string, mounts: Map<string, number>): boolean {
  const source = spec.volumes?.find((v) => v.name === volume)?.emptyDir;
  if (source?.medium !== "Memory" || mounts.get(volume) !== 1) return false;
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  return !containers.some((c) => (c.volumeMounts ?? []).some((m) => m.name === volume && hasSubPath(m)));
}

/**
 * Where the kubelet mounts a volumeMount in a Linux container: an absolute mountPath as written,
 * a relative one rooted at `/` and cleaned (`data/` → `/data`, `C:\data` → `/C:\data`), as
 * pkg/volume/util MakeAbsolutePath does. The API server accepts any mountPath.
 */
export function containerMountPath(mountPath: string): string {
  if (mountPath.startsWith("/")) return mountPath;
  const clean = posix.normalize(`/${mountPath}`);
  return clean.length > 1 && clean.endsWith("/") ? clean.slice(0, -1) : clean;
}
