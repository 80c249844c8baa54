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
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const pid = pattern.exec(name)?.[1];
    if (pid === undefined || isProcessAlive(Number(pid))) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > 60_000)
      await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}
