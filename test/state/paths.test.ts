import t from "tap";
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ensureStateDir, resolveStateDir } from "../../lib/state/paths.js";
import { StateAccessError } from "../../lib/errors.js";

t.test("resolveStateDir: PODRUN_STATE_DIR, else XDG_STATE_HOME/podrun, else ~/.local/state/podrun", async (t) => {
  const home = "/home/u";
  const cases: [NodeJS.ProcessEnv, string][] = [
    [{ PODRUN_STATE_DIR: "/s", XDG_STATE_HOME: "/x" }, "/s"],
    [{ XDG_STATE_HOME: "/x" }, "/x/podrun"],
    [{}, "/home/u/.local/state/podrun"],
    [{ PODRUN_STATE_DIR: "", XDG_STATE_HOME: "/x" }, "/x/podrun"],
    [{ PODRUN_STATE_DIR: "", XDG_STATE_HOME: "" }, "/home/u/.local/state/podrun"],
    [{ XDG_STATE_HOME: "relative/x" }, "/home/u/.local/state/podrun"],
    [{ PODRUN_STATE_DIR: "rel/state" }, resolve("rel/state")],
  ];
  for (const [env, expected] of cases) t.equal(resolveStateDir(env, home), expected, JSON.stringify(env));
});

t.test("resolveStateDir defaults to the process environment and home", async (t) => {
  t.type(resolveStateDir(), "string");
});

t.test("ensureStateDir creates missing parents with mode 0700 and is idempotent", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "podrun-paths-"));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const dir = join(root, "a", "b", "podrun");
  t.equal(await ensureStateDir(dir), dir);
  t.equal((await stat(dir)).mode & 0o777, 0o700 & ~process.umask());
  t.equal(await ensureStateDir(dir), dir, "a second call is fine");
});

t.test("ensureStateDir names the path and the problem in one line", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "podrun-paths-"));
  t.teardown(() => rm(root, { recursive: true, force: true }));

  const file = join(root, "file");
  await writeFile(file, "x");
  const notDir = await ensureStateDir(file).catch((e: unknown) => e);
  t.ok(notDir instanceof StateAccessError);
  t.equal((notDir as StateAccessError).path, file);
  t.equal(
    (notDir as Error).message,
    `cannot use state directory ${file}: it exists and is not a directory; set PODRUN_STATE_DIR to a writable directory`,
  );

  const under = await ensureStateDir(join(file, "sub")).catch((e: unknown) => e);
  t.match((under as Error).message, /: a component of the path is not a directory \(ENOTDIR\)/);
});

t.test("ensureStateDir on a directory the user cannot write", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "podrun-paths-"));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const locked = join(root, "locked");
  await mkdir(locked, { mode: 0o755 });
  await chmod(root, 0o755);
  if (process.getuid?.() !== 0) await chmod(locked, 0o555);
  // Root passes every permission check: run the check as nobody instead.
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const script = fileURLToPath(new URL("./fixtures/ensure-dir.ts", import.meta.url));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", script, join(locked, "podrun"), locked],
    {
      ...asNobody,
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, HOME: tmpdir() },
    },
  );
  t.same(stdout.trimEnd().split("\n"), [
    `StateAccessError: cannot use state directory ${join(locked, "podrun")}: permission denied (EACCES); set PODRUN_STATE_DIR to a writable directory`,
    `StateAccessError: cannot use state directory ${locked}: permission denied (EACCES); set PODRUN_STATE_DIR to a writable directory`,
  ]);
});
