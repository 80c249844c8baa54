import { mkdir, open, stat } from "node:fs/promises";
import { statSync, type Stats } from "node:fs";
import { errorMessage } from "../../errors.js";

// hostPath volumes: the kubelet's type check before the mount (kubernetes/kubernetes
// pkg/volume/hostpath/host_path.go checkType), with its error texts; they reach the user as
// `MountVolume.SetUp failed for volume "x" : <text>`. An unset type checks nothing; a path that
// is then missing is made a directory (0755), as containerd's and CRI-O's CRI do for a bind
// mount whose source is missing: the engines' `--mount` would refuse it instead.

/** The HostPathType values, "" for unset. */
export type HostPathType =
  "" | "DirectoryOrCreate" | "Directory" | "FileOrCreate" | "File" | "Socket" | "CharDevice" | "BlockDevice";

const DESCRIPTIONS: Partial<Record<HostPathType, [HostPathType, string]>> = {
  Directory: ["Directory", "directory"],
  DirectoryOrCreate: ["Directory", "directory"],
  File: ["File", "file"],
  FileOrCreate: ["File", "file"],
  Socket: ["Socket", "socket file"],
  CharDevice: ["CharDevice", "character device"],
  BlockDevice: ["BlockDevice", "block device"],
};

/**
 * Checks (and for the `…OrCreate` types, creates) the host path as the kubelet does before the
 * mount; throws an Error whose message is the kubelet's. `create: false` (a dry run) checks what
 * exists and creates nothing.
 */
export async function prepareHostPath(
  path: string,
  type: string | undefined,
  options: { create?: boolean } = {},
): Promise<void> {
  // As the kubelet's FileTypeChecker: any stat error (missing, unreadable) reads as absent.
  const verdict = judgeHostPath(path, type, await stat(path).catch(() => undefined));
  if (verdict === undefined) return;
  if ("error" in verdict) throw new Error(verdict.error);
  if (options.create === false) return;
  // No parent is made for a file: a missing one fails with the open error, as on a node.
  if (verdict.create === "directory") await makeDirectory(path);
  else await createEmptyFile(path);
}

/**
 * The kubelet's check of a hostPath before the mount, made now on this machine without creating
 * anything: its error text, or undefined when the mount would go ahead (what the `…OrCreate`
 * types, or an unset type, would create counts as fine). For the manifest reader, which reports
 * it before `up` creates anything.
 */
export function checkHostPathNow(path: string, type: string | undefined): string | undefined {
  const verdict = judgeHostPath(path, type, statOrUndefined(path));
  return verdict !== undefined && "error" in verdict ? verdict.error : undefined;
}

/** What the kubelet's checkType makes of `path`, given its stat (undefined: absent). */
function judgeHostPath(
  path: string,
  type: string | undefined,
  info: Stats | undefined,
): { error: string } | { create: "directory" | "file" } | undefined {
  const kind = (type ?? "") as HostPathType;
  if (kind === "") return info ? undefined : { create: "directory" };
  const description = DESCRIPTIONS[kind];
  if (!description) return { error: `${kind} is an invalid volume type` };
  if (kind === "DirectoryOrCreate" && !info) return { create: "directory" };
  if (kind === "FileOrCreate" && !info) return { create: "file" };
  const [expected, what] = description;
  if (!info) return { error: `hostPath ${path} doesn't exist` };
  const actual = fileTypeOf(info);
  if (actual === undefined) {
    return {
      error: `hostPath type check failed, ${path} is not a ${what}, unable to determine its type: only recognise file, directory, socket, block device and character device`,
    };
  }
  return actual === expected
    ? undefined
    : { error: `hostPath type check failed: ${path} is not a ${what}, it's a ${actual}` };
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The kubelet's GetFileType (it follows symlinks, as stat does). */
export function fileTypeOf(info: Stats): HostPathType | undefined {
  if (info.isSocket()) return "Socket";
  if (info.isBlockDevice()) return "BlockDevice";
  if (info.isCharacterDevice()) return "CharDevice";
  if (info.isDirectory()) return "Directory";
  if (info.isFile()) return "File";
  return undefined;
}

async function makeDirectory(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: 0o755 });
  } catch (error) {
    throw new Error(`mkdir ${path}: ${describeErrno(error)}`, { cause: error });
  }
}

async function createEmptyFile(path: string): Promise<void> {
  try {
    const handle = await open(path, "a", 0o644);
    await handle.close();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    // Go's words for a failed open: "open PATH: no such file or directory".
    throw new Error(`open ${path}: ${describeErrno(error)}`, { cause: error });
  }
}

function describeErrno(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const texts: Record<string, string> = {
    ENOENT: "no such file or directory",
    EACCES: "permission denied",
    ENOTDIR: "not a directory",
    EISDIR: "is a directory",
    EROFS: "read-only file system",
  };
  return (code && texts[code]) ?? errorMessage(error);
}
