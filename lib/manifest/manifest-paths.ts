import { readdir, realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { errorMessage, ManifestError } from "../errors.js";

// FILE|DIR|- arguments into the list of manifest files to read, as kubectl's `-f` expands them
// (k8s.io/cli-runtime pkg/resource/visitor.go, ExpandPathsToFileVisitors): a directory gives its
// files with a manifest extension, by name, depth first; a file named explicitly is read whatever
// its extension; subdirectories only with `recursive` (-R).

/** The extensions kubectl reads from a directory (case-sensitive, as filepath.Ext compares). */
export const MANIFEST_EXTENSIONS = [".yaml", ".yml", ".json"] as const;

/** The argument that names standard input. */
export const STDIN_PATH = "-";

export interface ExpandOptions {
  /** Read the subdirectories of a directory too (kubectl's -R). */
  recursive?: boolean;
}

/**
 * The files to read for `targets`, in order, each once (the same file named twice, or reached
 * through a directory and by name, is read at its first place). A path that does not exist is
 * kept: reading it then says so. Throws ManifestError with one line per directory that holds no
 * manifest or cannot be listed, and for standard input named twice.
 */
export async function expandManifestPaths(targets: readonly string[], options: ExpandOptions = {}): Promise<string[]> {
  const { files, errors } = await collectManifestPaths(targets, options);
  if (errors.length > 0) throw new ManifestError(errors);
  return files;
}

/** As expandManifestPaths, but returns the error lines with the files found, to report them all. */
export async function collectManifestPaths(
  targets: readonly string[],
  options: ExpandOptions = {},
): Promise<{ files: string[]; errors: string[] }> {
  const files: string[] = [];
  const errors: string[] = [];
  const seen = new Set<string>();
  const add = async (path: string) => {
    // Stdin has no identity on disk; a file's identity is its real path, links resolved (its path
    // as given when that fails: reading it then reports why).
    const identity = path === STDIN_PATH ? STDIN_PATH : await realpath(path).catch(() => resolve(path));
    if (seen.has(identity)) return;
    seen.add(identity);
    files.push(path);
  };

  let stdinNamed = false;
  for (const target of targets) {
    if (target === STDIN_PATH) {
      // Standard input can only be read once: a second `-` would read nothing.
      if (stdinNamed) errors.push(`${STDIN_PATH}: standard input can be read only once: give - at most once`);
      stdinNamed = true;
      await add(target);
      continue;
    }
    // Not a directory as far as stat can tell: read as a file, whose read error says what is wrong.
    const info = await stat(target).catch(() => undefined);
    if (!info?.isDirectory()) {
      await add(target);
      continue;
    }
    try {
      const found = await listManifestFiles(target, options.recursive === true);
      if (found.length === 0) errors.push(await describeEmptyDirectory(target, options.recursive === true));
      for (const file of found) await add(file);
    } catch (error) {
      errors.push(`${target}: cannot read the directory: ${describeFsError(error)}`);
    }
  }
  return { files, errors };
}

// filepath.Walk's order: entries sorted by name (bytes, not locale), a subdirectory's files where
// the subdirectory sorts. It does not follow a link to a directory; a link to a file is a file.
async function listManifestFiles(dir: string, recursive: boolean): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => compareNames(a.name, b.name));
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (recursive) files.push(...(await listManifestFiles(path, true)));
    } else if (hasManifestExtension(entry.name)) {
      files.push(path);
    }
  }
  return files;
}

/** Whether a directory entry is read as a manifest: `pod.yaml`, also a hidden `.pod.yaml`. */
export function hasManifestExtension(name: string): boolean {
  return MANIFEST_EXTENSIONS.some((ext) => name.endsWith(ext));
}

const compareNames = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

async function describeEmptyDirectory(dir: string, recursive: boolean): Promise<string> {
  const base = `${dir}: no manifest in this directory (no ${MANIFEST_EXTENSIONS.map((ext) => `*${ext}`).join(", ")} file)`;
  if (recursive) return base;
  // The manifests may be one level down: say how to read them (a listing that fails adds no hint).
  const nested = await listManifestFiles(dir, true).catch(() => []);
  return nested.length > 0
    ? `${base}; its subdirectories hold ${nested.length === 1 ? "one" : nested.length}: -R reads them`
    : base;
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EACCES" ? "permission denied" : errorMessage(error);
}
