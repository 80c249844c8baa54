// The tar writer, read back by a real tar (GNU tar, as Go's archive/tar reads the same POSIX
// format): names, long names and link targets (PAX), modes with setgid, owners, contents.
import { lstat, mkdtemp, readFile, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { execa } from "execa";
import { writeTar, type TarEntry } from "../../../lib/pod/volumes/tar.js";

const long = `${"k".repeat(200)}.conf`;
const ENTRIES: TarEntry[] = [
  { name: "files", type: "directory", mode: 0o2775, uid: 0, gid: 2000 },
  { name: "files/a", type: "file", mode: 0o640, uid: 0, gid: 2000, content: Buffer.from("one\n") },
  { name: `files/${long}`, type: "file", mode: 0o444, uid: 0, gid: 0, content: Buffer.alloc(1500, "x") },
  { name: "files/empty", type: "file", mode: 0o666, uid: 0, gid: 0 },
  { name: "files/..data", type: "symlink", mode: 0o777, uid: 0, gid: 0, linkname: "..2026_01_01" },
  { name: "files/far", type: "symlink", mode: 0o777, uid: 0, gid: 0, linkname: `..data/${long}` },
  { name: "files/é", type: "file", mode: 0o600, uid: 0, gid: 0, content: Buffer.from("accent") },
];

t.test("GNU tar lists and extracts what writeTar wrote", async (t) => {
  const archive = writeTar(ENTRIES);
  t.equal(archive.length % 512, 0, "whole blocks");
  t.same(archive.subarray(-1024), Buffer.alloc(1024), "ended by two zero blocks");
  t.same(writeTar(ENTRIES), archive, "the same entries, the same bytes (no times)");
  const listed = await execa("tar", ["-tvf", "-", "--numeric-owner"], { input: archive });
  const lines = listed.stdout.split("\n");
  t.equal(lines.length, ENTRIES.length);
  t.match(lines[0], /^drwxrwsr-x 0\/2000\s+0 1970-01-01 00:00 files\/$/);
  t.match(lines[1], /^-rw-r----- 0\/2000\s+4 .* files\/a$/);
  t.match(lines[2], new RegExp(`^-r--r--r-- 0/0\\s+1500 .* files/${long}$`), "a name past 100 bytes, whole");
  t.match(lines[5], new RegExp(`^lrwxrwxrwx .* files/far -> \\.\\.data/${long}$`), "a target past 100 bytes");

  const dir = await mkdtemp(join(tmpdir(), "podrun-tar-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await execa("tar", ["-xf", "-", "-C", dir, "--same-permissions", "--numeric-owner"], { input: archive });
  t.equal(await readFile(join(dir, "files/a"), "utf8"), "one\n");
  t.equal((await readFile(join(dir, `files/${long}`))).length, 1500);
  t.equal((await readFile(join(dir, "files/empty"))).length, 0);
  t.equal(await readFile(join(dir, "files/é"), "utf8"), "accent");
  t.equal(await readlink(join(dir, "files/..data")), "..2026_01_01");
  t.equal((await lstat(join(dir, "files/a"))).mode & 0o7777, 0o640);
  t.equal((await lstat(join(dir, "files"))).mode & 0o7777, 0o2775, "setgid kept");
});
