import { chmod, lchown, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

// A volume given to the pod's fsGroup, as the kubelet gives it (kubernetes/kubernetes
// pkg/volume/volume_linux.go, VolumeOwnership.ChangePermissions): every entry, deepest first and
// the root last, gets group fsGroup (its owner kept) and group read-write (read-only for the
// volume kinds the kubelet mounts read-only: configMap, secret, downwardAPI, projected);
// directories also get group search and setgid, so that what a container creates later belongs
// to the group too. A symlink's group changes but not its mode (a chmod would reach its target).
// A failed chown or chmod does not stop the walk: the kubelet logs it and goes on; here the
// failures are returned for the caller to name in a Warning.
//
// The kubelet reads fsGroupChangePolicy (OnRootMismatch: skip the walk when the root already
// matches) only for volume types that keep data between pods; emptyDir, configMap, secret,
// downwardAPI and projected pass none, so every set-up walks, and so does podrun.

/** The kubelet's emptyDir directory mode (empty_dir.go setupDir), whatever the umask. */
export const EMPTY_DIR_MODE = 0o777;

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

/** A chown or chmod that failed; the walk went on. */
export interface OwnershipFailure {
  path: string;
  operation: "chown" | "chmod";
  error: NodeJS.ErrnoException;
}

/** The mode the kubelet gives an entry of mode `mode` (permission and special bits). */
export function fsGroupMode(mode: number, options: { directory: boolean; readOnly: boolean }): number {
  let mask = options.readOnly ? RO_MASK : RW_MASK;
  if (options.directory) mask |= SETGID | EXEC_MASK;
  return (mode & 0o7777) | mask;
}

/**
 * Gives `root` and everything under it to group `fsGroup`. Throws when the tree cannot be read
 * (as the kubelet's walk returns that error); resolves with the chowns and chmods that failed.
 */
export async function setVolumeOwnership(
  root: string,
  fsGroup: number,
  options: { readOnly: boolean },
): Promise<OwnershipFailure[]> {
  const failures: OwnershipFailure[] = [];
  const change = async (path: string, info: { mode: number; isDirectory(): boolean; isSymbolicLink(): boolean }) => {
    await lchown(path, -1, fsGroup).catch((error: NodeJS.ErrnoException) =>
      failures.push({ path, operation: "chown", error }),
    );
    if (info.isSymbolicLink()) return;
    const mode = fsGroupMode(info.mode, { directory: info.isDirectory(), readOnly: options.readOnly });
    await chmod(path, mode).catch((error: NodeJS.ErrnoException) => failures.push({ path, operation: "chmod", error }));
  };
  const walk = async (path: string): Promise<void> => {
    const info = await lstat(path);
    if (info.isDirectory()) {
      for (const name of await readdir(path)) await walk(join(path, name));
    }
    await change(path, info);
  };
  await walk(root);
  return failures;
}

/** `chown /x: operation not permitted`: a failure in Go's words, for a Warning. */
export function describeOwnershipFailure(failure: OwnershipFailure): string {
  const texts: Record<string, string> = {
    EPERM: "operation not permitted",
    EACCES: "permission denied",
    EROFS: "read-only file system",
    ENOENT: "no such file or directory",
  };
  const code = failure.error.code;
  return `${failure.operation} ${failure.path}: ${(code && texts[code]) ?? failure.error.message}`;
}

/** The reason of the Warning event when a volume could not be given to fsGroup (podrun's own: a kubelet only logs it). */
export const OWNERSHIP_WARNING_REASON = "FailedVolumeOwnership";

/** The Warning's text: the field, the volume, what failed (the first failure, and how many more). */
export function describeOwnershipWarning(volume: string, fsGroup: number, cause: string, more = 0): string {
  return `spec.securityContext.fsGroup: volume "${volume}" not given to group ${fsGroup} as a kubelet would: ${cause}${more > 0 ? ` (and ${more} more)` : ""}`;
}

/** The Warning's text for failures of setVolumeOwnership. */
export function describeOwnershipFailures(
  volume: string,
  fsGroup: number,
  failures: readonly OwnershipFailure[],
): string {
  return describeOwnershipWarning(volume, fsGroup, describeOwnershipFailure(failures[0]!), failures.length - 1);
}
