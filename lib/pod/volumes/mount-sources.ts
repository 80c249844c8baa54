import { chmod, mkdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { errorFirstLine, PodrunError } from "../../errors.js";
import type { VolumeMount } from "../../runtime/types.js";
import { expandVars } from "../spec/expand-vars.js";
import { volumeDirectory } from "./pod-dir.js";

// The last step of a bind mount before `create` (the kubelet's makeMounts): the host directory of
// the volume (podrun's pod directory, the hostPath, or an emptyDir engine volume's Mountpoint),
// then the subPath in it. A subPathExpr is expanded with the container's environment first; a
// subPath that is absolute or climbs out with `..` is refused, one that resolves (through
// symlinks a container could have planted) outside the volume is refused, and a missing one is
// made a directory with the volume directory's mode. Errors carry the kubelet's texts and end as
// CreateContainerConfigError, before the container exists.

export interface MountSourceContext {
  /** The pod directory (pod-dir.ts), when the pod has file volumes. */
  podDir?: string;
  /** An engine volume's directory on the host (ContainerRuntime.inspectVolumeMountpoint). */
  mountpoint: (runtimeName: string) => Promise<string>;
  /** False in a dry run: nothing is looked at or made on disk. */
  touchDisk: boolean;
  /**
   * An engine that does not see this host's files: the pod directory's copy on the engine's host
   * (engine-files.ts). Bind sources under podDir are given as paths under it (toEngineSources).
   */
  engineDir?: string;
  /** With engineDir: makes a subPath directory in an engine volume on the engine's host. */
  engineSubPath?: (volume: string, subPath: string) => Promise<void>;
}

/** `mounts` with the sources under the pod directory moved to its copy on the engine's host, where it has one. */
export function toEngineSources(mounts: readonly VolumeMount[], context: MountSourceContext): VolumeMount[] {
  const { podDir, engineDir } = context;
  if (podDir === undefined || engineDir === undefined) return [...mounts];
  return mounts.map((mount) => {
    const source = mount.source;
    if (source === undefined || (source !== podDir && !source.startsWith(`${podDir}/`))) return mount;
    return { ...mount, source: `${engineDir}${source.slice(podDir.length)}` };
  });
}

/** `mounts` with every bind given its `source`; throws PodrunError(CreateContainerConfigError). */
export async function resolveMountSources(
  mounts: readonly VolumeMount[],
  options: { env: readonly { name: string; value: string }[]; container: string; context: MountSourceContext },
): Promise<VolumeMount[]> {
  const { context } = options;
  const resolved: VolumeMount[] = [];
  for (const mount of mounts) {
    const bind = mount.bind;
    if (!bind) {
      resolved.push(mount);
      continue;
    }
    const base = await baseDirectory(mount, context);
    let subPath = bind.subPath ?? "";
    if (subPath !== "" && bind.expand) subPath = expandSubPathExpr(subPath, options.env);
    if (subPath === "") {
      resolved.push({ ...mount, source: base });
      continue;
    }
    if (isAbsolute(subPath)) fail(`error SubPath \`${subPath}\` must not be an absolute path`);
    if (subPath.split(/[\\/]/).includes(".."))
      fail(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
    const source = join(base, subPath);
    // An emptyDir's volume on an engine that does not see this host's files: made there.
    if (context.touchDisk && bind.from === "engine-volume" && context.engineSubPath)
      await context.engineSubPath(mount.volume, subPath);
    else if (context.touchDisk)
      await prepareSubPath({ base, source, subPath, volume: mount.volume, container: options.container });
    resolved.push({ ...mount, source });
  }
  return resolved;
}

/**
 * subPathExpr as the kubelet expands it (ExpandContainerVolumeMounts): `$(VAR)` from the
 * container's environment; a variable that is undefined or empty is an error, not left literal.
 */
export function expandSubPathExpr(expression: string, env: readonly { name: string; value: string }[]): string {
  const values = new Map(env.map((entry) => [entry.name, entry.value]));
  const missing = new Set<string>();
  const expanded = expandVars(expression, (name) => {
    const value = values.get(name);
    if (!value) missing.add(name);
    return value ?? "";
  });
  if (missing.size > 0) fail(`missing value for ${[...missing].sort().join(", ")}`);
  return expanded;
}

async function baseDirectory(mount: VolumeMount, context: MountSourceContext): Promise<string> {
  const bind = mount.bind!;
  if (bind.from === "host") return bind.path ?? "";
  if (bind.from === "engine-volume") {
    try {
      return await context.mountpoint(mount.volume);
    } catch (error) {
      return fail(`volume ${mount.volume}: cannot find its directory on the host: ${errorFirstLine(error)}`, error);
    }
  }
  if (context.podDir === undefined)
    return fail(`volume "${mount.volume}": podrun has no state directory to write its files in`);
  return volumeDirectory(context.podDir, mount.volume);
}

async function prepareSubPath(options: {
  base: string;
  source: string;
  subPath: string;
  volume: string;
  container: string;
}): Promise<void> {
  const { base, source } = options;
  const failed = (error?: unknown): never =>
    fail(
      `failed to create subPath directory for volumeMount "${options.volume}" of container "${options.container}"`,
      error,
    );
  const baseInfo = await stat(base).catch(failed);
  // Made the way the kubelet's SafeMakeDir makes it: each part at a time, none through a symlink
  // that leaves the volume (checked once it exists, below), with the volume directory's mode.
  const realBase = await realpath(base).catch(failed);
  // Not there yet (or not statable): made below, and a mkdir that cannot make it fails with its error.
  if (!(await stat(source).catch(() => undefined))) {
    await mkdir(source, { recursive: true, mode: baseInfo.mode & 0o7777 }).catch(failed);
    await chmod(source, baseInfo.mode & 0o7777).catch(failed); // mkdir's mode went through the umask
  }
  const realSource = await realpath(source).catch(failed);
  if (!isWithin(realBase, realSource)) fail(`subpath "${realSource}" not within volume path "${realBase}"`);
}

/** Whether `path` is `root` or below it (both resolved: no symbolic link left to lead out). */
export function isWithin(root: string, path: string): boolean {
  const inside = relative(root, path);
  return !(inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside));
}

function fail(message: string, cause?: unknown): never {
  throw new PodrunError("CreateContainerConfigError", message, cause === undefined ? undefined : { cause });
}
