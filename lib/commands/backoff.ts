import { stat } from "node:fs/promises";
import { ExitCode, ExitError, UsageError } from "../errors.js";
import { configureColor } from "../output/color.js";
import { formatHumanDuration } from "../text/human-duration.js";
import { formatErrorLine } from "../output/error-line.js";
import { formatTable } from "../output/table.js";
import { escapeControlCharacters, toOneLine } from "../text/terminal-text.js";
import { updateBackoff } from "../state/backoff-store.js";
import type { Backoff } from "../state/backoff.js";
import { resolveStateDir } from "../state/paths.js";

// `podrun backoff` and `podrun backoff clear`: the pull back-off that `podrun up` keeps in
// `<state dir>/backoff.json`, shown and forgotten on demand, so that after fixing a registry
// nobody waits out five minutes or edits the file by hand. Both read and write through the
// store (its lock, its atomic write, its handling of a corrupt file), never the file directly.

/** One entry as `--json` prints it; times are RFC 3339, `lastError` null when none was kept. */
export interface BackoffEntryView {
  key: string;
  backoffMs: number;
  lastUpdate: string;
  /** When `podrun up` pulls again instead of reporting BackOff: lastUpdate + backoffMs. */
  nextRetryAt: string;
  lastError: string | null;
}

interface CommonOptions {
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** Wall-clock ms since the epoch (default Date.now). */
  now?: () => number;
}

export interface ListBackoffOptions extends CommonOptions {
  json: boolean;
}

export interface ClearBackoffOptions extends CommonOptions {
  /** Keys as `podrun backoff` lists them. */
  keys: readonly string[];
  all: boolean;
}

/** Lists the live entries (expired ones are dropped from the file on the way), by key. */
export async function listBackoff(options: ListBackoffOptions): Promise<void> {
  const { stdout = process.stdout, stderr = process.stderr, now = Date.now } = options;
  const context = openContext(options);
  const nowMs = now();
  const entries = await context.update((state) => {
    state.gc(nowMs);
    return viewEntries(state);
  });
  if (options.json) {
    stdout.write(`${JSON.stringify(entries ?? [], null, 2)}\n`);
    return;
  }
  if (!entries?.length) {
    stderr.write("No back-off entries.\n");
    return;
  }
  const rows = entries.map((entry) => {
    const lastUpdateMs = Date.parse(entry.lastUpdate);
    const waitMs = lastUpdateMs + entry.backoffMs - nowMs;
    return [
      entry.key,
      formatHumanDuration(entry.backoffMs),
      // Rounded up: while in back-off it never reads "0s".
      waitMs > 0 ? formatHumanDuration(Math.ceil(waitMs / 1000) * 1000) : "now",
      formatHumanDuration(nowMs - lastUpdateMs),
      toOneLine(entry.lastError ?? ""),
    ].map(escapeControlCharacters); // the error is the registry's text; the file anyone's
  });
  for (const line of formatTable([["KEY", "BACKOFF", "NEXT RETRY IN", "LAST FAILURE", "LAST ERROR"], ...rows]))
    stdout.write(`${line}\n`);
}

/** Forgets the given entries, or all of them; an unknown key is reported, and exits 1, after the others are cleared. */
export async function clearBackoff(options: ClearBackoffOptions): Promise<void> {
  const { stdout = process.stdout, stderr = process.stderr, now = Date.now } = options;
  if (options.all && options.keys.length > 0) throw new UsageError("give either keys or --all, not both");
  if (!options.all && options.keys.length === 0)
    throw new UsageError("give the key of an entry to clear (as `podrun backoff` lists it), or --all");
  const context = openContext(options);
  const nowMs = now();
  const unique = [...new Set(options.keys)];
  const result = (await context.update((state) => {
    if (options.all) {
      // Expired entries go too, but only the ones `podrun backoff` would have listed are named.
      const cleared = [...state.entries]
        .filter(([, entry]) => !state.isExpired(entry, nowMs))
        .map(([key]) => key)
        .sort();
      state.entries.clear();
      return { cleared, missing: [] };
    }
    const cleared: string[] = [];
    const missing: string[] = [];
    for (const key of unique) (state.entries.delete(key) ? cleared : missing).push(key);
    return { cleared, missing };
  })) ?? { cleared: [], missing: options.all ? [] : unique };
  const { cleared, missing } = result;
  for (const key of cleared) stdout.write(`cleared ${escapeControlCharacters(key)}\n`);
  if (options.all && cleared.length === 0) stderr.write("No back-off entries.\n");
  if (missing.length === 0) return;
  for (const key of missing)
    stderr.write(
      `${formatErrorLine({ message: `no back-off entry ${escapeControlCharacters(key)} (\`podrun backoff\` lists them)` })}\n`,
    );
  throw new ExitError(ExitCode.Failed);
}

// The state directory and a warning printer, shared by both commands. `update` resolves with
// undefined, without creating anything, when the state directory does not exist yet.
function openContext(options: CommonOptions) {
  const { env = process.env, stderr = process.stderr } = options;
  const color = configureColor(env);
  const dir = options.stateDir ?? resolveStateDir(env);
  // The store reports a file it moved aside once; say it here, as `podrun up` does.
  const onWarning = (message: string) => stderr.write(`${color.yellow(`Warning: ${message}`)}\n`);
  return {
    async update<T>(mutate: (state: Backoff) => T): Promise<T | undefined> {
      // Looking must not create ~/.local/state/podrun: no directory means no entries.
      if (!(await directoryExists(dir))) return undefined;
      return updateBackoff(dir, mutate, { onWarning });
    },
  };
}

function viewEntries(state: Backoff): BackoffEntryView[] {
  return [...state.entries]
    .map(([key, entry]) => ({
      key,
      backoffMs: entry.backoffMs,
      lastUpdate: new Date(entry.lastUpdateMs).toISOString(),
      nextRetryAt: new Date(entry.lastUpdateMs + entry.backoffMs).toISOString(),
      lastError: entry.lastError ?? null,
    }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

// Anything but ENOENT (a file in the way, no permission) is left to the store to explain.
async function directoryExists(dir: string): Promise<boolean> {
  return stat(dir).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== "ENOENT",
  );
}
