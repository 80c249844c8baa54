import { posix } from "node:path";
import type { Container, PodSpec } from "kubernetes-types/core/v1.js";
import { LABEL_MANAGED, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID, LABEL_VOLUME, type VolumeMount } from "../runtime/types.js";
import type { PodIdentity } from "./identity.js";

// emptyDir volumes as the engines can give them (pure). The kubelet makes an emptyDir once per
// pod, empty, shared by every container that mounts it, and removes it with the pod:
// - medium "" → an engine named volume `<namespace>_<pod>_<volume>`, labelled like the pod's
//   containers, created before the sandbox and removed by `down` (found by its labels);
// - medium "Memory" mounted once in the whole pod → a tmpfs of that container (sizeLimit as its
//   size): nothing to share, nothing to remove. Mounted more than once, a tmpfs cannot be shared
//   (each mount would be a separate one), so it becomes an engine volume on disk, and validation
//   warns (support.ts). Memory-backed engine volumes (`--opt type=tmpfs`) would lose their data
//   between an init container's exit and the app's start: the engines unmount them when unused.
// Other volume types are not honoured: mounts of them are left out, and validation warns.

/** An engine volume to create for the pod. */
export interface PodVolume {
  /** Runtime name: `<namespace>_<pod>_<volume>`. */
  name: string;
  /** The Kubernetes volume name. */
  volume: string;
  labels: Record<string, string>;
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
  return (spec.volumes ?? [])
    .filter((volume) => volume.emptyDir !== undefined && (mounts.get(volume.name) ?? 0) > 0 && !isOwnTmpfs(spec, volume.name, mounts))
    .map((volume) => ({ name: volumeRuntimeName(pod, volume.name), volume: volume.name, labels: volumeLabels(pod, volume.name) }));
}

/** The container's mounts of emptyDir volumes, in manifest order (mounts of other volume types are left out). */
export function planContainerMounts(spec: PodSpec, pod: Pick<PodIdentity, "name" | "namespace">, container: Container): VolumeMount[] {
  const mounts = countVolumeMounts(spec);
  const emptyDirs = new Map((spec.volumes ?? []).filter((v) => v.emptyDir !== undefined).map((v) => [v.name, v.emptyDir!]));
  return (container.volumeMounts ?? []).flatMap((mount): VolumeMount[] => {
    const emptyDir = emptyDirs.get(mount.name);
    if (!emptyDir) return [];
    const base = { volume: volumeRuntimeName(pod, mount.name), target: containerMountPath(mount.mountPath), readOnly: mount.readOnly === true };
    if (!isOwnTmpfs(spec, mount.name, mounts)) return [base];
    const size = emptyDir.sizeLimit === undefined ? undefined : parseQuantityBytes(emptyDir.sizeLimit);
    return [{ ...base, tmpfs: true, ...(size !== undefined ? { tmpfsSizeBytes: size } : {}) }];
  });
}

/** How many volumeMounts, across init and app containers, name each volume. */
export function countVolumeMounts(spec: Partial<PodSpec>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    for (const mount of container.volumeMounts ?? []) counts.set(mount.name, (counts.get(mount.name) ?? 0) + 1);
  }
  return counts;
}

/**
 * Indexes in spec.volumes of the Memory emptyDirs that are mounted more than once, and so get an
 * engine volume on disk instead of memory (validation names them in a warning).
 */
export function findMemoryVolumesOnDisk(spec: Partial<PodSpec>): number[] {
  const mounts = countVolumeMounts(spec);
  return (spec.volumes ?? []).flatMap((volume, index) =>
    volume.emptyDir?.medium === "Memory" && (mounts.get(volume.name) ?? 0) > 1 ? [index] : [],
  );
}

function isOwnTmpfs(spec: PodSpec, volume: string, mounts: Map<string, number>): boolean {
  const source = spec.volumes?.find((v) => v.name === volume)?.emptyDir;
  return source?.medium === "Memory" && mounts.get(volume) === 1;
}

const BINARY_SUFFIXES: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL_SUFFIXES: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/**
 * A resource.Quantity in bytes, rounded up as the API server rounds byte quantities; undefined
 * for zero, a negative or unreadable value (the engine's default size then applies).
 */
export function parseQuantityBytes(quantity: string | number): number | undefined {
  const match = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([KMGTPE]i|[numkMGTPE])|[eE]([+-]?\d+))?$/.exec(String(quantity).trim());
  if (!match) return undefined;
  const [, number = "", suffix = "", exponent] = match;
  const multiplier = exponent !== undefined ? 10 ** Number(exponent) : (BINARY_SUFFIXES[suffix] ?? DECIMAL_SUFFIXES[suffix] ?? 1);
  const bytes = Math.ceil(Number(number) * multiplier);
  return Number.isFinite(bytes) && bytes > 0 ? bytes : undefined;
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
