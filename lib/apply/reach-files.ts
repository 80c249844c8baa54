import { randomBytes } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { errorFirstLine } from "../errors.js";
import { diskOfEndpoint } from "../runtime/engine-location.js";
import type { ContainerRuntime } from "../runtime/types.js";
import { writeFileAtomic } from "../state/atomic-write.js";

// Whether the engine sees this host's files, which decides how a pod gets its files: bind mounts
// of the pod directory (a local engine, or a VM that shares it), or copies into an engine volume
// (lib/pod/volumes/engine-files.ts; runtime.files set). The endpoint decides where it can
// (runtime/engine-location.ts diskOfEndpoint: the default socket on Linux, another host); else a
// check: a file written here in the state directory, bind-mounted into the files helper and read
// back through the engine. Its answer is kept for an hour per engine and endpoint in
// `<stateDir>/engine-disk.json`, so a run pays the check (some 0.3–0.5 s) once an hour at most;
// `podrun version` checks anew. `PODRUN_ENGINE_FILES=shared` (or `copied`) says it instead: for an
// engine that shares this host's disk another way (an NFS mount on a remote host), or to copy
// the files whatever the engine sees.

/** The variable that tells podrun whether the engine sees this host's files, instead of finding out. */
export const ENGINE_FILES_VARIABLE = "PODRUN_ENGINE_FILES";

const CACHE_FILE = "engine-disk.json";
const CACHE_MS = 60 * 60 * 1000;

export interface FilesAnswer {
  shared: boolean;
  /** How it was told, in one line. */
  reason: string;
}

/** An answer kept in engine-disk.json, with its time (ms since the epoch). */
type CachedAnswer = FilesAnswer & { at: number };

type Runtime = Pick<ContainerRuntime, "name" | "endpoint" | "files" | "runFilesHelper">;

/** Tells whether the engine sees this host's files, and sets `runtime.files` to say so. */
export async function reachFiles(
  runtime: Runtime,
  stateDir: string | undefined,
  image: string,
  options: { fresh?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<FilesAnswer> {
  const said = (options.env ?? process.env)[ENGINE_FILES_VARIABLE];
  if (said === "shared" || said === "copied") {
    runtime.files = { image, shared: said === "shared" };
    return { shared: said === "shared", reason: `${ENGINE_FILES_VARIABLE}=${said}` };
  }
  const endpoint = await runtime.endpoint();
  const judged = diskOfEndpoint(endpoint, process.platform, process.getuid?.());
  const shown = endpoint || "its default socket";
  let answer: FilesAnswer;
  if (judged === "shared") answer = { shared: true, reason: `${runtime.name} at ${shown} runs on this host` };
  else if (judged === "unshared") answer = { shared: false, reason: `${runtime.name} at ${shown} is another host` };
  else if (stateDir === undefined)
    answer = { shared: true, reason: "no state directory to check with: assumed shared" };
  else answer = await checkOrRecall(runtime, stateDir, endpoint, image, options.fresh === true);
  runtime.files = { image, shared: answer.shared };
  return answer;
}

async function checkOrRecall(
  runtime: Runtime,
  stateDir: string,
  endpoint: string,
  image: string,
  fresh: boolean,
): Promise<FilesAnswer> {
  const file = join(stateDir, CACHE_FILE);
  const key = `${runtime.name} ${endpoint}`;
  const cache: Record<string, CachedAnswer | undefined> = await readFile(file, "utf8")
    .then((text) => JSON.parse(text) as Record<string, CachedAnswer>)
    .catch(() => ({}));
  const kept = cache[key];
  if (!fresh && kept && Date.now() - kept.at < CACHE_MS && Date.now() >= kept.at)
    return { shared: kept.shared, reason: `${kept.reason} (checked ${new Date(kept.at).toISOString()})` };
  const answer = await checkByMount(runtime, stateDir, image);
  // Another run's answers are kept: read again just before the write, which is atomic.
  const now = await readFile(file, "utf8")
    .then((text) => JSON.parse(text) as Record<string, unknown>)
    .catch(() => ({}));
  await writeFileAtomic(file, `${JSON.stringify({ ...now, [key]: { ...answer, at: Date.now() } }, null, 2)}\n`);
  return answer;
}

/** A file of this host's, read back through the engine: the same bytes, or the disk is not shared. */
async function checkByMount(runtime: Runtime, stateDir: string, image: string): Promise<FilesAnswer> {
  const dir = join(stateDir, "engine-check");
  const name = `${process.pid}-${randomBytes(6).toString("hex")}`;
  const token = randomBytes(16).toString("hex");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, name), token, { mode: 0o644 });
  try {
    const { stdout } = await runtime.runFilesHelper(["-read", `/check/${name}`], {
      mounts: [{ type: "bind", source: dir, target: "/check", readOnly: true }],
      image,
    });
    const read = (JSON.parse(stdout || "{}") as Record<string, string>)[`/check/${name}`];
    if (read !== undefined && Buffer.from(read, "base64").toString() === token)
      return { shared: true, reason: `${runtime.name} read back a file of ${stateDir} through a bind mount` };
    return { shared: false, reason: `${runtime.name} sees ${dir}, but not the file podrun wrote there` };
  } catch (error) {
    return { shared: false, reason: `${runtime.name} cannot mount ${dir}: ${errorFirstLine(error)}` };
  } finally {
    await rm(join(dir, name), { force: true });
  }
}
