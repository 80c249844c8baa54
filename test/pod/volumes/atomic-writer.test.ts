// The kubelet's AtomicWriter layout on a real directory: a timestamped data directory, `..data`,
// one symlink per top-level entry; an update swaps `..data` and removes what left the payload.
import { lstat, mkdtemp, readdir, readFile, readlink, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import {
  checkPayloadPath,
  formatDataDirPrefix,
  writeAtomically,
  type FileProjection,
} from "../../../lib/pod/volumes/atomic-writer.js";

const file = (text: string, mode = 0o644): FileProjection => ({ content: Buffer.from(text), mode });

async function tempDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-atomic-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

t.test("first write: data directory, ..data, top-level links; modes as given whatever the umask", async (t) => {
  const dir = await tempDir(t);
  const umask = process.umask(0o077);
  try {
    await writeAtomically(
      dir,
      new Map([
        ["app.properties", file("a=1\n")],
        ["conf/nested/app.ini", file("x", 0o755)],
        ["secret", file("s", 0o400)],
      ]),
    );
  } finally {
    process.umask(umask);
  }
  const entries = (await readdir(dir)).sort();
  t.equal(entries.length, 5);
  const dataDir = await readlink(join(dir, "..data"));
  t.match(dataDir, /^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.\w+$/);
  t.same(entries, ["..data", dataDir, "app.properties", "conf", "secret"].sort());
  t.equal(await readlink(join(dir, "app.properties")), "..data/app.properties");
  t.equal(await readlink(join(dir, "conf")), "..data/conf");
  t.equal((await stat(join(dir, dataDir))).mode & 0o777, 0o755);
  t.equal((await stat(join(dir, "conf/nested"))).mode & 0o777, 0o755);
  t.equal((await stat(join(dir, "conf/nested/app.ini"))).mode & 0o777, 0o755);
  t.equal((await stat(join(dir, "secret"))).mode & 0o777, 0o400);
  t.equal((await stat(join(dir, "app.properties"))).mode & 0o777, 0o644);
  t.equal(await readFile(join(dir, "conf/nested/app.ini"), "utf8"), "x");
});

t.test(
  "an update swaps ..data, removes what left the payload and the old data directory; an equal payload writes nothing",
  async (t) => {
    const dir = await tempDir(t);
    await writeAtomically(
      dir,
      new Map([
        ["a", file("1")],
        ["b", file("2")],
      ]),
    );
    const first = await readlink(join(dir, "..data"));
    await writeAtomically(
      dir,
      new Map([
        ["a", file("1")],
        ["b", file("2")],
      ]),
    );
    t.equal(await readlink(join(dir, "..data")), first, "same payload: same data directory");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await writeAtomically(
      dir,
      new Map([
        ["a", file("one")],
        ["c", file("3", 0o600)],
      ]),
    );
    const second = await readlink(join(dir, "..data"));
    t.not(second, first);
    t.same((await readdir(dir)).sort(), ["..data", second, "a", "c"].sort(), "b and the old data directory are gone");
    t.equal(await readFile(join(dir, "a"), "utf8"), "one");
    await writeAtomically(
      dir,
      new Map([
        ["a", file("one", 0o400)],
        ["c", file("3", 0o600)],
      ]),
    );
    t.not(await readlink(join(dir, "..data")), second, "a mode change is a change");
    await writeAtomically(dir, new Map());
    t.same(
      (await readdir(dir)).filter((e) => !e.startsWith("..")),
      [],
      "an empty payload leaves no entry",
    );
  },
);

t.test("a directory in the way of a top-level link gives way (a subPath made before the key existed)", async (t) => {
  const dir = await tempDir(t);
  await writeAtomically(dir, new Map([["a", file("1")]]));
  const { mkdir } = await import("node:fs/promises");
  await mkdir(join(dir, "later"));
  await writeAtomically(
    dir,
    new Map([
      ["a", file("1")],
      ["later", file("2")],
    ]),
  );
  t.ok((await lstat(join(dir, "later"))).isSymbolicLink());
});

t.test("payload paths: relative, no '..'", async (t) => {
  t.equal(checkPayloadPath("a/b"), undefined);
  t.equal(checkPayloadPath("/a"), "must be relative");
  t.equal(checkPayloadPath("a/../b"), "must not contain '..'");
  t.equal(checkPayloadPath("..a"), "must not start with '..'");
  t.equal(checkPayloadPath(""), "must not be empty");
  await t.rejects(writeAtomically("/nonexistent", new Map([["../x", file("")]])), /must not contain/);
  t.equal(formatDataDirPrefix(new Date(Date.UTC(2026, 0, 2, 3, 4, 5))), "..2026_01_02_03_04_05.");
});
