// The env file a create reads, on real files: written 0600 alone in a 0700 directory named after
// its process, removed whole; and the directories a killed podrun left, removed by the next run.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import t from "tap";
import { writeEnvFile } from "../../lib/runtime/env-file.js";

t.test(
  "written 0600 in a 0700 directory of its own; remove takes the directory; a dead run's goes first",
  async (t) => {
    const base = await mkdtemp(join(tmpdir(), "podrun-envfile-test-"));
    t.teardown(() => rm(base, { recursive: true, force: true }));
    // What a SIGKILLed podrun left: its pid is no process's now (pid_max is at most 2^22), and it is old.
    const old = new Date(Date.now() - 5 * 60_000);
    const left = async (name: string, when: Date) => {
      await mkdir(join(base, name));
      await writeFile(join(base, name, "env"), "SECRET=x\n", { mode: 0o600 });
      await utimes(join(base, name), when, when);
      return join(base, name);
    };
    const dead = await left("podrun-env-4999999-abcdef", old);
    const mine = await left(`podrun-env-${process.pid}-ghijkl`, old);
    const young = await left("podrun-env-4999998-mnopqr", new Date());
    const other = await left("podrun-auth-4999999-stuvwx", old);

    const file = await writeEnvFile("A=1\n", base);
    t.equal(await readFile(file.path, "utf8"), "A=1\n");
    t.equal((await stat(file.path)).mode & 0o777, 0o600);
    t.equal((await stat(dirname(file.path))).mode & 0o777, 0o700);
    t.match(basename(dirname(file.path)), new RegExp(`^podrun-env-${process.pid}-`), "named after its process");
    t.notOk(existsSync(dead), "a dead run's env directory is removed");
    for (const kept of [mine, young, other])
      t.ok(existsSync(kept), `${basename(kept)} stays (alive, young, or not an env directory)`);
    await file.remove();
    t.notOk(existsSync(dirname(file.path)), "gone, directory and all");
  },
);
