import { constants } from "node:fs";
import { access, mkdir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { StateAccessError } from "../errors.js";
import { describeFsError } from "./state-error.js";

/**
 * Where podrun keeps state that should survive a run (pull back-off, the event log):
 * `$PODRUN_STATE_DIR`, else `$XDG_STATE_HOME/podrun`, else `~/.local/state/podrun`.
 * Empty variables count as unset.
 */
export function resolveStateDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  // An explicit choice may be relative: it means relative to where podrun was started.
  if (env.PODRUN_STATE_DIR) return resolve(env.PODRUN_STATE_DIR);
  // The XDG spec says a relative XDG_STATE_HOME is invalid and must be ignored.
  const xdg = env.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "podrun");
  return join(home, ".local", "state", "podrun");
}

/**
 * Creates the state directory like `mkdir -p`, private to the user (0700), and checks that it
 * can be written. Throws StateAccessError with one line naming the path when it cannot.
 * An existing directory keeps its mode: the user may have chosen it.
 */
export async function ensureStateDir(dir: string): Promise<string> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // mkdir -p succeeds on an existing directory it cannot write to; find out now, not mid-run.
    await access(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    const reason = await explainMkdirFailure(dir, error);
    throw new StateAccessError(
      dir,
      `cannot use state directory ${dir}: ${reason}; set PODRUN_STATE_DIR to a writable directory`,
      { cause: error },
    );
  }
  return dir;
}

// mkdir reports EEXIST for a file in the way; say so plainly.
async function explainMkdirFailure(dir: string, error: unknown): Promise<string> {
  if ((error as NodeJS.ErrnoException).code === "EEXIST") {
    // Gone meanwhile: the mkdir's own error says more.
    const info = await stat(dir).catch(() => undefined);
    if (info && !info.isDirectory()) return "it exists and is not a directory";
  }
  return describeFsError(error);
}
