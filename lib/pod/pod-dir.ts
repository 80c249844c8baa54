import { chmod, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { PodIdentity } from "./identity.js";

// A pod's directory under podrun's state directory: `<stateDir>/pods/<namespace>_<pod>/`, holding
// `volumes/<volume>/` for each configMap, secret, downwardAPI and projected volume (the kubelet's
// /var/lib/kubelet/pods/<uid>/volumes/…). Named by namespace and pod name, never by UID, so that
// `down POD` (which has no manifest, and may find no container) can still remove it. Neither a
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

/** `<stateDir>/pods/<namespace>_<pod>`. */
export function podDirectory(stateDir: string, pod: Pick<PodIdentity, "name" | "namespace">): string {
  return join(podsDirectory(stateDir), `${pod.namespace}_${pod.name}`);
}

/** `<podDir>/volumes/<volume>`: the directory a file volume is written to and bind-mounted from. */
export function volumeDirectory(podDir: string, volume: string): string {
  return join(podDir, "volumes", volume);
}

/** Creates the pod directory (and `pods/`), private to the user; true when it did not exist before. */
export async function ensurePodDirectory(stateDir: string, pod: Pick<PodIdentity, "name" | "namespace">): Promise<{ path: string; created: boolean }> {
  const pods = podsDirectory(stateDir);
  await mkdir(pods, { recursive: true, mode: 0o700 });
  await chmod(pods, 0o700);
  const path = podDirectory(stateDir, pod);
  const created = (await mkdir(path, { recursive: true, mode: 0o700 })) !== undefined;
  // An existing one keeps no looser mode than this either (a copy, a restore from a backup…).
  await chmod(path, 0o700);
  return { path, created };
}

/** Removes a pod directory and everything in it; a missing one is success. */
export async function removePodDirectory(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}

/** The pods that have a directory: `--all` of `down` also removes what a killed run left. */
export async function listPodDirectories(stateDir: string): Promise<{ name: string; namespace: string }[]> {
  const entries = await readdir(podsDirectory(stateDir), { withFileTypes: true }).catch(() => []);
  return entries.flatMap((entry) => {
    const at = entry.name.indexOf("_");
    if (!entry.isDirectory() || at <= 0 || at === entry.name.length - 1) return [];
    return [{ namespace: entry.name.slice(0, at), name: entry.name.slice(at + 1) }];
  });
}
