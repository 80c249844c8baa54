// A pod's files for an engine that does not see this host's disk (pure parts, and the calls made
// to the helper through a recording fake engine; the helper itself runs against real engines in
// test/runtime/engine-files.e2e.test.ts and its Go tests).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { writeAtomically } from "../../../lib/pod/volumes/atomic-writer.js";
import {
  collectPodFiles,
  copiesPodFiles,
  copyToEngine,
  emptyDirEntries,
  filesVolumeName,
  filesVolumeOfPodDir,
  readFromEngine,
  terminationLogEntries,
} from "../../../lib/pod/volumes/engine-files.js";
import { toEngineSources } from "../../../lib/pod/volumes/mount-sources.js";
import type { HelperMount } from "../../../lib/runtime/types.js";

const pod = { name: "web", namespace: "ci" };

t.test("names: the files volume cannot be an emptyDir's (a '.' is in no volume name)", async (t) => {
  t.equal(filesVolumeName(pod), "ci_web_podrun.files");
  t.equal(filesVolumeOfPodDir("/state/pods/docker/ci_web"), "ci_web_podrun.files");
});

t.test("which pods are copied: an engine blind to this host's files; an fsGroup podrun cannot give", async (t) => {
  const cases: [{ shared: boolean } | undefined, number | undefined, number, boolean][] = [
    [undefined, undefined, 1000, false],
    [undefined, 2000, 1000, false],
    [{ shared: false }, undefined, 0, true],
    [{ shared: true }, undefined, 1000, false],
    [{ shared: true }, 2000, 0, false],
    [{ shared: true }, 2000, 1000, true],
  ];
  for (const [files, fsGroup, uid, want] of cases)
    t.equal(copiesPodFiles(files, fsGroup, uid), want, `${JSON.stringify(files)}, fsGroup ${fsGroup}, uid ${uid}`);
});

t.test("the pod directory's files, in the order the copy must apply them", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-engine-files-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, "volumes/config"), { recursive: true });
  await writeAtomically(
    join(dir, "volumes/config"),
    new Map([["greeting", { content: Buffer.from("hi"), mode: 0o644 }]]),
  );
  await writeFile(join(dir, "etc-hosts"), "127.0.0.1 localhost\n", { mode: 0o644 });
  await writeFile(join(dir, "pod.json"), "{}");
  const entries = await collectPodFiles(dir, ["volumes", "etc-hosts", "resolv.conf"], undefined);
  const names = entries.map((entry) => `${entry.type} ${entry.name.replace(/\.\.\d{4}_[\w.]+/, "..TS")}`);
  t.same(names, [
    "directory files/volumes",
    "directory files/volumes/config",
    "directory files/volumes/config/..TS",
    "file files/volumes/config/..TS/greeting",
    "symlink files/volumes/config/..data",
    "symlink files/volumes/config/greeting",
    "file files/etc-hosts",
  ]);
  t.ok(
    entries.every((entry) => entry.uid === 0 && entry.gid === 0),
    "root's on the engine's host",
  );
  t.equal(entries.find((entry) => entry.name === "files/etc-hosts")?.content?.toString(), "127.0.0.1 localhost\n");
  const grouped = await collectPodFiles(dir, ["volumes", "etc-hosts"], 2000);
  t.same(
    grouped.map((entry) => entry.gid),
    [0, 2000, 2000, 2000, 2000, 2000, 0],
    "the volumes' files the fsGroup's, /etc files root's",
  );
});

t.test("termination files and emptyDir roots, as the kubelet makes them", async (t) => {
  t.same(
    terminationLogEntries(["app"]).map((entry) => [entry.name, entry.type, entry.mode.toString(8)]),
    [
      ["files/containers", "directory", "750"],
      ["files/containers/app", "directory", "750"],
      ["files/containers/app/termination-log", "file", "666"],
    ],
  );
  t.same(terminationLogEntries([]), []);
  const volume = { name: "ci_web_cache", volume: "cache", labels: {} };
  t.match(emptyDirEntries([volume], undefined), [{ name: "empty/cache", type: "directory", mode: 0o777, gid: 0 }]);
  t.match(emptyDirEntries([volume], 2000), [{ name: "empty/cache", mode: 0o2777, gid: 2000 }]);
});

t.test("a copy: one helper run with the volumes mounted; an unchanged kept pod's is skipped", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-engine-copy-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const calls: { args: readonly string[]; mounts: readonly HelperMount[]; input?: Buffer }[] = [];
  const runtime = {
    runFilesHelper: async (args: readonly string[], options: { mounts: readonly HelperMount[]; input?: Buffer }) => {
      calls.push({ args, ...options });
      return { stdout: "", stderr: "warning: chown /files/x: operation not permitted\nother noise\n" };
    },
  };
  const copy = {
    pod,
    entries: terminationLogEntries(["app"]),
    owned: ["volumes"],
    emptyDirs: [{ name: "ci_web_cache", volume: "cache", labels: {} }],
    hashFile: join(dir, "hash"),
  };
  t.same(await copyToEngine(runtime, copy), ["chown /files/x: operation not permitted"]);
  t.same(calls[0]!.args, ["-files", "/", "files/volumes"]);
  t.same(calls[0]!.mounts, [
    { type: "volume", source: "ci_web_podrun.files", target: "/files" },
    { type: "volume", source: "ci_web_cache", target: "/empty/cache" },
  ]);
  t.ok(calls[0]!.input && calls[0]!.input.length % 512 === 0, "a tar archive on stdin");
  await copyToEngine(runtime, { ...copy, skipUnchanged: true });
  t.equal(calls.length, 1, "the same files: no second run");
  await copyToEngine(runtime, { ...copy, entries: terminationLogEntries(["app", "side"]), skipUnchanged: true });
  t.equal(calls.length, 2, "other files: copied");
  t.same(await copyToEngine(runtime, { pod, entries: [] }), [], "nothing to copy: no run");
  t.equal(calls.length, 2);
});

t.test("files read back through the helper", async (t) => {
  const runtime = {
    runFilesHelper: async (args: readonly string[]) => {
      t.same(args, ["-read", "/files/containers/a/termination-log", "/files/containers/b/termination-log"]);
      return { stdout: JSON.stringify({ "/files/containers/a/termination-log": "Ynll" }), stderr: "" };
    },
  };
  const read = await readFromEngine(runtime, "ci_web_podrun.files", [
    "containers/a/termination-log",
    "containers/b/termination-log",
  ]);
  t.same([...read.keys()], ["containers/a/termination-log"], "a missing file is left out");
  t.equal(read.get("containers/a/termination-log")?.toString(), "bye");
});

t.test("bind sources under the pod directory move to its copy on the engine's host", async (t) => {
  const mounts = [
    { volume: "config", target: "/etc/config", readOnly: true, source: "/state/pods/docker/ci_web/volumes/config" },
    { volume: "hosts", target: "/etc/hosts", readOnly: false, source: "/state/pods/docker/ci_web/etc-hosts" },
    { volume: "data", target: "/data", readOnly: false, source: "/srv/data" },
    { volume: "cache", target: "/cache", readOnly: false },
    { volume: "x", target: "/x", readOnly: false, source: "/state/pods/docker/ci_web2/etc-hosts" },
  ];
  const context = { podDir: "/state/pods/docker/ci_web", mountpoint: async () => "", touchDisk: true };
  t.same(toEngineSources(mounts, context), mounts, "no copy: unchanged");
  const moved = toEngineSources(mounts, { ...context, engineDir: "/var/lib/docker/volumes/ci_web_podrun.files/_data" });
  t.same(
    moved.map((mount) => mount.source),
    [
      "/var/lib/docker/volumes/ci_web_podrun.files/_data/volumes/config",
      "/var/lib/docker/volumes/ci_web_podrun.files/_data/etc-hosts",
      "/srv/data",
      undefined,
      "/state/pods/docker/ci_web2/etc-hosts",
    ],
  );
});
