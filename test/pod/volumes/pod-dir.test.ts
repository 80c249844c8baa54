// The pod directory: where it is, private to the user whatever was there, and found again by name.
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import {
  ensurePodDirectory,
  listPodDirectories,
  podDirectory,
  removePodDirectory,
  volumeDirectory,
} from "../../../lib/pod/volumes/pod-dir.js";

t.test("paths, modes, listing and removal", async (t) => {
  const state = await mkdtemp(join(tmpdir(), "podrun-poddir-"));
  t.teardown(() => rm(state, { recursive: true, force: true }));
  const pod = { name: "web.v1", namespace: "ci" };
  t.equal(podDirectory("/s", "podman", pod), "/s/pods/podman/ci_web.v1");
  t.equal(volumeDirectory("/s/pods/podman/ci_web.v1", "conf"), "/s/pods/podman/ci_web.v1/volumes/conf");

  await mkdir(join(state, "pods", "docker"), { recursive: true, mode: 0o755 });
  await chmod(join(state, "pods"), 0o755);
  const dir = await ensurePodDirectory(state, "docker", pod);
  t.equal(dir, join(state, "pods", "docker", "ci_web.v1"));
  for (const path of [join(state, "pods"), join(state, "pods", "docker"), dir])
    t.equal((await stat(path)).mode & 0o777, 0o700, `${path} is 0700`);
  await ensurePodDirectory(state, "docker", { name: "db", namespace: "default" });
  await writeFile(join(state, "pods", "docker", "stray-file"), "");
  await mkdir(join(state, "pods", "docker", "no-underscore"));
  t.same(
    (await listPodDirectories(state, "docker")).sort((a, b) => a.name.localeCompare(b.name)),
    [
      { namespace: "default", name: "db" },
      { namespace: "ci", name: "web.v1" },
    ],
  );
  t.same(await listPodDirectories(state, "nerdctl"), [], "another engine's are not this one's");
  await removePodDirectory(dir);
  await removePodDirectory(dir);
  t.same(
    (await listPodDirectories(state, "docker")).map((p) => p.name),
    ["db"],
    "removed; removing again is fine",
  );
});
