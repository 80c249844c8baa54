// Throw-away registry credentials for a test: a DOCKER_CONFIG folder (docker, nerdctl) or an
// auth file (podman --authfile), mode 0700/0600, removed by `remove()`. The password goes into
// the file only, never into argv.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RegistryLogin {
  registry: string;
  username: string;
  password: string;
}

export interface TempCredentials {
  /** Pass as DOCKER_CONFIG. */
  dir: string;
  /** `<dir>/config.json`: also valid for podman's --authfile / REGISTRY_AUTH_FILE. */
  file: string;
  remove(): void;
}

export function createTempCredentials(logins: readonly RegistryLogin[]): TempCredentials {
  const dir = mkdtempSync(join(tmpdir(), "podrun-test-auth-")); // mkdtemp makes it 0700
  const auths: Record<string, { auth: string }> = {};
  for (const { registry, username, password } of logins) {
    auths[registry] = { auth: Buffer.from(`${username}:${password}`).toString("base64") };
  }
  const file = join(dir, "config.json");
  writeFileSync(file, JSON.stringify({ auths }), { mode: 0o600 });
  return { dir, file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
