import { randomBytes } from "node:crypto";
import { open, readdir, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Replaces `file` with `data` so that readers see the old or the new content, never a mix, even
 * after a crash: a uniquely named temp file in the same directory (rename is atomic only within
 * one file system) is written, fsynced and renamed over the target, then the directory is
 * fsynced so that the rename itself survives a power loss.
 */
export async function writeFileAtomic(file: string, data: string, mode = 0o600): Promise<void> {
  const dir = dirname(file);
  const temp = join(dir, `${tempPrefix(file)}${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temp, "wx", mode);
    try {
      await handle.writeFile(data, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    // Best effort: the write's own error is the one to report; removeLeftoverTempFiles takes a temp file left.
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
}

/**
 * Deletes the temp files that writeFileAtomic left for `file` when its process died before the
 * rename (a SIGKILL during the fsync, most likely). Only safe while no writer of `file` can be
 * running: call it under the lock that serializes them. Resolves with the names it removed.
 */
export async function removeLeftoverTempFiles(file: string): Promise<string[]> {
  const prefix = tempPrefix(file);
  // No directory (or an unreadable one): no temp file to remove, and the write reports the directory.
  const names = await readdir(dirname(file)).catch(() => [] as string[]);
  const leftovers = names.filter((name) => name.startsWith(prefix) && name.endsWith(".tmp"));
  // Best effort: a temp file that stays is harmless (no reader opens it), and the next cleanup tries again.
  await Promise.all(leftovers.map((name) => unlink(join(dirname(file), name)).catch(() => undefined)));
  return leftovers;
}

const tempPrefix = (file: string) => `.${basename(file)}.`;

async function syncDirectory(dir: string): Promise<void> {
  // Best effort: some platforms (Windows) and file systems cannot open or fsync a directory.
  const handle = await open(dir, "r").catch(() => undefined);
  if (!handle) return;
  // The rename is made; only its durability across a power loss is left to the file system.
  await handle.sync().catch(() => undefined);
  await handle.close();
}
