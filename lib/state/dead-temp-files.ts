import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { isProcessAlive } from "../process/process-alive.js";

/**
 * Removes the temp files in `dir` whose names match `pattern` (its first group: the pid of the
 * process that wrote it) and whose process is gone: files of a process killed before its rename.
 * Another process's may be in the middle of its rename, and a pid means nothing to a process on
 * another host that shares the directory, so a file must also be a minute old.
 */
export async function removeDeadTempFiles(dir: string, pattern: RegExp): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const pid = pattern.exec(name)?.[1];
    if (pid === undefined || isProcessAlive(Number(pid))) continue;
    const file = join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > 60_000) await unlink(file).catch(() => undefined);
  }
}
