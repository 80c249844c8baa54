// Proves the environment of scripts/test-env.sh does what later tests rely on: real pulls from
// the open registry, and an auth registry that refuses anonymous pulls and accepts credentials
// given through a file (never argv).
import t from "tap";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "../../lib/runtime/exec.js";
import { createTempCredentials } from "./credentials.js";
import { requireEngine, requireRegistry, requireTestEnv } from "./engine.js";
import { readRegistryPassword } from "./env.js";
import { countRegistryRequests, registryLogMark } from "./registry-log.js";

const AUTH_REFUSED = /unauthorized|authentication required|no basic auth credentials|access to the resource is denied/i;

/** `/v2/<repo>/manifests/<tag>` of a `host/repo:tag` reference, as a pattern for the access log. */
function manifestRequest(ref: string): RegExp {
  const [, repo, tag] = /^[^/]+\/(.+):([^:/]+)$/.exec(ref) ?? [];
  const escape = (s = "") => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^(GET|HEAD) /v2/${escape(repo)}/manifests/${escape(tag)}$`);
}

/** An empty DOCKER_CONFIG, so credentials in ~/.docker cannot make an "anonymous" pull succeed. */
function emptyDockerConfig(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "podrun-test-noauth-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test("env.json describes the registries, images and a root-only password file", async (t) => {
  const env = requireTestEnv(t);
  if (!env) return;
  t.same(env.registries, { open: "127.0.0.1:5100", auth: "127.0.0.1:5101" });
  t.equal(env.auth.username, "podrun");
  t.equal(statSync(env.auth.passwordFile).mode & 0o077, 0, "password file is not readable by group or others");
  t.ok(readRegistryPassword(env).length >= 16, "password is long enough");
  t.equal(env.images.pause, "registry.k8s.io/pause:3.10");
  t.same(env.runtimes, ["docker", "podman"]);
});

t.test("docker pulls the busybox image from the open registry for real", async (t) => {
  const env = requireTestEnv(t);
  if (!env || !(await requireEngine(t, "docker")) || !(await requireRegistry(t, "open"))) return;
  // A tag of this test's own, pushed then removed locally: other test files running meanwhile
  // rely on the shared busybox tag staying present.
  const image = `${env.registries.open}/podrun-test/env-pull-${process.pid}-${Date.now()}:1`;
  await runCommand("docker", ["tag", env.images.busybox, image]);
  await runCommand("docker", ["push", "-q", image]);
  await runCommand("docker", ["rmi", image]);
  t.teardown(() => runCommand("docker", ["rmi", image], { reject: false }).then(() => undefined));
  const mark = registryLogMark(env, "open");
  await runCommand("docker", ["pull", image]);
  t.ok(
    countRegistryRequests(env, "open", { since: mark, match: manifestRequest(image) }) >= 1,
    "the registry served the manifest",
  );
  const run = await runCommand("docker", [
    "run",
    "--rm",
    image,
    "sh",
    "-c",
    "echo hello from $(busybox | head -n 1 | cut -d' ' -f1)",
  ]);
  t.equal(run.stdout, "hello from BusyBox");
});

t.test("the auth registry refuses an anonymous docker pull and accepts credentials from DOCKER_CONFIG", async (t) => {
  const env = requireTestEnv(t);
  if (!env || !(await requireEngine(t, "docker")) || !(await requireRegistry(t, "auth"))) return;
  const image = env.images.privateBusybox;
  t.teardown(() => runCommand("docker", ["rmi", image], { reject: false }).then(() => undefined));
  await runCommand("docker", ["rmi", image], { reject: false });

  const anonymous = await runCommand("docker", ["pull", image], {
    env: { DOCKER_CONFIG: emptyDockerConfig(t) },
    reject: false,
  });
  t.not(anonymous.exitCode, 0, "anonymous pull fails");
  t.match(anonymous.stderr, AUTH_REFUSED);

  const creds = createTempCredentials([
    { registry: env.registries.auth, username: env.auth.username, password: readRegistryPassword(env) },
  ]);
  t.teardown(() => creds.remove());
  const mark = registryLogMark(env, "auth");
  const pulled = await runCommand("docker", ["pull", image], { env: { DOCKER_CONFIG: creds.dir } });
  t.equal(pulled.exitCode, 0, "pull with credentials succeeds");
  t.ok(countRegistryRequests(env, "auth", { since: mark, match: manifestRequest(image) }) >= 1);
  t.notMatch(pulled.command, new RegExp(readRegistryPassword(env)), "password not in argv");
});

t.test("podman: the same with --authfile, over the insecure-registry drop-in", async (t) => {
  const env = requireTestEnv(t);
  if (!env || !(await requireEngine(t, "podman")) || !(await requireRegistry(t, "auth"))) return;
  const image = env.images.privateBusybox;
  t.teardown(() => runCommand("podman", ["rmi", "-f", image], { reject: false }).then(() => undefined));
  await runCommand("podman", ["rmi", "-f", image], { reject: false });

  // podman 4.3 rejects an --authfile that does not exist, so give it an empty one.
  const noAuth = join(emptyDockerConfig(t), "auth.json");
  writeFileSync(noAuth, '{"auths":{}}');
  const anonymous = await runCommand("podman", ["pull", "--authfile", noAuth, image], { reject: false });
  t.equal(anonymous.exitCode, 125, "anonymous pull fails");
  t.match(anonymous.stderr, AUTH_REFUSED);

  const creds = createTempCredentials([
    { registry: env.registries.auth, username: env.auth.username, password: readRegistryPassword(env) },
  ]);
  t.teardown(() => creds.remove());
  const pulled = await runCommand("podman", ["pull", "-q", "--authfile", creds.file, image], { reject: false });
  t.equal(pulled.exitCode, 0, `pull with --authfile succeeds ${pulled.stderr}`);
});

t.test("the pause image is in docker and podman under the kubelet's name, and stops cleanly", async (t) => {
  const env = requireTestEnv(t);
  if (!env || !(await requireEngine(t, "docker"))) return;
  const name = `podrun-test-pause-${process.pid}`;
  t.teardown(() => runCommand("docker", ["rm", "-f", name], { reject: false }).then(() => undefined));
  await runCommand("docker", ["run", "-d", "--name", name, env.images.pause]);
  await runCommand("docker", ["stop", "-t", "10", name]);
  const exit = await runCommand("docker", ["inspect", "--format", "{{.State.ExitCode}}", name]);
  t.equal(exit.stdout, "0", "exits 0 on SIGTERM");
  if (!(await requireEngine(t, "podman"))) return;
  t.equal((await runCommand("podman", ["image", "exists", env.images.pause], { reject: false })).exitCode, 0);
});
