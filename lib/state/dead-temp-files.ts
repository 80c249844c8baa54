import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { isProcessAlive } from "../process/process-alive.js";

/**
 * Removes the temp files (or directories) in `dir` whose names match `pattern` (its first group:
 * the pid of the process that made them) and whose process is gone: what a process killed before
 * its rename, or before its `finally`, left behind.
 * Another process's may be in the middle of its rename, and a pid means nothing to a process on
 * another host that shares the directory, so a file must also be a minute old.
 */
export async function removeDeadTempFiles(dir: string, pattern: RegExp): Promise<void> {
  // No directory: nothing was left in it.
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const pid = pattern.exec(name)?.[1];
    if (pid === undefined || isProcessAlive(Number(pid))) continue;
    const path = join(dir, name);
    // Gone meanwhile: another process cleaned it up.
    const info = await stat(path).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > 60_000)
      // Best effort: what stays is found again by the next cleanup.
      await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}
