import { chmod, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { PodIdentity } from "../identity.js";

// A pod's directory under podrun's state directory: `<stateDir>/pods/<engine>/<namespace>_<pod>/`,
// holding `volumes/<volume>/` for each configMap, secret, downwardAPI and projected volume (the
// kubelet's /var/lib/kubelet/pods/<uid>/volumes/…), and the pod's `etc-hosts` and `resolv.conf`
// (lib/pod/etc/etc-files.ts). Named by namespace and pod name, never by UID,
// so that `down POD` (which has no manifest, and may find no container) can still remove it; and by
// engine, since the same pod may run on docker and podman at once, each its own. Neither a
// namespace (a DNS label) nor a pod name (a DNS subdomain) can hold `_`: the name splits back.
//
// `pods/` and each pod directory are 0700 whatever the state directory is: a Secret's files
// (mode 0644 by default, as on a node) must not be readable by other users of the host, and no
// one can reach a file under a directory they cannot search. Containers still read them: the
// engine resolves a bind mount's source as root (or as this user, for rootless podman, whose
// containers' root is this user), and inside the container the path starts at the volume
// directory, so the 0700 directories above it are never searched from within.

/** `<stateDir>/pods`. */
export function podsDirectory(stateDir: string): string {
  return join(stateDir, "pods");
}

/** `<stateDir>/pods/<engine>/<namespace>_<pod>`. */
export function podDirectory(stateDir: string, engine: string, pod: Pick<PodIdentity, "name" | "namespace">): string {
  return join(podsDirectory(stateDir), engine, `${pod.namespace}_${pod.name}`);
}

/** `<podDir>/volumes/<volume>`: the directory a file volume is written to and bind-mounted from. */
export function volumeDirectory(podDir: string, volume: string): string {
  return join(podDir, "volumes", volume);
}

/** Creates the pod directory (and the ones above it under the state directory), private to the user. */
export async function ensurePodDirectory(
  stateDir: string,
  engine: string,
  pod: Pick<PodIdentity, "name" | "namespace">,
): Promise<string> {
  const path = podDirectory(stateDir, engine, pod);
  // An existing one keeps no looser mode than this either (a copy, a restore from a backup…).
  for (const dir of [podsDirectory(stateDir), join(podsDirectory(stateDir), engine), path]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  }
  return path;
}

/** Removes a pod directory and everything in it; a missing one is success. */
export async function removePodDirectory(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}

/** The pods that have a directory: `--all` of `down` also removes what a killed run left. */
export async function listPodDirectories(
  stateDir: string,
  engine: string,
): Promise<{ name: string; namespace: string }[]> {
  // No pods directory for this engine: no pod has a directory to remove.
  const entries = await readdir(join(podsDirectory(stateDir), engine), { withFileTypes: true }).catch(() => []);
  return entries.flatMap((entry) => {
    const at = entry.name.indexOf("_");
    if (!entry.isDirectory() || at <= 0 || at === entry.name.length - 1) return [];
    return [{ namespace: entry.name.slice(0, at), name: entry.name.slice(at + 1) }];
  });
}
