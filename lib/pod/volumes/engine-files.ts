import { createHash } from "node:crypto";
import { access, lstat, readdir, readFile, readlink, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { PodrunError } from "../../errors.js";
import type { ContainerRuntime, HelperMount } from "../../runtime/types.js";
import type { PodIdentity } from "../identity.js";
import { writeTar, type TarEntry } from "./tar.js";
import { EMPTY_DIR_MODE, fsGroupMode } from "./volume-ownership.js";
import { volumeLabels, type PodVolume } from "./volume-plan.js";

// A pod's files on an engine that does not see this host's disk (a remote engine, or a VM that
// does not share podrun's state directory: runtime.files is set then). podrun still writes them in
// the pod directory here (pod-dir.ts), as on a local engine; then it copies them into an engine
// volume of the pod, `<namespace>_<pod>_podrun.files`, laid out as the pod directory is
// (`volumes/<volume>/…`, `etc-hosts`, `resolv.conf`, `containers/<name>/termination-log`), and the
// containers bind-mount the same paths inside that volume's directory on the engine's host
// (mount-sources.ts maps them). The copy is one `run --rm -i` of the Service proxy's image, which
// reads a tar archive of the files on stdin (images/service-proxy/files.go): a volume's new
// timestamped directory, then its `..data` link swapped by rename, as the kubelet's atomic writer
// does, so a kept pod's ConfigMap update is seen in place; files are rewritten in place (a bind
// mount of one file, /etc/hosts, holds its inode). The same run sets up the pod's emptyDir volumes
// (mode 0777, the fsGroup's group), which podrun cannot reach on that host either.
//
// A Secret's files rest in that volume, under the engine's own data directory (root's, 0700 or
// 0710 on docker and podman), as they rest in the 0700 pod directory here; `down` removes both.

/** Where the helper mounts the pod's files volume, and each emptyDir volume (`/empty/<volume>`). */
const FILES_ROOT = "files";
const EMPTY_ROOT = "empty";

/** The engine volume holding the pod's files: `.` cannot be in a Kubernetes volume name, so no emptyDir takes it. */
export function filesVolumeName(pod: Pick<PodIdentity, "name" | "namespace">): string {
  return `${pod.namespace}_${pod.name}_podrun.files`;
}

/** The files volume of a pod directory (`…/<namespace>_<pod>`). */
export function filesVolumeOfPodDir(podDir: string): string {
  return `${basename(podDir)}_podrun.files`;
}

export function filesVolumeLabels(pod: PodIdentity): Record<string, string> {
  return volumeLabels(pod, "podrun.files");
}

/**
 * Whether the pod's files are copied through the engine: where it does not see them, and where
 * it sees them but podrun cannot give them the pod's fsGroup (podrun not root: its chown to
 * another group fails) while the engine can (a rootful engine's root; a rootless one's, inside
 * its user namespace). Undefined `files`: the engine was not asked, its files are bind-mounted.
 */
export function copiesPodFiles(
  files: { shared: boolean } | undefined,
  fsGroup: number | undefined,
  uid: number | undefined = process.getuid?.(),
): boolean {
  if (!files) return false;
  return !files.shared || (fsGroup !== undefined && uid !== undefined && uid !== 0);
}

/**
 * Whether a file the pod's containers wrote in an engine volume (an env file in an emptyDir) is read
 * through the engine: where it does not see this host's files, and where podrun is not root (a
 * rootful engine's volumes are root's alone).
 */
export function readsThroughEngine(
  files: { shared: boolean } | undefined,
  uid: number | undefined = process.getuid?.(),
): boolean {
  if (!files) return false;
  return !files.shared || (uid !== undefined && uid !== 0);
}

/** Whether the pod's files were copied to the engine: its directory keeps the copy's hash (copyToEngine). */
export function wasCopied(podDir: string): Promise<boolean> {
  return access(join(podDir, ENGINE_COPY_HASH_FILE)).then(
    () => true,
    () => false,
  );
}

/** What podrun writes in the pod directory and copies: the volumes' files and the /etc files. */
export const COPIED_PATHS = ["volumes", "etc-hosts", "resolv.conf"] as const;

/**
 * The archive's entries for `paths` of the pod directory, as they are on disk: names under
 * `files/`, directories before what they hold, in name order (a volume's `..<timestamp>`
 * directory before its `..data` link, which sorts after it, and the keys' links after both). The
 * owner is root; the group of what is under `volumes/` is the pod's fsGroup, when it has one.
 */
export async function collectPodFiles(
  podDir: string,
  paths: readonly string[],
  fsGroup: number | undefined,
): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  const visit = async (relative: string): Promise<void> => {
    const path = join(podDir, relative);
    const info = await lstat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (!info) return;
    // The volumes' files are the fsGroup's (volume-ownership.ts), whatever podrun could give them here.
    const owner = { uid: 0, gid: fsGroup !== undefined && relative.startsWith("volumes/") ? fsGroup : 0 };
    const name = `${FILES_ROOT}/${relative}`;
    const mode = info.mode & 0o7777;
    if (info.isSymbolicLink()) {
      entries.push({ name, type: "symlink", mode: 0o777, ...owner, linkname: await readlink(path) });
    } else if (info.isDirectory()) {
      entries.push({ name, type: "directory", mode, ...owner });
      for (const child of (await readdir(path)).sort()) await visit(`${relative}/${child}`);
    } else if (info.isFile()) {
      entries.push({ name, type: "file", mode, ...owner, content: await readFile(path) });
    }
  };
  for (const path of paths) await visit(path);
  return entries;
}

/** Empty termination files for the containers that get one (termination-log.ts makes them here the same way). */
export function terminationLogEntries(containers: readonly string[]): TarEntry[] {
  if (containers.length === 0) return [];
  return [
    { name: `${FILES_ROOT}/containers`, type: "directory", mode: 0o750, uid: 0, gid: 0 },
    ...containers.flatMap((name): TarEntry[] => [
      { name: `${FILES_ROOT}/containers/${name}`, type: "directory", mode: 0o750, uid: 0, gid: 0 },
      {
        name: `${FILES_ROOT}/containers/${name}/termination-log`,
        type: "file",
        mode: 0o666,
        uid: 0,
        gid: 0,
        content: Buffer.alloc(0),
      },
    ]),
  ];
}

/** The emptyDir volumes' roots as the kubelet sets them up (empty-dir-setup.ts): 0777, or the fsGroup's. */
export function emptyDirEntries(volumes: readonly PodVolume[], fsGroup: number | undefined): TarEntry[] {
  return volumes.map((volume) => ({
    name: `${EMPTY_ROOT}/${volume.volume}`,
    type: "directory",
    mode: fsGroup === undefined ? EMPTY_DIR_MODE : fsGroupMode(EMPTY_DIR_MODE, { directory: true, readOnly: false }),
    uid: 0,
    gid: fsGroup ?? 0,
  }));
}

export interface EngineFilesCopy {
  pod: Pick<PodIdentity, "name" | "namespace">;
  entries: readonly TarEntry[];
  /** Paths of the pod directory whose copies hold only what the entries name (the rest is removed). */
  owned?: readonly string[];
  /** The emptyDir volumes the entries set up. */
  emptyDirs?: readonly PodVolume[];
  /** A file of the pod directory holding the last copy's hash. */
  hashFile?: string;
  /** No copy when the hash file holds this one's hash (a kept pod whose files did not change). */
  skipUnchanged?: boolean;
}

/** The pod directory's file holding the hash of the last copy (copyToEngine). */
export const ENGINE_COPY_HASH_FILE = "engine-files.sha256";

/**
 * Copies the entries into the pod's files volume (and emptyDir volumes) through the engine;
 * resolves with the chowns and chmods the engine could not make ("chown …: operation not permitted").
 */
export async function copyToEngine(
  runtime: Pick<ContainerRuntime, "runFilesHelper">,
  copy: EngineFilesCopy,
): Promise<string[]> {
  if (copy.entries.length === 0) return [];
  const archive = writeTar(copy.entries);
  const hash = createHash("sha256")
    .update(archive)
    .update(JSON.stringify(copy.owned ?? []))
    .digest("hex");
  if (copy.skipUnchanged && copy.hashFile && (await readFile(copy.hashFile, "utf8").catch(() => "")) === hash)
    return [];
  const mounts: HelperMount[] = [
    { type: "volume", source: filesVolumeName(copy.pod), target: `/${FILES_ROOT}` },
    ...(copy.emptyDirs ?? []).map((volume): HelperMount => ({
      type: "volume",
      source: volume.name,
      target: `/${EMPTY_ROOT}/${volume.volume}`,
    })),
  ];
  const owned = (copy.owned ?? []).map((path) => `${FILES_ROOT}/${path}`);
  const { stderr } = await runtime.runFilesHelper(["-files", "/", ...owned], { mounts, input: archive });
  if (copy.hashFile) await writeFile(copy.hashFile, hash, { mode: 0o600 });
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("warning: "))
    .map((line) => line.slice("warning: ".length));
}

/** Files of the pod's files volume (paths relative to it), read through the engine; a missing one is left out. */
export async function readFromEngine(
  runtime: Pick<ContainerRuntime, "runFilesHelper">,
  volume: string,
  paths: readonly string[],
): Promise<Map<string, Buffer>> {
  const mounts: HelperMount[] = [{ type: "volume", source: volume, target: `/${FILES_ROOT}`, readOnly: true }];
  const { stdout } = await runtime.runFilesHelper(["-read", ...paths.map((path) => `/${FILES_ROOT}/${path}`)], {
    mounts,
  });
  const found = JSON.parse(stdout || "{}") as Record<string, string>;
  return new Map(
    paths.flatMap((path) => {
      const content = found[`/${FILES_ROOT}/${path}`];
      return content === undefined ? [] : [[path, Buffer.from(content, "base64")] as const];
    }),
  );
}

/**
 * A subPath directory in an engine volume (an emptyDir's), made on the engine's host as the
 * kubelet makes it (mount-sources.ts does it here for a local engine); its refusal throws
 * CreateContainerConfigError with the kubelet's words.
 */
export async function makeSubPathOnEngine(
  runtime: Pick<ContainerRuntime, "runFilesHelper">,
  volume: string,
  subPath: string,
): Promise<void> {
  const mounts: HelperMount[] = [{ type: "volume", source: volume, target: "/volume" }];
  await runtime.runFilesHelper(["-subpath", "/volume", subPath], { mounts }).catch((error: Error) => {
    throw new PodrunError("CreateContainerConfigError", `subPath ${subPath} of volume ${volume}: ${error.message}`, {
      cause: error,
    });
  });
}
