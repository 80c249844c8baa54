// The kubelet's fsGroup walk on real files: modes for read-write (emptyDir) and read-only
// (configMap, secret…) kinds, setgid on directories, symlinks left alone, the group changed
// (only as root: another user may not give a file to a group it is not in), and what an unprivileged
// run reports instead. Also the hook in the atomic writer and the emptyDir set-up on a fake engine.
import { chmod, lstat, mkdir, mkdtemp, readdir, readlink, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { createRecorder } from "../../../lib/events/recorder.js";
import { writeAtomically } from "../../../lib/pod/volumes/atomic-writer.js";
import { setUpEmptyDirs } from "../../../lib/pod/volumes/empty-dir-setup.js";
import {
  describeOwnershipFailure,
  fsGroupMode,
  setVolumeOwnership,
} from "../../../lib/pod/volumes/volume-ownership.js";
import { volumeRuntimeName } from "../../../lib/pod/volumes/volume-plan.js";
import { FakeRuntime } from "../../harness/fake-runtime.js";
import type { PodSpec } from "kubernetes-types/core/v1.js";

const isRoot = process.getuid?.() === 0;
const FS_GROUP = 2000;

async function tempDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-ownership-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const modeOf = async (path: string) => (await lstat(path)).mode & 0o7777;

t.test(
  "fsGroupMode: the kubelet's masks (rw 0660, ro 0440, directories + setgid and 0110), other bits kept",
  async (t) => {
    t.equal(fsGroupMode(0o644, { directory: false, readOnly: false }), 0o664);
    t.equal(fsGroupMode(0o644, { directory: false, readOnly: true }), 0o644);
    t.equal(
      fsGroupMode(0o400, { directory: false, readOnly: true }),
      0o440,
      "a 0400 secret becomes readable by the group",
    );
    t.equal(fsGroupMode(0o600, { directory: false, readOnly: false }), 0o660);
    t.equal(fsGroupMode(0o755, { directory: true, readOnly: true }), 0o2755);
    t.equal(fsGroupMode(0o700, { directory: true, readOnly: false }), 0o2770);
    t.equal(fsGroupMode(0o777, { directory: true, readOnly: false }), 0o2777, "an emptyDir's root");
    t.equal(fsGroupMode(0o1777, { directory: true, readOnly: false }), 0o3777, "a tmpfs root keeps its sticky bit");
    t.equal(fsGroupMode(0o100644, { directory: false, readOnly: false }), 0o664, "the file type bits are not modes");
  },
);

t.test("setVolumeOwnership: every file and directory, the root too; symlinks keep their target's mode", async (t) => {
  const root = await tempDir(t);
  await chmod(root, 0o777);
  await mkdir(join(root, "sub"), { mode: 0o700 });
  await chmod(join(root, "sub"), 0o700);
  await writeFile(join(root, "sub", "secret"), "s", { mode: 0o400 });
  await chmod(join(root, "sub", "secret"), 0o400);
  await writeFile(join(root, "file"), "f");
  await chmod(join(root, "file"), 0o644);
  await symlink("sub/secret", join(root, "link"));

  const failures = await setVolumeOwnership(root, FS_GROUP, { readOnly: false });
  t.equal(await modeOf(root), 0o2777);
  t.equal(await modeOf(join(root, "sub")), 0o2770);
  t.equal(await modeOf(join(root, "file")), 0o664);
  t.equal(await modeOf(join(root, "sub", "secret")), 0o660, "reached by the walk, not through the link");
  t.ok((await lstat(join(root, "link"))).isSymbolicLink());
  if (isRoot) {
    t.same(failures, []);
    for (const path of [root, join(root, "sub"), join(root, "file"), join(root, "sub", "secret")]) {
      const info = await stat(path);
      t.equal(info.gid, FS_GROUP, `${path}: group fsGroup`);
      t.equal(info.uid, 0, `${path}: owner kept`);
    }
    t.equal((await lstat(join(root, "link"))).gid, FS_GROUP, "the link itself is given to the group (lchown)");
  } else {
    t.ok(
      failures.length > 0 && failures.every((f) => f.operation === "chown" && f.error.code === "EPERM"),
      "an unprivileged run cannot give files to another group",
    );
    t.match(describeOwnershipFailure(failures[0]!), /^chown \/\S+: operation not permitted$/);
  }
});

t.test("setVolumeOwnership: read-only kinds get group read only", async (t) => {
  const root = await tempDir(t);
  await writeFile(join(root, "key"), "v");
  await chmod(join(root, "key"), 0o600);
  await chmod(root, 0o755);
  await setVolumeOwnership(root, FS_GROUP, { readOnly: true });
  t.equal(await modeOf(join(root, "key")), 0o640);
  t.equal(await modeOf(root), 0o2755);
});

t.test("setVolumeOwnership: a missing root is an error (the walk cannot start)", async (t) => {
  const root = await tempDir(t);
  await t.rejects(setVolumeOwnership(join(root, "gone"), FS_GROUP, { readOnly: false }), { code: "ENOENT" });
});

t.test(
  "writeAtomically: setPerms runs on the written files before they are visible, not on an unchanged payload",
  async (t) => {
    const dir = await tempDir(t);
    const payload = new Map([["secret", { content: Buffer.from("s"), mode: 0o400 }]]);
    const seen: string[][] = [];
    const setPerms = async () => {
      seen.push((await readdir(dir)).filter((name) => !name.startsWith("..2")).sort());
      await setVolumeOwnership(dir, FS_GROUP, { readOnly: true });
    };
    const fileMode = (mode: number) => fsGroupMode(mode, { directory: false, readOnly: true });
    await writeAtomically(dir, payload, { setPerms, fileMode });
    t.same(seen, [[]], "called once, before ..data and the key's link exist");
    t.equal((await stat(join(dir, "secret"))).mode & 0o7777, 0o440);
    if (isRoot) t.equal((await stat(join(dir, "secret"))).gid, FS_GROUP);
    const dataDir = await readlink(join(dir, "..data"));
    await writeAtomically(dir, payload, { setPerms, fileMode });
    t.equal(seen.length, 1, "the same payload writes nothing and walks nothing");
    t.equal(await readlink(join(dir, "..data")), dataDir);
    await writeAtomically(dir, new Map([["secret", { content: Buffer.from("new"), mode: 0o400 }]]), {
      setPerms,
      fileMode,
    });
    t.equal(seen.length, 2, "a new payload is walked again");
    t.equal((await stat(join(dir, "secret"))).mode & 0o7777, 0o440);
  },
);

t.test(
  "setUpEmptyDirs: 0777 without fsGroup; with it the group and setgid; a directory not on this machine is a Warning",
  async (t) => {
    const root = await tempDir(t);
    const identity = { name: "web", namespace: "ci", uid: "u1" };
    const spec = (securityContext?: PodSpec["securityContext"]): PodSpec => ({
      ...(securityContext ? { securityContext } : {}),
      volumes: [{ name: "cache", emptyDir: {} }],
      containers: [{ name: "app", image: "x", volumeMounts: [{ name: "cache", mountPath: "/cache" }] }],
    });
    const dir = join(root, volumeRuntimeName(identity, "cache"));
    const events: string[] = [];
    const recorder = createRecorder({
      sinks: [{ write: (event) => void events.push(`${event.type} ${event.reason} ${event.message}`) }],
    });
    const mountpoint = async (name: string) => join(root, name);

    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    await setUpEmptyDirs({ spec: spec(), identity, engine: new FakeRuntime({ name: "docker" }), mountpoint, recorder });
    t.equal(await modeOf(dir), 0o777, "the kubelet's emptyDir mode");
    t.same(events, []);

    await setUpEmptyDirs({
      spec: spec({ fsGroup: FS_GROUP }),
      identity,
      engine: new FakeRuntime({ name: "docker" }),
      mountpoint,
      recorder,
    });
    t.equal(await modeOf(dir), 0o2777);
    if (isRoot) {
      t.equal((await stat(dir)).gid, FS_GROUP);
      t.same(events, []);
    } else
      t.match(events, [
        /^Warning FailedVolumeOwnership spec\.securityContext\.fsGroup: volume "cache" not given to group 2000 as a kubelet would: chown .*operation not permitted/,
      ]);

    events.length = 0;
    await setUpEmptyDirs({
      spec: spec(),
      identity,
      engine: new FakeRuntime({ name: "podman" }),
      mountpoint: async () => join(root, "elsewhere"),
      recorder,
    });
    t.same(events, [
      `Warning FailedVolumeOwnership spec.volumes[0].emptyDir: volume "cache" not made mode 0777 as a kubelet would (a container not running as root may not write to it): podman volume ci_web_cache: its directory ${join(root, "elsewhere")} is not on this machine`,
    ]);
    events.length = 0;
    await setUpEmptyDirs({
      spec: spec({ fsGroup: FS_GROUP }),
      identity,
      engine: new FakeRuntime({ name: "docker" }),
      mountpoint: async () => Promise.reject(new Error("no such volume\nmore")),
      recorder,
    });
    t.same(events, [
      `Warning FailedVolumeOwnership spec.securityContext.fsGroup: volume "cache" not given to group 2000 as a kubelet would: docker volume ci_web_cache: no directory found: no such volume`,
    ]);
  },
);

t.test(
  "setUpEmptyDirs: a Memory emptyDir of one container is a tmpfs: podman cannot give it a group, docker can (mount options)",
  async (t) => {
    const identity = { name: "web", namespace: "ci", uid: "u1" };
    const spec: PodSpec = {
      securityContext: { fsGroup: FS_GROUP },
      volumes: [{ name: "mem", emptyDir: { medium: "Memory" } }],
      containers: [{ name: "app", image: "x", volumeMounts: [{ name: "mem", mountPath: "/mem" }] }],
    };
    const events: string[] = [];
    const recorder = createRecorder({ sinks: [{ write: (event) => void events.push(event.message) }] });
    const mountpoint = async () => Promise.reject(new Error("not an engine volume"));
    await setUpEmptyDirs({ spec, identity, engine: new FakeRuntime({ name: "docker" }), mountpoint, recorder });
    t.same(events, []);
    await setUpEmptyDirs({ spec, identity, engine: new FakeRuntime({ name: "podman" }), mountpoint, recorder });
    t.same(events, [
      `spec.securityContext.fsGroup: volume "mem" not given to group 2000 as a kubelet would: podman's --tmpfs takes no gid option: the tmpfs stays group root (mode 1777)`,
    ]);
  },
);

t.test("setUpEmptyDirs in a dry run: no directory is touched, what podman cannot do is still said", async (t) => {
  const identity = { name: "web", namespace: "ci", uid: "u1" };
  const spec: PodSpec = {
    securityContext: { fsGroup: FS_GROUP },
    volumes: [
      { name: "d", emptyDir: {} },
      { name: "mem", emptyDir: { medium: "Memory" } },
    ],
    containers: [
      {
        name: "app",
        image: "x",
        volumeMounts: [
          { name: "d", mountPath: "/d" },
          { name: "mem", mountPath: "/mem" },
        ],
      },
    ],
  };
  const events: string[] = [];
  const asked: string[] = [];
  const recorder = createRecorder({ sinks: [{ write: (event) => void events.push(event.message) }] });
  const mountpoint = async (name: string) => {
    asked.push(name);
    return "/nonexistent";
  };
  await setUpEmptyDirs({
    spec,
    identity,
    engine: new FakeRuntime({ name: "podman" }),
    mountpoint,
    touchDisk: false,
    recorder,
  });
  t.same(asked, []);
  t.match(events, [/volume "mem" not given to group 2000 .*podman's --tmpfs takes no gid option/]);
});
