import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { PULL_AUTH_PREFIX } from "../../lib/runtime/pull-auth.js";
import { runCli, type CliResult } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { PAUSE, requireImage, requireRegistry, requireTestEnv } from "../harness/engine.js";
import { createTempCredentials } from "../harness/credentials.js";
import { readRegistryPassword, type TestEnv } from "../harness/env.js";
import { countRegistryRequests, registryLogMark } from "../harness/registry-log.js";

// Pulls from the htpasswd registry of scripts/test-env.sh with the credentials of a pod's
// imagePullSecrets (dockerconfigjson in data and in stringData, legacy dockercfg) and of
// --authfile, on docker and podman; a refused password fails with the reason and the secret's
// name, then backs off; of two matching secrets, the first wrong, the second pulls. After every
// run: the password is nowhere in the state directory, the output, or the process list sampled
// during the pull (arguments and environments), and no temporary credential file is left. The
// engines' own logins are the same before and after, and still refuse an anonymous pull.

const RUNTIMES = ["docker", "podman"] as const;
type Runtime = (typeof RUNTIMES)[number];

const base64 = (text: string) => Buffer.from(text).toString("base64");

interface Sandbox {
  runtime: Runtime;
  registry: string;
  image: string;
  username: string;
  password: string;
  /** What the greps look for: the password and the `auth` value carrying it. */
  secrets: string[];
  dir: string;
  /** podrun's TMPDIR: where a temporary credential directory would be left behind. */
  tmp: string;
  stateDir: string;
  name: string;
}

const pushed = new Map<Runtime, Promise<string>>();

/**
 * This file's own private image, pushed once per engine: other test files remove the shared
 * private image when they please, which could pull it from under a `create`.
 */
function pushPrivateImage(runtime: Runtime, env: TestEnv): Promise<string> {
  let image = pushed.get(runtime);
  if (!image) pushed.set(runtime, (image = pushAs(runtime, env)));
  return image;
}

async function pushAs(runtime: Runtime, env: TestEnv): Promise<string> {
  const image = `${env.registries.auth}/podrun-test/pull-auth-e2e:${runtime}-${process.pid}`;
  t.teardown(() => runCommand(runtime, ["rmi", "-f", image], { reject: false }).then(() => undefined));
  const creds = createTempCredentials([
    { registry: env.registries.auth, username: env.auth.username, password: readRegistryPassword(env) },
  ]);
  try {
    await runCommand(runtime, ["tag", env.images.busybox, image]);
    if (runtime === "podman") await runCommand(runtime, ["push", "-q", "--authfile", creds.file, image]);
    else await runCommand(runtime, ["push", "-q", image], { env: { DOCKER_CONFIG: creds.dir } });
  } finally {
    creds.remove();
  }
  return image;
}

async function setUp(t: Test, runtime: Runtime): Promise<Sandbox | undefined> {
  const env = requireTestEnv(t);
  if (
    !env ||
    !(await requireImage(t, runtime, PAUSE)) ||
    !(await requireImage(t, runtime, env.images.busybox)) ||
    !(await requireRegistry(t, "auth"))
  )
    return undefined;
  const image = await pushPrivateImage(runtime, env);
  // Absent locally: the pull transfers it, with the credentials under test.
  await runCommand(runtime, ["rmi", "-f", image], { reject: false });
  const password = readRegistryPassword(env);
  const username = env.auth.username;
  const dir = mkdtempSync(join(tmpdir(), "podrun-pull-auth-e2e-"));
  const tmp = join(dir, "tmp");
  const stateDir = join(dir, "state");
  mkdirSync(tmp, { mode: 0o700 });
  const name = `pull-auth-${runtime}-${randomBytes(3).toString("hex")}`;
  t.teardown(async () => {
    await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    runtime,
    registry: env.registries.auth,
    image,
    username,
    password,
    secrets: [password, base64(`${username}:${password}`)],
    dir,
    tmp,
    stateDir,
    name,
  };
}

/** An `auths` object with one entry per login, each keyed `registry`. */
function auths(entries: { registry: string; username: string; password: string }[]): Record<string, { auth: string }> {
  return Object.fromEntries(entries.map((e) => [e.registry, { auth: base64(`${e.username}:${e.password}`) }]));
}

/** A Secret of either type, its payload in `data` (base64) or `stringData`. */
function secretYaml(
  name: string,
  type: "dockerconfigjson" | "dockercfg",
  payload: object,
  field: "data" | "stringData",
): string {
  const key = type === "dockerconfigjson" ? ".dockerconfigjson" : ".dockercfg";
  const json = JSON.stringify(payload);
  const value = field === "data" ? base64(json) : `'${json}'`;
  return `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\ntype: kubernetes.io/${type}\n${field}:\n  ${key}: ${value}\n---\n`;
}

function podYaml(s: Sandbox, pullSecrets: string[]): string {
  const secrets =
    pullSecrets.length === 0 ? "" : `  imagePullSecrets:\n${pullSecrets.map((n) => `    - name: ${n}\n`).join("")}`;
  // Always: the registry is asked (and must accept the credentials) even when the image is
  // already local, as it is after the first pull of a test.
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${s.name}\nspec:\n  terminationGracePeriodSeconds: 1\n  restartPolicy: Never\n${secrets}  containers:\n    - name: app\n      image: ${s.image}\n      imagePullPolicy: Always\n      command: ["sleep", "30"]\n`;
}

function writeManifest(s: Sandbox, text: string): string {
  const file = join(s.dir, `pod-${randomBytes(2).toString("hex")}.yaml`);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

/** What a sampler saw while podrun ran: every process's arguments, and the environments of pulls. */
interface Samples {
  argLines: string[];
  environs: string[];
  sawPull: boolean;
}

/**
 * Samples every process's arguments (/proc/<pid>/cmdline, what `ps -eo args` prints) and the
 * environments of engine pulls (/proc/<pid>/environ), every 10 ms, until `until` settles. A pass
 * over /proc takes a few ms; a `ps` spawned for each pass, back to back, made this the suite's
 * busiest loop (a CPU for the whole of each `up`) and sampled no more often.
 */
async function sampleProcesses(until: Promise<unknown>): Promise<Samples> {
  const samples: Samples = { argLines: [], environs: [], sawPull: false };
  const argLines = new Set<string>();
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        argLines.add(cmdline.join(" ").trimEnd());
        if (!cmdline.includes("pull")) continue;
        samples.sawPull = true;
        samples.environs.push(readFileSync(`/proc/${pid}/environ`, "utf8").replaceAll("\0", "\n"));
      } catch {
        // gone meanwhile
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  samples.argLines = [...argLines];
  return samples;
}

interface Run extends CliResult {
  samples: Samples;
}

async function up(s: Sandbox, args: string[], file: string, env: Record<string, string> = {}): Promise<Run> {
  const run = runCli(["up", "--runtime", s.runtime, "--state-dir", s.stateDir, ...args, file], {
    env: { TMPDIR: s.tmp, ...env },
  });
  const [result, samples] = await Promise.all([run, sampleProcesses(run)]);
  return { ...result, samples };
}

/** Every file under `dir`, as text. */
function readTree(dir: string): string {
  let text = "";
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += readFileSync(join(entry.parentPath, entry.name), "utf8");
  }
  return text;
}

/** The password is nowhere podrun could have put it, and no temporary credential file is left. */
function assertNoLeak(t: Test, s: Sandbox, run: Run, options: { pulled?: boolean } = {}): void {
  const places: [string, string][] = [
    ["stdout", run.stdout],
    ["stderr", run.stderr],
    ["the state directory", readTree(s.stateDir)],
    ["process arguments", run.samples.argLines.join("\n")],
    ["environments of pulls", run.samples.environs.join("\n")],
  ];
  for (const [where, text] of places) {
    t.notOk(
      s.secrets.some((secret) => text.includes(secret)),
      `the password is not in ${where}`,
    );
  }
  if (options.pulled !== false && !run.samples.sawPull) t.comment("the sampler missed the pull process (it was quick)");
  t.same(
    readdirSync(s.tmp).filter((name) => name.startsWith(PULL_AUTH_PREFIX)),
    [],
    "no temporary credential file left",
  );
}

/** The engines' own credential files, to compare before and after. */
function readOwnLogins(): string {
  const files = [
    join(process.env["DOCKER_CONFIG"] || join(homedir(), ".docker"), "config.json"),
    join(process.env["XDG_RUNTIME_DIR"] || `/run/containers/${process.getuid?.() ?? 0}`, "containers", "auth.json"),
    `/run/containers/${process.getuid?.() ?? 0}/auth.json`,
    join(homedir(), ".config", "containers", "auth.json"),
  ];
  return files.map((file) => `${file}: ${readOr(file)}`).join("\n");
}

function readOr(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "<absent>";
  }
}

const ownLoginsBefore = readOwnLogins();

for (const runtime of RUNTIMES) {
  const good = (s: Sandbox) => [{ registry: s.registry, username: s.username, password: s.password }];
  const wrong = (s: Sandbox) => [{ registry: s.registry, username: s.username, password: `${s.password}-wrong` }];

  t.test(`${runtime}: pulls with a dockerconfigjson Secret and a legacy dockercfg Secret`, async (t) => {
    const s = await setUp(t, runtime);
    if (!s) return;
    // A dockerconfigjson Secret in stringData pulls in the two-secrets case below (second-right);
    // how each form of the Secret is read: test/credentials/docker-config.test.ts.
    const cases: [string, string][] = [
      ["dockerconfigjson in data", secretYaml("regcred", "dockerconfigjson", { auths: auths(good(s)) }, "data")],
      ["dockercfg in data", secretYaml("regcred", "dockercfg", auths(good(s)), "data")],
    ];
    for (const [label, secret] of cases) {
      await removeManagedContainers(runtime, { "io.kubernetes.pod.name": s.name });
      const run = await up(s, [], writeManifest(s, secret + podYaml(s, ["regcred"])));
      t.equal(run.exitCode, 0, `${label}: up succeeds\n${run.stderr}`);
      t.match(
        run.stdout,
        new RegExp(`Pulled +pod/${s.name}\\[app\\] +Successfully pulled image "${s.image}"`),
        `${label}: pulled`,
      );
      assertNoLeak(t, s, run);
    }
  });

  t.test(
    `${runtime}: pulls with --authfile or $REGISTRY_AUTH_FILE, and refuses a missing one before creating anything`,
    async (t) => {
      const s = await setUp(t, runtime);
      if (!s) return;
      const authFile = join(s.dir, "auth.json");
      writeFileSync(authFile, JSON.stringify({ auths: auths(good(s)) }), { mode: 0o600 });
      const file = writeManifest(s, podYaml(s, []));
      const run = await up(s, ["--authfile", authFile], file);
      t.equal(run.exitCode, 0, run.stderr);
      t.match(run.stdout, /Successfully pulled image/);
      assertNoLeak(t, s, run);

      await removeManagedContainers(runtime, { "io.kubernetes.pod.name": s.name });
      const fromEnv = await up(s, [], file, { REGISTRY_AUTH_FILE: authFile });
      t.equal(fromEnv.exitCode, 0, `$REGISTRY_AUTH_FILE: ${fromEnv.stderr}`);
      assertNoLeak(t, s, fromEnv);

      const missing = await up(s, ["--authfile", join(s.dir, "nope.json")], file);
      t.equal(missing.exitCode, 2);
      t.match(missing.stderr, new RegExp(`auth file ${join(s.dir, "nope.json")}: no such file`));
      t.equal(missing.stdout, "", "no event: nothing was started");
    },
  );

  t.test(`${runtime}: a wrong password fails with the auth reason naming the secret, then backs off`, async (t) => {
    const s = await setUp(t, runtime);
    if (!s) return;
    const env = requireTestEnv(t)!;
    const file = writeManifest(
      s,
      secretYaml("badcred", "dockerconfigjson", { auths: auths(wrong(s)) }, "data") + podYaml(s, ["badcred"]),
    );
    const failed = await up(s, [], file);
    t.equal(failed.exitCode, 1);
    t.match(
      failed.stdout,
      new RegExp(`Warning +Failed +pod/${s.name}\\[app\\] +Failed to pull image "${s.image}": .*unauthorized`),
    );
    t.match(
      failed.stderr,
      /Error: ErrImagePull: pod\/\S+: container app: .*unauthorized.*\(the registry refused the credentials from secret "badcred": check it\)/,
    );
    assertNoLeak(t, s, failed);

    const mark = registryLogMark(env, "auth");
    const again = await up(s, [], file);
    t.equal(again.exitCode, 1);
    t.match(again.stdout, new RegExp(`Normal +BackOff +pod/${s.name}\\[app\\] +Back-off pulling image "${s.image}"`));
    t.match(again.stderr, /Error: ImagePullBackOff: .*ErrImagePull: .*secret "badcred"/);
    t.equal(
      countRegistryRequests(env, "auth", { since: mark, match: /\/v2\/podrun-test\/pull-auth-e2e\// }),
      0,
      "the registry was not asked",
    );
    t.match(readTree(s.stateDir), /"lastError": "ErrImagePull: .*secret \\"badcred\\"/, "the back-off file says why");
    assertNoLeak(t, s, again, { pulled: false });
  });

  t.test(`${runtime}: of two matching secrets, the first refused, the second pulls`, async (t) => {
    const s = await setUp(t, runtime);
    if (!s) return;
    const env = requireTestEnv(t)!;
    const file = writeManifest(
      s,
      secretYaml("first-wrong", "dockerconfigjson", { auths: auths(wrong(s)) }, "data") +
        secretYaml("second-right", "dockerconfigjson", { auths: auths(good(s)) }, "stringData") +
        podYaml(s, ["first-wrong", "second-right"]),
    );
    const mark = registryLogMark(env, "auth");
    const run = await up(s, [], file);
    t.equal(run.exitCode, 0, run.stderr);
    t.match(run.stdout, /Successfully pulled image/);
    t.notMatch(run.stdout, /Warning/, "one Pulling, one Pulled: the refused attempt is not a failed pull");
    const refused = countRegistryRequests(env, "auth", {
      since: mark,
      match: /\/v2\/podrun-test\/pull-auth-e2e\/manifests\//,
    });
    t.ok(refused >= 2, "the registry was asked twice (once per credential)");
    assertNoLeak(t, s, run);
  });

  t.test(`${runtime}: the engine's own login is unchanged, and an anonymous pull is still refused`, async (t) => {
    const s = await setUp(t, runtime);
    if (!s) return;
    t.equal(readOwnLogins(), ownLoginsBefore, "no credential file of the engine's changed");
    const anonymous = await runCommand(runtime, ["pull", "--quiet", s.image], { reject: false });
    t.not(anonymous.exitCode, 0, "not logged in to the registry");
    t.match(anonymous.stderr, /unauthorized|authentication required|no basic auth/i);
  });
}

t.test("docker: a docker context of the user's (DOCKER_CONTEXT) still answers the pull", async (t) => {
  const s = await setUp(t, "docker");
  if (!s) return;
  // The user's config dir, with a named context for the local daemon: had the temporary
  // DOCKER_CONFIG lost the contexts, the CLI would fail with "context … not found".
  const userConfig = join(s.dir, "user-docker");
  mkdirSync(userConfig, { mode: 0o700 });
  await runCommand("docker", ["context", "create", "podrun-e2e", "--docker", "host=unix:///var/run/docker.sock"], {
    env: { DOCKER_CONFIG: userConfig },
  });
  const file = writeManifest(
    s,
    secretYaml(
      "regcred",
      "dockerconfigjson",
      { auths: { [s.registry]: { auth: base64(`${s.username}:${s.password}`) } } },
      "data",
    ) + podYaml(s, ["regcred"]),
  );
  const run = runCli(["up", "--runtime", "docker", "--state-dir", s.stateDir, file], {
    env: { TMPDIR: s.tmp, DOCKER_CONFIG: userConfig, DOCKER_CONTEXT: "podrun-e2e" },
  });
  const [result, samples] = await Promise.all([run, sampleProcesses(run)]);
  t.equal(result.exitCode, 0, result.stderr);
  t.match(result.stdout, /Successfully pulled image/);
  assertNoLeak(t, s, { ...result, samples });
  t.ok(readdirSync(join(userConfig, "contexts", "meta")).length === 1, "the user's context is still there");
});
