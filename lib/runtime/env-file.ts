import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDeadTempFiles } from "../state/dead-temp-files.js";

// The env file a create reads (env-plan.ts): alone in a directory of its own under the system's
// temporary directory (0700, the file 0600), removed as soon as the create returns. A podrun
// killed in between (SIGKILL, the machine going down) cannot remove it, and the file holds the
// container's environment, secrets included: the directory is named after the process that made
// it, and the next podrun that writes an env file first removes those of processes that are gone
// (dead-temp-files.ts), as the credential directories of a pull are (pull-auth.ts).

/** `<tmpdir>/podrun-env-<pid>-XXXXXX/env`. */
export const ENV_DIR_PREFIX = "podrun-env-";
const LEFT_BEHIND = /^podrun-env-(\d+)-/;

/** The file written, and its removal (of its directory, whatever happened). */
export interface EnvFile {
  path: string;
  remove(): Promise<void>;
}

/** One sweep per process (and directory). */
const sweeps = new Map<string, Promise<void>>();

/** Writes `content` to a new env file; once per process, those of killed runs go first. */
export async function writeEnvFile(content: string, base = tmpdir()): Promise<EnvFile> {
  if (!sweeps.has(base)) sweeps.set(base, removeDeadTempFiles(base, LEFT_BEHIND));
  await sweeps.get(base);
  const dir = await mkdtemp(join(base, `${ENV_DIR_PREFIX}${process.pid}-`));
  const path = join(dir, "env");
  const remove = () => rm(dir, { recursive: true, force: true });
  await writeFile(path, content, { mode: 0o600, flag: "wx" }).catch(async (error: unknown) => {
    await remove();
    throw error;
  });
  return { path, remove };
}
