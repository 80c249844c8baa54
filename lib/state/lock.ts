import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { StateAccessError } from "../errors.js";
import { describeFsError } from "./state-error.js";
import { isProcessAlive } from "../process/process-alive.js";

// A small lock between podrun processes for read-modify-write of a state file. The lock is a
// directory holding owner.json; it is prepared under a unique name and renamed into place, so a
// held lock always names its owner (rename onto a non-empty directory fails atomically). A lock
// whose owner died on this host, or that is older than `staleMs`, is broken. Breaking renames the
// lock away first and checks it took the one it judged stale, putting back any other.

export interface LockOptions {
  /** Give up waiting after this long (default 10 s). */
  timeoutMs?: number;
  /** A lock held longer than this is presumed abandoned (default 10 s; holders keep it for milliseconds). */
  staleMs?: number;
}

interface LockOwner {
  pid: number;
  host: string;
  token: string;
  sinceMs: number;
}

const OWNER_FILE = "owner.json";

/** Runs `fn` while holding the lock directory `lockPath`. */
export async function withLock<T>(lockPath: string, fn: () => Promise<T> | T, options: LockOptions = {}): Promise<T> {
  const token = await acquireLock(lockPath, options);
  try {
    await removeLockDebris(lockPath);
    return await fn();
  } finally {
    // fn's result or error is what the caller needs; a lock left behind is stale once this process is gone.
    await takeLockAway(lockPath, token).catch(() => undefined);
  }
}

async function acquireLock(lockPath: string, { timeoutMs = 10_000, staleMs = 10_000 }: LockOptions): Promise<string> {
  const token = `${process.pid}-${randomBytes(6).toString("hex")}`;
  const prepared = `${lockPath}.${token}.tmp`;
  const deadline = Date.now() + timeoutMs;
  try {
    await mkdir(prepared, { mode: 0o700 });
    for (let attempt = 0; ; attempt++) {
      // Stamped at each attempt: the age that counts is how long the lock has been held.
      const owner: LockOwner = { pid: process.pid, host: hostname(), token, sinceMs: Date.now() };
      await writeFile(join(prepared, OWNER_FILE), JSON.stringify(owner));
      try {
        await rename(prepared, lockPath);
        return token;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
      }
      const holder = await readHolder(lockPath);
      if (holder === undefined) continue; // released meanwhile
      if (isStale(holder, staleMs)) {
        await takeLockAway(lockPath, holder.token);
        continue;
      }
      if (Date.now() > deadline) {
        const who = holder.pid !== undefined ? ` (held by pid ${holder.pid} on ${holder.host})` : "";
        throw new StateAccessError(
          lockPath,
          `timed out waiting for lock ${lockPath}${who}; if no podrun is running, remove it`,
        );
      }
      await sleep(Math.min(5 + attempt * 5, 50) + Math.random() * 10);
    }
  } catch (error) {
    if (error instanceof StateAccessError) throw error;
    throw new StateAccessError(lockPath, `cannot take lock ${lockPath}: ${describeFsError(error)}`, { cause: error });
  } finally {
    // Best effort: a prepared directory left behind is debris, which the next holder removes.
    await rm(prepared, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Who holds a lock; only `sinceMs` (the directory's mtime) for a lock without a readable owner. */
type Holder = Partial<LockOwner> & { sinceMs: number };

// undefined: no lock there (any more). A missing owner file is normal for a moment while a
// lock is being released, so it is judged by age, never presumed dead.
async function readHolder(lockPath: string): Promise<Holder | undefined> {
  try {
    const owner = JSON.parse(await readFile(join(lockPath, OWNER_FILE), "utf8")) as LockOwner;
    if (typeof owner.pid === "number" && typeof owner.sinceMs === "number" && typeof owner.token === "string")
      return owner;
  } catch {
    // unreadable: fall back on the directory
  }
  // No lock directory: released meanwhile.
  const info = await stat(lockPath).catch(() => undefined);
  return info ? { sinceMs: info.mtimeMs } : undefined;
}

function isStale(holder: Holder, staleMs: number): boolean {
  if (holder.pid !== undefined && holder.host === hostname() && !isProcessAlive(holder.pid)) return true;
  return Date.now() - holder.sinceMs > staleMs;
}

// A process killed while releasing or breaking a lock leaves the directory it renamed away
// (`<lock>.<pid>-<hex>.old`); one killed while preparing a lock leaves `<lock>.<pid>-<hex>.tmp`.
// Nothing else would ever remove them, so the next holder does. A renamed-away one goes when
// the pid in its name is dead (even if that were wrong, its owner only wanted it deleted). A
// prepared one is judged as a held lock is, by the owner.json in it, and by age when that is
// unreadable: it may belong to a process still waiting for the lock.
const DEBRIS = /^(\d+)-[0-9a-f]+\.(old|tmp)$/;
const UNKNOWN_DEBRIS_AGE_MS = 10 * 60_000;

async function removeLockDebris(lockPath: string): Promise<void> {
  const prefix = `${basename(lockPath)}.`;
  // Unlistable: no debris is found now; the lock itself was taken, so the directory is usable.
  const names = await readdir(dirname(lockPath)).catch(() => [] as string[]);
  for (const name of names) {
    const match = name.startsWith(prefix) ? DEBRIS.exec(name.slice(prefix.length)) : null;
    if (!match || isProcessAlive(Number(match[1]))) continue;
    const path = join(dirname(lockPath), name);
    if (match[2] === "tmp") {
      const preparer = await readHolder(path);
      if (!preparer || !isStale(preparer, UNKNOWN_DEBRIS_AGE_MS)) continue;
    }
    // Best effort: debris that stays is found again by the next holder.
    await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}

// Renames the lock away and deletes it, but only if it is the one with `token` (undefined: one
// without an owner). If it turns out to be another, it is put back. (Two processes breaking the
// same stale lock while a third takes it can still collide; that needs a crash to begin with.)
async function takeLockAway(lockPath: string, token: string | undefined): Promise<void> {
  const aside = `${lockPath}.${process.pid}-${randomBytes(6).toString("hex")}.old`;
  try {
    await rename(lockPath, aside);
  } catch {
    return; // already gone: someone else released or broke it
  }
  const taken = (await readHolder(aside))?.token;
  if (taken !== token) {
    // Not put back (the path was taken again meanwhile): removed below, as the debris it now is.
    const restored = await rename(aside, lockPath).then(
      () => true,
      () => false,
    );
    if (restored) return;
  }
  await rm(aside, { recursive: true, force: true });
}
