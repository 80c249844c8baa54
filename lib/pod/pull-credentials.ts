import { readFile } from "node:fs/promises";
import type { Pod, Secret } from "kubernetes-types/core/v1.js";
import { PodrunError, UsageError } from "../errors.js";
import { findSecret, readSecretData, type PodObjects } from "../manifest/pod-objects.js";
import {
  DOCKER_CONFIG_JSON_KEY,
  DOCKER_CONFIG_JSON_TYPE,
  DOCKERCFG_KEY,
  DOCKERCFG_TYPE,
  DockerConfigError,
  parseDockercfg,
  parseDockerConfigJson,
  type DockerConfig,
} from "../credentials/docker-config.js";
import { Keyring, type KeyringMatch } from "../credentials/keyring.js";
import type { RegistryCredential } from "../credentials/types.js";

// Which credentials a pull gets, as the kubelet builds them (kubernetes/kubernetes
// pkg/credentialprovider/secrets/secrets.go MakeDockerKeyring): one keyring of all the pod's
// pull secrets, then, as the node's own keyring, the auth file given to this run.

// Docker writes Docker Hub's credentials under `https://index.docker.io/v1/`, podman under `docker.io`.
const AUTH_FILE_HUB_KEYS = ["index.docker.io", "docker.io"];

/** `--authfile PATH` / `$REGISTRY_AUTH_FILE` read once per run (docker config.json, or podman auth.json: same `auths` shape). */
export interface AuthFileCredentials {
  path: string;
  entries: Keyring;
}

/**
 * The credentials for `image` (as written in the manifest), in the kubelet's order: the pod's
 * imagePullSecrets as one keyring (keys most specific first; for one key, the secrets in the
 * order the pod lists them), then the auth file's; a username and password found twice is given
 * once, an entry with neither is skipped. Empty: let the engine use the user's own login.
 * Throws PodrunError(ErrImagePull) when a pull secret cannot be decoded, as the kubelet fails the pull.
 * Without a pod (the sandbox image, the node's business), only the auth file counts.
 */
export function findPullCredentials(options: {
  pod?: Pod;
  objects?: PodObjects;
  authFile?: AuthFileCredentials;
  image: string;
}): RegistryCredential[] {
  const { pod, objects, authFile, image } = options;
  const fromSecrets = pod && objects ? buildSecretKeyring(pod, objects).lookup(image) : [];
  const matches = [...fromSecrets, ...(authFile?.entries.lookup(image) ?? [])];
  const seen = new Set<string>();
  const credentials: RegistryCredential[] = [];
  for (const match of matches) {
    const { username, password } = match.entry;
    // An entry without either is a credential helper's placeholder (docker's `credsStore`
    // leaves `{}`): the engine's own login serves it. The same pair under a second key would
    // only repeat a refused pull.
    const pair = JSON.stringify([username, password]);
    if ((!username && !password) || seen.has(pair)) continue;
    seen.add(pair);
    credentials.push(toCredential(match));
  }
  return credentials;
}

/** Reads an auth file; its errors are one line naming the file, never a value. */
export async function readAuthFile(path: string): Promise<AuthFileCredentials> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`auth file ${path}: ${describeReadError(error)}`);
  }
  const entries = new Keyring({ hubKeys: AUTH_FILE_HUB_KEYS });
  try {
    entries.add(parseDockerConfigJson(text), `--authfile ${path}`);
  } catch (error) {
    if (error instanceof DockerConfigError) throw new UsageError(`auth file ${path}: ${error.message}`);
    throw error;
  }
  return { path, entries };
}

function buildSecretKeyring(pod: Pod, objects: PodObjects): Keyring {
  const keyring = new Keyring();
  const namespace = pod.metadata?.namespace || "default";
  for (const ref of pod.spec?.imagePullSecrets ?? []) {
    // A missing secret is a warning on a cluster (FailedToRetrieveImagePullSecret); validation
    // has already refused it here.
    const secret = ref.name ? findSecret(objects, namespace, ref.name) : undefined;
    if (!secret) continue;
    try {
      const config = readSecretDockerConfig(secret);
      if (config) keyring.add(config, `secret "${ref.name}"`);
    } catch (error) {
      if (error instanceof DockerConfigError)
        throw new PodrunError("ErrImagePull", `secret "${ref.name}": ${error.message}`, { cause: error });
      throw error;
    }
  }
  return keyring;
}

function toCredential({ key, entry }: KeyringMatch): RegistryCredential {
  return { username: entry.username, password: entry.password, registry: key, source: entry.source };
}

function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "is a directory";
  return code ?? "cannot be read";
}

/**
 * The credentials a pull secret holds, or undefined when the kubelet would not read it: another
 * type, or the type's key absent or empty. Throws DockerConfigError when the key cannot be decoded.
 */
export function readSecretDockerConfig(secret: Pick<Secret, "type" | "data" | "stringData">): DockerConfig | undefined {
  const data = readSecretData(secret);
  if (secret.type === DOCKER_CONFIG_JSON_TYPE) {
    const bytes = data.get(DOCKER_CONFIG_JSON_KEY);
    return bytes?.length ? parseDockerConfigJson(bytes.toString("utf8")) : undefined;
  }
  if (secret.type === DOCKERCFG_TYPE) {
    const bytes = data.get(DOCKERCFG_KEY);
    return bytes?.length ? parseDockercfg(bytes.toString("utf8")) : undefined;
  }
  return undefined;
}
