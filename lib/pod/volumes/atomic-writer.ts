import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { join, posix } from "node:path";

// The files of a configMap, secret, downwardAPI or projected volume, laid out as the kubelet's
// AtomicWriter lays them out (kubernetes/kubernetes pkg/volume/util/atomic_writer.go), so that a
// container sees the same tree, and an update is one rename that no reader can see half done:
//
//   <dir>/..2026_12_01_04_00_00.Ab12Cd/   the files, in a data directory named after the time (0755)
//   <dir>/..data -> ..2026_12_01_04_00_00.Ab12Cd
//   <dir>/key -> ..data/key               one symlink per top-level entry of the payload
//   <dir>/conf -> ..data/conf             (a nested path `conf/app.ini` goes through its top directory)
//
// A new payload goes into a new data directory; `..data_tmp` is made to point at it and renamed
// over `..data`; then top-level entries the new payload lacks are removed, and the old data
// directory. A payload equal to what is there (same paths, bytes and modes) writes nothing.

/** One file of a volume: its bytes and its permission bits (0–0777). */
export interface FileProjection {
  content: Buffer;
  mode: number;
}

/** Relative file paths (cleaned, `/`-separated) to their content. */
export type Payload = ReadonlyMap<string, FileProjection>;

const DATA_DIR = "..data";
const DATA_DIR_TMP = "..data_tmp";

/**
 * Writes `payload` into `dir` (which must exist), replacing what an earlier write put there.
 * `setPerms` runs once the new files are written and before they are made visible, as the
 * kubelet's hook does (fsGroup ownership, volume-ownership.ts); an unchanged payload skips it too.
 * `fileMode` is what `setPerms` makes of a file's mode, so that a payload already written is
 * recognised as such.
 */
export async function writeAtomically(
  dir: string,
  payload: Payload,
  options: { setPerms?: () => Promise<void>; fileMode?: (mode: number) => number } = {},
): Promise<void> {
  for (const path of payload.keys()) {
    const problem = checkPayloadPath(path);
    if (problem) throw new Error(`invalid file path ${JSON.stringify(path)}: ${problem}`);
  }
  // No ..data link: a first write.
  const oldDataDir = await readlink(join(dir, DATA_DIR)).catch(() => undefined);
  const oldPaths = oldDataDir === undefined ? new Set<string>() : await listFiles(join(dir, oldDataDir));
  if (
    oldDataDir !== undefined &&
    (await holdsPayload(join(dir, oldDataDir), oldPaths, payload, options.fileMode ?? ((mode) => mode)))
  ) {
    await createVisibleLinks(dir, payload);
    return;
  }

  const dataDir = await mkdtemp(join(dir, formatDataDirPrefix(new Date())));
  // Group and other must be able to search it, whatever the umask (the kubelet's chmod).
  await chmod(dataDir, 0o755);
  for (const [path, file] of payload) {
    const full = join(dataDir, path);
    await makeDirectories(dataDir, posix.dirname(path));
    await writeFile(full, file.content, { mode: file.mode, flag: "wx" });
    await chmod(full, file.mode); // the mode as given, not as the umask left it
  }
  await options.setPerms?.();
  const tmpLink = join(dir, DATA_DIR_TMP);
  await rm(tmpLink, { force: true });
  await symlink(posix.basename(dataDir), tmpLink);
  await rename(tmpLink, join(dir, DATA_DIR));
  await createVisibleLinks(dir, payload);

  const wanted = new Set([...payload.keys()].map(topLevel));
  for (const name of new Set([...oldPaths].map(topLevel))) {
    if (!wanted.has(name)) await rm(join(dir, name), { recursive: true, force: true });
  }
  if (oldDataDir !== undefined && oldDataDir !== posix.basename(dataDir))
    await rm(join(dir, oldDataDir), { recursive: true, force: true });
}

/** Why a payload path cannot be written, or undefined (the kubelet's validatePath). */
export function checkPayloadPath(path: string): string | undefined {
  if (path === "") return "must not be empty";
  if (path.length > 4096) return "must be less than or equal to 4096 characters";
  if (path.startsWith("/")) return "must be relative";
  if (path.split("/").includes("..")) return "must not contain '..'";
  if (path.startsWith("..")) return "must not start with '..'";
  return undefined;
}

/** `..2006_01_02_15_04_05.` in UTC: mkdtemp appends the random part. */
export function formatDataDirPrefix(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  const parts = [
    date.getUTCFullYear(),
    pad(date.getUTCMonth() + 1),
    pad(date.getUTCDate()),
    pad(date.getUTCHours()),
    pad(date.getUTCMinutes()),
    pad(date.getUTCSeconds()),
  ];
  return `..${parts.join("_")}.`;
}

function topLevel(path: string): string {
  return path.split("/")[0]!;
}

/** Directories between the data directory and a file, 0755 each (MkdirAll under the kubelet's umask). */
async function makeDirectories(root: string, relative: string): Promise<void> {
  if (relative === "." || relative === "") return;
  let current = root;
  for (const part of relative.split("/")) {
    current = join(current, part);
    const made = await mkdir(current, { mode: 0o755 }).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
        return false;
      },
    );
    if (made) await chmod(current, 0o755);
  }
}

/** `<dir>/<top>` → `..data/<top>` for each top-level entry that has no link yet. */
async function createVisibleLinks(dir: string, payload: Payload): Promise<void> {
  for (const name of new Set([...payload.keys()].map(topLevel))) {
    const link = join(dir, name);
    // Nothing in the link's place yet.
    const existing = await lstat(link).catch(() => undefined);
    if (existing?.isSymbolicLink()) continue;
    // Anything else in the way (a directory a subPath mount made for a key that was missing then)
    // gives way to the payload.
    if (existing) await rm(link, { recursive: true, force: true });
    await symlink(posix.join(DATA_DIR, name), link);
  }
}

/** Every file under `root`, as relative `/`-separated paths. */
async function listFiles(root: string, prefix = ""): Promise<Set<string>> {
  const found = new Set<string>();
  // An old directory that cannot be listed holds nothing to keep: the payload is written anew.
  const entries = await readdir(join(root, prefix), { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) for (const path of await listFiles(root, relative)) found.add(path);
    else found.add(relative);
  }
  return found;
}

async function holdsPayload(
  dataDir: string,
  present: ReadonlySet<string>,
  payload: Payload,
  fileMode: (mode: number) => number,
): Promise<boolean> {
  if (present.size !== payload.size) return false;
  for (const [path, file] of payload) {
    if (!present.has(path)) return false;
    const full = join(dataDir, path);
    // A file gone or unreadable does not hold the payload: it is written anew.
    const [info, content] = await Promise.all([stat(full), readFile(full)]).catch(
      () => [undefined, undefined] as const,
    );
    if (!info || !content || (info.mode & 0o7777) !== fileMode(file.mode) || !content.equals(file.content))
      return false;
  }
  return true;
}
