// Registry credentials for one pull, per engine: the key the engine looks up, the argv and the
// environment (goldens), the file's modes and content, the user's docker context carried over,
// and nothing left behind: after a failure, an abort, or in dry-run mode (where nothing is written).
import t, { type Test } from "tap";
import {
  chmodSync,
  existsSync,
  utimesSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RegistryCredential } from "../../lib/credentials/types.js";
import { CliRuntime } from "../../lib/runtime/cli-runtime.js";
import { getDialect } from "../../lib/runtime/dialects.js";
import {
  buildAuthConfig,
  buildPullArgs,
  buildPullEnv,
  formatAuthKey,
  preparePullAuth,
  PULL_AUTH_PREFIX,
  removeLeftBehind,
} from "../../lib/runtime/pull-auth.js";
import { PullError } from "../../lib/runtime/pull-errors.js";
import type { RuntimeCommand } from "../../lib/runtime/types.js";

const PASSWORD = "s3cr3t-Pa55";
const credential: RegistryCredential = {
  username: "ci",
  password: PASSWORD,
  registry: "*.example.com",
  source: 'secret "regcred"',
};
const AUTH = Buffer.from(`ci:${PASSWORD}`).toString("base64");

t.test("the auths key is the key the engine looks the image's registry up by", async (t) => {
  const cases: [string, string, string][] = [
    // image, docker and nerdctl, podman
    ["busybox:1.36", "https://index.docker.io/v1/", "docker.io"],
    ["library/busybox:1", "https://index.docker.io/v1/", "docker.io"],
    ["docker.io/library/busybox:1", "https://index.docker.io/v1/", "docker.io"],
    ["index.docker.io/team/app:1", "https://index.docker.io/v1/", "docker.io"],
    ["127.0.0.1:5101/podrun-test/private-busybox:1.36", "127.0.0.1:5101", "127.0.0.1:5101"],
    ["registry.example.com/team/app@sha256:" + "a".repeat(64), "registry.example.com", "registry.example.com"],
    ["localhost/app:1", "localhost", "localhost"],
  ];
  for (const [image, docker, podman] of cases) {
    t.equal(formatAuthKey(getDialect("docker"), image), docker, `docker ${image}`);
    t.equal(formatAuthKey(getDialect("nerdctl"), image), docker, `nerdctl ${image}`);
    t.equal(formatAuthKey(getDialect("podman"), image), podman, `podman ${image}`);
  }
});

t.test("goldens: argv and environment of a pull with and without a credential", async (t) => {
  t.same(buildPullArgs("busybox:1"), ["pull", "busybox:1"]);
  t.same(buildPullArgs("busybox:1", ["--authfile", "/tmp/podrun-auth-x/auth.json"]), [
    "pull",
    "--authfile",
    "/tmp/podrun-auth-x/auth.json",
    "busybox:1",
  ]);
  t.same(buildPullEnv("/tmp/podrun-auth-x"), { DOCKER_CONFIG: "/tmp/podrun-auth-x", DOCKER_AUTH_CONFIG: undefined });
  const image = "registry.example.com/app:1";
  t.same(
    buildAuthConfig({ dialect: getDialect("docker"), image, credential, settings: { currentContext: "remote" } }),
    { auths: { "registry.example.com": { auth: AUTH } }, currentContext: "remote" },
  );
  t.same(
    buildAuthConfig({ dialect: getDialect("podman"), image, credential, settings: { currentContext: "remote" } }),
    { auths: { "registry.example.com": { auth: AUTH } } },
    "podman has no contexts",
  );
});

/** A docker config dir of the user's, with a current context and its definitions. */
function makeUserDockerConfig(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), "podrun-test-userdocker-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      auths: { "127.0.0.1:5101": { auth: "dXNlcjpvdGhlcg==" } },
      credsStore: "desktop",
      currentContext: "remote",
    }),
  );
  mkdirSync(join(dir, "contexts", "meta", "abc"), { recursive: true });
  writeFileSync(join(dir, "contexts", "meta", "abc", "meta.json"), '{"Name":"remote"}');
  return dir;
}

t.test(
  "docker: a 0700 DOCKER_CONFIG with a 0600 config.json of this one registry, the user's context kept, removed by dispose",
  async (t) => {
    const user = makeUserDockerConfig(t);
    const auth = await preparePullAuth({
      dialect: getDialect("docker"),
      image: "127.0.0.1:5101/podrun-test/private-busybox:1.36",
      credential,
      env: { DOCKER_CONFIG: user },
    });
    const dir = auth.env["DOCKER_CONFIG"]!;
    t.match(dir, new RegExp(`/${PULL_AUTH_PREFIX}${process.pid}-[^/]+$`));
    t.same(auth.args, [], "nothing in argv");
    t.same(Object.keys(auth.env).sort(), ["DOCKER_AUTH_CONFIG", "DOCKER_CONFIG"]);
    t.equal(statSync(dir).mode & 0o777, 0o700);
    t.equal(statSync(join(dir, "config.json")).mode & 0o777, 0o600);
    t.same(
      JSON.parse(readFileSync(join(dir, "config.json"), "utf8")),
      { auths: { "127.0.0.1:5101": { auth: AUTH } }, currentContext: "remote" },
      "only this registry; no credsStore",
    );
    t.ok(lstatSync(join(dir, "contexts")).isSymbolicLink());
    t.equal(readlinkSync(join(dir, "contexts")), join(user, "contexts"));
    await auth.dispose();
    await auth.dispose();
    t.notOk(existsSync(dir), "gone");
    t.ok(existsSync(join(user, "contexts", "meta", "abc", "meta.json")), "the user's contexts are untouched");
    t.same(
      (JSON.parse(readFileSync(join(user, "config.json"), "utf8")) as { auths: unknown }).auths,
      { "127.0.0.1:5101": { auth: "dXNlcjpvdGhlcg==" } },
      "and so is the user's login",
    );
  },
);

t.test("docker without a config of the user's: no context, no link", async (t) => {
  const auth = await preparePullAuth({
    dialect: getDialect("nerdctl"),
    image: "busybox:1",
    credential,
    env: { DOCKER_CONFIG: join(tmpdir(), "podrun-test-none-here") },
  });
  t.teardown(() => auth.dispose());
  const dir = auth.env["DOCKER_CONFIG"]!;
  t.same(readdirSync(dir), ["config.json"]);
  t.same(JSON.parse(readFileSync(join(dir, "config.json"), "utf8")), {
    auths: { "https://index.docker.io/v1/": { auth: AUTH } },
  });
});

t.test("podman: --authfile to a 0600 file in a 0700 directory; no environment", async (t) => {
  const auth = await preparePullAuth({ dialect: getDialect("podman"), image: "127.0.0.1:5101/x:1", credential });
  t.equal(auth.args[0], "--authfile");
  const file = auth.args[1]!;
  t.same(auth.env, {});
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.equal(statSync(join(file, "..")).mode & 0o777, 0o700);
  t.same(JSON.parse(readFileSync(file, "utf8")), { auths: { "127.0.0.1:5101": { auth: AUTH } } });
  await auth.dispose();
  t.notOk(existsSync(join(file, "..")));
});

/**
 * A fake engine CLI: records its argv, DOCKER_CONFIG and the credential file it was given, then
 * fails the way a registry refusing credentials does, quoting the password (the worst case), or
 * sleeps until killed when $FAKE_SLEEP is set.
 */
function makeFakeEngine(t: Test): { binary: string; record: string } {
  const dir = mkdtempSync(join(tmpdir(), "podrun-test-fake-engine-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const record = join(dir, "record");
  const binary = join(dir, "engine");
  writeFileSync(
    binary,
    `#!/bin/sh
{ echo "ARGS $*"; echo "DOCKER_CONFIG \${DOCKER_CONFIG:-}"
  if [ -n "\${DOCKER_CONFIG:-}" ]; then cat "$DOCKER_CONFIG/config.json"; fi
  while [ $# -gt 0 ]; do if [ "$1" = --authfile ]; then cat "$2"; fi; shift; done; } > "${record}"
if [ -n "\${FAKE_SLEEP:-}" ]; then exec sleep 30; fi
echo "Error response from daemon: Head \\"https://127.0.0.1:5101/v2/x/manifests/1\\": unauthorized: bad password ${PASSWORD} for ci" >&2
exit 1
`,
  );
  chmodSync(binary, 0o755);
  return { binary, record };
}

function listAuthDirs(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith(PULL_AUTH_PREFIX));
}

for (const name of ["docker", "podman", "nerdctl"] as const) {
  t.test(
    `${name}: a refused pull: the file reached the CLI, the error names the secret and never the password, the file is gone`,
    async (t) => {
      const fake = makeFakeEngine(t);
      const before = listAuthDirs();
      const rt = new CliRuntime({ name, binary: fake.binary });
      const error = await rt.pullImage("127.0.0.1:5101/x:1", { credential }).then(
        () => undefined,
        (e: unknown) => e,
      );
      t.ok(error instanceof PullError);
      const pull = error as PullError;
      t.match(pull, { reason: "ErrImagePull", kind: "unauthorized" });
      t.match(
        pull.message,
        /unauthorized: bad password <redacted> for ci \(the registry refused the credentials from secret "regcred": check it\)$/,
      );
      t.notMatch(
        `${pull.message}\n${pull.stderr}\n${String((pull.cause as Error).message)}`,
        PASSWORD,
        "nowhere in the error or its cause",
      );
      const record = readFileSync(fake.record, "utf8");
      t.notMatch(record.split("\n")[0]!, PASSWORD, "not in argv");
      t.match(record, AUTH, "the engine got the credential");
      if (name === "podman") {
        t.match(record, /^ARGS pull --authfile \S+\/podrun-auth-[\w-]+\/auth\.json 127\.0\.0\.1:5101\/x:1$/m);
        t.match(record, /^DOCKER_CONFIG $/m);
      } else {
        t.match(record, /^ARGS pull 127\.0\.0\.1:5101\/x:1$/m);
        t.match(record, /^DOCKER_CONFIG \S+\/podrun-auth-[\w-]+$/m);
      }
      t.same(
        listAuthDirs().filter((d) => !before.includes(d)),
        [],
        "the temporary credentials are gone",
      );
    },
  );
}

t.test("an aborted pull removes its credential file too", async (t) => {
  const fake = makeFakeEngine(t);
  process.env["FAKE_SLEEP"] = "1";
  t.teardown(() => delete process.env["FAKE_SLEEP"]);
  const before = listAuthDirs();
  const controller = new AbortController();
  const rt = new CliRuntime({ name: "docker", binary: fake.binary });
  const pulling = rt.pullImage("127.0.0.1:5101/x:1", { credential, signal: controller.signal });
  for (let i = 0; i < 100 && !existsSync(fake.record); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(listAuthDirs().filter((d) => !before.includes(d)).length, 1, "the file exists while the pull runs");
  controller.abort();
  await t.rejects(pulling);
  t.same(
    listAuthDirs().filter((d) => !before.includes(d)),
    [],
    "gone after the abort",
  );
});

t.test("dry run: the credential is named by its source, nothing is written", async (t) => {
  const before = listAuthDirs();
  for (const name of ["docker", "podman"] as const) {
    const recorded: RuntimeCommand[] = [];
    const rt = new CliRuntime({ name, binary: name, dryRun: { record: (c) => recorded.push(c) } });
    await rt.pullImage("127.0.0.1:5101/x:1", { credential });
    t.same(
      recorded,
      name === "podman"
        ? [
            {
              binary: "podman",
              args: ["pull", "--authfile", '<credentials of secret "regcred">', "127.0.0.1:5101/x:1"],
            },
          ]
        : [
            {
              binary: "docker",
              args: ["pull", "127.0.0.1:5101/x:1"],
              env: { DOCKER_CONFIG: '<credentials of secret "regcred">' },
            },
          ],
      name,
    );
  }
  t.same(
    listAuthDirs().filter((d) => !before.includes(d)),
    [],
  );
});

t.test(
  "directories left by a podrun that was killed are removed; those of live processes, and fresh ones, stay",
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "podrun-test-sweep-"));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const dead = 2 ** 22 + 12345; // above pid_max's default: no such process
    const old = new Date(Date.now() - 5 * 60_000);
    for (const name of [
      `podrun-auth-${dead}-old`,
      `podrun-auth-${dead}-fresh`,
      `podrun-auth-${process.pid}-mine`,
      "podrun-env-x",
      "other",
    ]) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "config.json"), "{}");
      if (!name.endsWith("fresh")) utimesSync(join(dir, name), old, old);
    }
    await removeLeftBehind(dir);
    t.same(
      readdirSync(dir).sort(),
      [`podrun-auth-${dead}-fresh`, `podrun-auth-${process.pid}-mine`, "other", "podrun-env-x"].sort(),
    );
  },
);
