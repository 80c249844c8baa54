// Registry credentials for one `pull`, handed over the way each engine reads them from a file:
// never in argv (any user sees it in `ps`), never in the environment of a process that outlives
// the pull. docker and nerdctl read `$DOCKER_CONFIG/config.json`, podman takes `--authfile FILE`;
// the file lives in a fresh 0700 directory, is 0600, names this one registry only, and goes as
// soon as the pull ends, however it ends.
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import type { RegistryCredential } from "../credentials/types.js";
import { toDockerConfigKey } from "../credentials/keyring.js";
import { removeDeadTempFiles } from "../state/dead-temp-files.js";
import type { Dialect } from "./dialects.js";

/** The key docker's config.json holds Docker Hub credentials under (toDockerConfigKey's). */
const DOCKER_HUB_KEY = "https://index.docker.io/v1/";

/** Where the temporary credential directories go (`<tmpdir>/podrun-auth-<pid>-XXXXXX`). */
export const PULL_AUTH_PREFIX = "podrun-auth-";
const LEFT_BEHIND = /^podrun-auth-(\d+)-/;

/** What one pull needs to use a credential: arguments before the image, environment for the CLI. */
export interface PullAuth {
  /** Arguments of `pull` that point at the file (podman), or none. */
  args: string[];
  /** The pull's own environment additions (docker, nerdctl); `undefined` removes a variable. */
  env: Record<string, string | undefined>;
  /** Removes the directory and the file. Safe to call twice. */
  dispose(): Promise<void>;
}

/** The user's docker CLI settings that a temporary DOCKER_CONFIG must carry over. */
export interface DockerClientSettings {
  /** `currentContext` of the user's config.json: without it, the CLI would switch to the default context. */
  currentContext?: string;
  /** The user's `contexts` directory (endpoints, TLS material of named contexts), if there is one. */
  contextsDir?: string;
}

/**
 * The key the engine looks this image's credentials up by. The keyring matched the credential by
 * its own rules (globs, path prefixes); the engine only looks up the image's registry host, so the
 * one entry goes under that. Docker Hub has its own key per engine (dialect.dockerHubAuthKey).
 */
export function formatAuthKey(dialect: Dialect, image: string): string {
  const key = toDockerConfigKey(image);
  return key === DOCKER_HUB_KEY ? dialect.dockerHubAuthKey : key;
}

/**
 * The credential file's content: `{"auths": {KEY: {"auth": base64(user:password)}}}`, the format
 * docker, nerdctl and podman read alike; for docker, with the user's current context kept.
 */
export function buildAuthConfig(options: {
  dialect: Dialect;
  image: string;
  credential: RegistryCredential;
  settings?: DockerClientSettings;
}): Record<string, unknown> {
  const { dialect, image, credential, settings } = options;
  const auth = Buffer.from(`${credential.username}:${credential.password}`).toString("base64");
  const config: Record<string, unknown> = { auths: { [formatAuthKey(dialect, image)]: { auth } } };
  if (dialect.pullCredentials === "docker-config" && settings?.currentContext)
    config["currentContext"] = settings.currentContext;
  return config;
}

/**
 * `pull [--authfile FILE] REF`: the file's path is harmless in argv, its content never goes there.
 * Not `--quiet`: the pull's output is its progress (pull-progress.ts).
 */
export function buildPullArgs(ref: string, authArgs: readonly string[] = []): string[] {
  return ["pull", ...authArgs, ref];
}

/**
 * A pull as `--dry-run` prints it: nothing is written, the credential is named by where it came
 * from, where the file's path (podman) or directory (docker, nerdctl) would go.
 */
export function planPull(
  dialect: Dialect,
  ref: string,
  credential?: RegistryCredential,
): { args: string[]; env?: Record<string, string> } {
  if (!credential) return { args: buildPullArgs(ref) };
  const placeholder = `<credentials of ${credential.source}>`;
  if (dialect.pullCredentials === "authfile") return { args: buildPullArgs(ref, ["--authfile", placeholder]) };
  return { args: buildPullArgs(ref), env: { DOCKER_CONFIG: placeholder } };
}

/**
 * The environment of a docker or nerdctl pull that reads `dir`. DOCKER_AUTH_CONFIG (docker 28.3+)
 * is read before config.json: a login of the user's there must not shadow the pod's credential.
 * DOCKER_HOST and DOCKER_CONTEXT are inherited as they are.
 */
export function buildPullEnv(dir: string): Record<string, string | undefined> {
  return { DOCKER_CONFIG: dir, DOCKER_AUTH_CONFIG: undefined };
}

/**
 * The user's docker settings, from `$DOCKER_CONFIG` or `~/.docker`. Unreadable or absent files
 * leave the defaults: the CLI itself would fall back to them the same way.
 */
export async function readDockerClientSettings(env: NodeJS.ProcessEnv = process.env): Promise<DockerClientSettings> {
  const dir = env["DOCKER_CONFIG"] || join(homedir(), ".docker");
  const settings: DockerClientSettings = {};
  try {
    const config = JSON.parse(await readFile(join(dir, "config.json"), "utf8")) as unknown;
    const current =
      typeof config === "object" && config !== null ? (config as Record<string, unknown>)["currentContext"] : undefined;
    if (typeof current === "string" && current !== "") settings.currentContext = current;
  } catch {
    // no config.json, or one the CLI would reject as well
  }
  const contexts = join(dir, "contexts");
  // No contexts directory (or none readable): the CLI then uses its default context, as here.
  if ((await stat(contexts).catch(() => undefined))?.isDirectory()) settings.contextsDir = contexts;
  return settings;
}

/**
 * Writes `credential` for one pull of `image` and says how to pass it. The caller must call
 * `dispose()` in a `finally`. A docker context of the user's (currentContext, DOCKER_CONTEXT)
 * keeps working: its definitions are reached through a link to the user's `contexts` directory.
 */
export async function preparePullAuth(options: {
  dialect: Dialect;
  image: string;
  credential: RegistryCredential;
  env?: NodeJS.ProcessEnv;
}): Promise<PullAuth> {
  const { dialect } = options;
  const settings = dialect.pullCredentials === "docker-config" ? await readDockerClientSettings(options.env) : {};
  sweep ??= removeLeftBehind(tmpdir());
  await sweep;
  // mkdtemp makes the directory 0700: only this user can even list it.
  const dir = await mkdtemp(join(tmpdir(), `${PULL_AUTH_PREFIX}${process.pid}-`));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    const content = `${JSON.stringify(buildAuthConfig({ ...options, settings }))}\n`;
    if (dialect.pullCredentials === "authfile") {
      const file = join(dir, "auth.json");
      await writeFile(file, content, { mode: 0o600, flag: "wx" });
      return { args: ["--authfile", file], env: {}, dispose };
    }
    await writeFile(join(dir, "config.json"), content, { mode: 0o600, flag: "wx" });
    // rm -r removes a link, never what it points to.
    if (settings.contextsDir !== undefined) await symlink(settings.contextsDir, join(dir, "contexts"));
    return { args: [], env: buildPullEnv(dir), dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

let sweep: Promise<void> | undefined;

/**
 * Removes the credential directories of podrun processes that are gone: `finally` cannot run
 * after a SIGKILL. A directory must also be a minute old, as a pid means nothing to a process on
 * another host (or in another pid namespace) sharing the directory. Once per process.
 */
export async function removeLeftBehind(dir: string): Promise<void> {
  await removeDeadTempFiles(dir, LEFT_BEHIND);
}
