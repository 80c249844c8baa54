import { readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { removeLeftoverTempFiles, writeFileAtomic } from "./atomic-write.js";
import { Backoff, IMAGE_PULL_BACKOFF, type BackoffEntry, type BackoffPolicy } from "./backoff.js";
import { withLock } from "./lock.js";
import { ensureStateDir } from "./paths.js";
import { errorMessage, StateAccessError } from "../errors.js";
import { describeFsError } from "./state-error.js";

// Pull back-off persisted between runs in `<state dir>/backoff.json`:
//   {"version": 1, "entries": {"default/web_busybox": {"backoffMs": 20000, "lastUpdate": "…Z", "lastError": "…"}}}
// Each update is read → mutate → write under a lock, the write atomic. The file is tolerant: a
// missing file is empty state, and one podrun cannot read is moved aside (and reported once,
// since the next run no longer finds it) rather than stopping every later run.

export const BACKOFF_FILE = "backoff.json";
const VERSION = 1;
// lastError comes from the runtime's stderr: keep the file small whatever the registry says.
const MAX_ERROR_LENGTH = 1024;

/** Where back-off lives. The manager only needs this; tests use createMemoryBackoffStore. */
export interface BackoffStore {
  /** Runs `mutate` on the current state and saves what it changed. `mutate` must not await. */
  update<T>(mutate: (backoff: Backoff) => T): Promise<T>;
}

export interface BackoffFileOptions {
  policy?: BackoffPolicy;
  /** Told once about a file that was moved aside or had bad entries; the caller prints a Warning. */
  onWarning?: (message: string) => void;
  /** For the name of a moved-aside file (default Date.now). */
  now?: () => number;
}

/** One read-modify-write of `<dir>/backoff.json`; returns what `mutate` returned. */
export async function updateBackoff<T>(
  dir: string,
  mutate: (backoff: Backoff) => T,
  options: BackoffFileOptions = {},
): Promise<T> {
  await ensureStateDir(dir);
  const file = join(dir, BACKOFF_FILE);
  return withLock(`${file}.lock`, async () => {
    // Writers write only under this lock: a temp file found now is from one that was killed.
    await removeLeftoverTempFiles(file);
    const loaded = await loadEntries(file, options);
    const backoff = new Backoff(options.policy ?? IMAGE_PULL_BACKOFF, loaded.entries);
    const before = serialize(backoff.entries);
    const result = mutate(backoff);
    const after = serialize(backoff.entries);
    if (loaded.dirty || after !== before) {
      await writeFileAtomic(file, after).catch((error: unknown) => {
        throw new StateAccessError(file, `cannot write ${file}: ${describeFsError(error)}`, { cause: error });
      });
    }
    return result;
  });
}

export function createFileBackoffStore(dir: string, options: BackoffFileOptions = {}): BackoffStore {
  return { update: (mutate) => updateBackoff(dir, mutate, options) };
}

/** Back-off kept in memory only (tests, `--dry-run`). */
export function createMemoryBackoffStore(policy: BackoffPolicy = IMAGE_PULL_BACKOFF): BackoffStore {
  const backoff = new Backoff(policy);
  // A throwing mutate rejects, as the file store's does.
  return { update: (mutate) => new Promise((resolve) => resolve(mutate(backoff))) };
}

interface Loaded {
  entries: Map<string, BackoffEntry>;
  /** Bad entries were dropped: write the cleaned file even if nothing else changes. */
  dirty: boolean;
}

async function loadEntries(file: string, options: BackoffFileOptions): Promise<Loaded> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: new Map(), dirty: false };
    throw new StateAccessError(file, `cannot read ${file}: ${describeFsError(error)}`, { cause: error });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return moveAside(file, `is not valid JSON (${errorMessage(error)})`, options);
  }
  if (!isRecord(data) || !isRecord(data.entries) || !("version" in data))
    return moveAside(file, "is not a podrun back-off file", options);
  if (data.version !== VERSION) return moveAside(file, `has unknown version ${JSON.stringify(data.version)}`, options);

  const entries = new Map<string, BackoffEntry>();
  let bad = 0;
  for (const [key, raw] of Object.entries(data.entries)) {
    const entry = parseEntry(raw);
    if (entry) entries.set(key, entry);
    else bad++;
  }
  if (bad > 0) options.onWarning?.(`state file ${file}: ignored ${bad} invalid ${bad === 1 ? "entry" : "entries"}`);
  return { entries, dirty: bad > 0 };
}

async function moveAside(file: string, problem: string, options: BackoffFileOptions): Promise<Loaded> {
  const aside = `${file}.corrupt-${new Date((options.now ?? Date.now)()).toISOString()}`;
  try {
    await rename(file, aside);
  } catch (error) {
    throw new StateAccessError(
      file,
      `state file ${file} ${problem}, and moving it aside failed: ${describeFsError(error)}`,
      { cause: error },
    );
  }
  options.onWarning?.(`state file ${file} ${problem}: moved it to ${aside}; pull back-off starts empty`);
  return { entries: new Map(), dirty: false };
}

function parseEntry(raw: unknown): BackoffEntry | undefined {
  if (!isRecord(raw)) return undefined;
  const { backoffMs, lastUpdate, lastError } = raw;
  if (typeof backoffMs !== "number" || !Number.isFinite(backoffMs) || backoffMs <= 0) return undefined;
  if (typeof lastUpdate !== "string") return undefined;
  const lastUpdateMs = Date.parse(lastUpdate);
  if (!Number.isFinite(lastUpdateMs)) return undefined;
  if (lastError !== undefined && typeof lastError !== "string") return undefined;
  return lastError === undefined ? { backoffMs, lastUpdateMs } : { backoffMs, lastUpdateMs, lastError };
}

function serialize(entries: ReadonlyMap<string, BackoffEntry>): string {
  const out: Record<string, { backoffMs: number; lastUpdate: string; lastError?: string }> = {};
  for (const [key, entry] of entries) {
    out[key] = { backoffMs: entry.backoffMs, lastUpdate: new Date(entry.lastUpdateMs).toISOString() };
    if (entry.lastError !== undefined) out[key].lastError = entry.lastError.slice(0, MAX_ERROR_LENGTH);
  }
  return `${JSON.stringify({ version: VERSION, entries: out }, null, 2)}\n`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
