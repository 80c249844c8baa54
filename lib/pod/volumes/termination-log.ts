import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Container } from "kubernetes-types/core/v1.js";
import type { VolumeMount } from "../../runtime/types.js";
import type { PodIdentity } from "../identity.js";
import { planTerminationLog, terminationLogFile } from "../termination-message.js";
import { ensurePodDirectory, podDirectory } from "./pod-dir.js";

// The host side of a container's termination message (the kubelet's makeMounts): an empty file
// made anew for each container podrun creates, `<podDir>/containers/<name>/termination-log`, and
// bind-mounted read-write at its terminationMessagePath. A bind works on a read-only root file
// system too. The file is 0666, as the kubelet makes it, so that a container running as any user
// can write it; the pod directory above it stays 0700 (the container never walks through it).
// The kubelet names each file at random and finds it again in the container's mounts; podrun
// names it by container, so `ps` finds it without asking the engine for mounts. A container the
// engine restarts keeps its file (the kubelet gives each restart a new one): a message written by
// an earlier run stays until a later run writes its own.

/**
 * The pod directory the termination files go in: the one the volumes already made, else
 * `<stateDir>/pods/…`, created now (not in a dry run). Undefined without a state directory.
 */
export async function choosePodDirectory(options: {
  podDir?: string;
  stateDir?: string;
  engine: string;
  identity: Pick<PodIdentity, "name" | "namespace">;
  dryRun: boolean;
}): Promise<string | undefined> {
  if (options.podDir !== undefined || options.stateDir === undefined) return options.podDir;
  if (options.dryRun) return podDirectory(options.stateDir, options.engine, options.identity);
  return ensurePodDirectory(options.stateDir, options.engine, options.identity);
}

/**
 * `mounts` with the container's termination file mounted at its path, the file made empty first
 * (`touchDisk`). When the path gets no file (termination-message.ts planTerminationLog), an old
 * file is removed: `ps` must not read another container's message. As in the kubelet, a file that
 * cannot be made means no mount, not a failed container.
 */
export async function withTerminationLog(
  mounts: readonly VolumeMount[],
  container: Pick<Container, "name" | "terminationMessagePath">,
  context: { podDir?: string; touchDisk: boolean },
): Promise<VolumeMount[]> {
  if (context.podDir === undefined) return [...mounts];
  const file = terminationLogFile(context.podDir, container.name);
  const target = planTerminationLog(
    container,
    mounts.map((mount) => mount.target),
  );
  if (target === undefined) {
    // Best effort: an old file left behind is not mounted, and goes with the pod directory.
    if (context.touchDisk) await rm(file, { force: true }).catch(() => undefined);
    return [...mounts];
  }
  if (context.touchDisk) {
    try {
      await mkdir(join(context.podDir, "containers", container.name), { recursive: true, mode: 0o750 });
      // A new file, not the old one emptied: a removed container may still hold the old one open.
      await rm(file, { force: true });
      await writeFile(file, "", { mode: 0o666 });
      await chmod(file, 0o666); // writeFile's mode went through the umask
    } catch {
      // As the kubelet's makeMounts: a termination log it cannot make leaves the container without one.
      return [...mounts];
    }
  }
  return [...mounts, { volume: "termination-log", target, readOnly: false, source: file }];
}
