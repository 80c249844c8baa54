// hostPath type checks on real files, directories, a socket, /dev/null (a character device) and
// a block device when the machine has one, with the kubelet's error texts.
import { createServer } from "node:net";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { checkHostPathNow, prepareHostPath } from "../../../lib/pod/volumes/host-path.js";

t.test("every type against every kind of file", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-hostpath-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "file");
  await writeFile(file, "x");
  const socket = join(dir, "sock");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const block = ["/dev/loop0", "/dev/sda", "/dev/vda"].find((path) => existsSync(path));

  const check = async (path: string, type: string | undefined) =>
    prepareHostPath(path, type).then(
      () => "ok",
      (error: Error) => error.message,
    );
  t.equal(await check(dir, "Directory"), "ok");
  t.equal(await check(file, "File"), "ok");
  t.equal(await check(socket, "Socket"), "ok");
  t.equal(await check("/dev/null", "CharDevice"), "ok");
  t.equal(await check(file, "Directory"), `hostPath type check failed: ${file} is not a directory, it's a File`);
  t.equal(await check(dir, "File"), `hostPath type check failed: ${dir} is not a file, it's a Directory`);
  t.equal(await check(file, "Socket"), `hostPath type check failed: ${file} is not a socket file, it's a File`);
  t.equal(
    await check(file, "CharDevice"),
    `hostPath type check failed: ${file} is not a character device, it's a File`,
  );
  t.equal(
    await check("/dev/null", "BlockDevice"),
    "hostPath type check failed: /dev/null is not a block device, it's a CharDevice",
  );
  t.equal(await check(dir, "DirectoryOrCreate"), "ok");
  t.equal(
    await check(file, "DirectoryOrCreate"),
    `hostPath type check failed: ${file} is not a directory, it's a File`,
  );
  t.equal(await check(dir, "FileOrCreate"), `hostPath type check failed: ${dir} is not a file, it's a Directory`);
  t.equal(await check(join(dir, "missing"), "Directory"), `hostPath ${join(dir, "missing")} doesn't exist`);
  t.equal(await check(join(dir, "missing"), "File"), `hostPath ${join(dir, "missing")} doesn't exist`);
  t.equal(await check(dir, "Bogus"), "Bogus is an invalid volume type");
  if (block) t.equal(await check(block, "BlockDevice"), "ok", block);

  t.equal(await check(join(dir, "made/deep"), "DirectoryOrCreate"), "ok");
  t.equal((await stat(join(dir, "made/deep"))).mode & 0o777, 0o755, "DirectoryOrCreate makes 0755 (and its parents)");
  t.equal(await check(join(dir, "new-file"), "FileOrCreate"), "ok");
  const made = await stat(join(dir, "new-file"));
  t.ok(made.isFile() && made.size === 0 && (made.mode & 0o777) === 0o644, "FileOrCreate makes an empty 0644 file");
  t.equal(
    await check(join(dir, "no-parent/file"), "FileOrCreate"),
    `open ${join(dir, "no-parent/file")}: no such file or directory`,
    "but not its parent",
  );
  t.equal(await check(join(dir, "unset"), undefined), "ok");
  t.ok(
    (await stat(join(dir, "unset"))).isDirectory(),
    "unset type: a missing path becomes a directory, as the CRI runtimes make it",
  );
  t.equal(await check(file, ""), "ok", "unset type checks nothing");

  // The manifest reader's check, made before anything is created: the same verdicts, nothing made.
  const cases: [string, string | undefined][] = [
    [dir, "Directory"],
    [file, "Directory"],
    [dir, "File"],
    [file, "Socket"],
    [socket, "Socket"],
    ["/dev/null", "BlockDevice"],
    [join(dir, "missing"), "Directory"],
    [dir, "Bogus"],
    [file, "DirectoryOrCreate"],
  ];
  for (const [path, type] of cases) {
    const expected = await check(path, type);
    t.equal(checkHostPathNow(path, type) ?? "ok", expected, `checkHostPathNow(${path}, ${type})`);
  }
  for (const type of ["DirectoryOrCreate", "FileOrCreate", undefined]) {
    t.equal(checkHostPathNow(join(dir, "not-yet"), type), undefined, `${type}: would be made`);
    t.notOk(existsSync(join(dir, "not-yet")), `${type}: checkHostPathNow makes nothing`);
  }

  await mkdir(join(dir, "dry"), { recursive: true });
  await prepareHostPath(join(dir, "dry/new"), "DirectoryOrCreate", { create: false });
  t.notOk(existsSync(join(dir, "dry/new")), "a dry run creates nothing");
});
