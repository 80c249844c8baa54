// Bind sources: the volume's host directory, then the subPath (subPathExpr expanded), with the
// kubelet's refusals; a missing subPath is made with the volume directory's mode.
import { chmod, mkdir, mkdtemp, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { PodrunError } from "../../../lib/errors.js";
import {
  expandSubPathExpr,
  resolveMountSources,
  type MountSourceContext,
} from "../../../lib/pod/volumes/mount-sources.js";
import type { VolumeMount } from "../../../lib/runtime/types.js";

t.test("sources of every kind of bind; subPath made with the volume's mode; refusals", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-mounts-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const engine = join(dir, "engine/_data");
  await mkdir(engine, { recursive: true });
  await chmod(engine, 0o777);
  await mkdir(join(dir, "host"));
  await symlink("/etc", join(engine, "escape"));
  const context: MountSourceContext = {
    podDir: join(dir, "pod"),
    mountpoint: async (name) => (name === "ci_web_ed" ? engine : Promise.reject(new Error("no such volume"))),
    touchDisk: true,
  };
  const env = [
    { name: "POD", value: "web" },
    { name: "EMPTY", value: "" },
  ];
  const resolve = (mounts: VolumeMount[]) => resolveMountSources(mounts, { env, container: "app", context });
  const reason = (mounts: VolumeMount[]) =>
    resolve(mounts).then(
      () => "ok",
      (error: PodrunError) => `${error.reason}: ${error.message}`,
    );

  t.same(
    (
      await resolve([
        { volume: "h", target: "/h", readOnly: false, bind: { from: "host", path: join(dir, "host") } },
        {
          volume: "ci_web_ed",
          target: "/e",
          readOnly: false,
          bind: { from: "engine-volume", subPath: "$(POD)/logs", expand: true },
        },
        { volume: "ci_web_data", target: "/d", readOnly: false },
      ])
    ).map((m) => m.source),
    [join(dir, "host"), join(engine, "web/logs"), undefined],
  );
  t.equal((await stat(join(engine, "web/logs"))).mode & 0o777, 0o777, "the subPath gets the volume directory's mode");

  const files = await resolveMountSources(
    [{ volume: "conf", target: "/k", readOnly: true, bind: { from: "files", subPath: "a.txt" } }],
    { env, container: "app", context: { ...context, touchDisk: false } },
  );
  t.equal(files[0]!.source, join(dir, "pod/volumes/conf/a.txt"), "a file volume's directory is in the pod directory");

  t.equal(
    await reason([
      { volume: "ci_web_ed", target: "/e", readOnly: false, bind: { from: "engine-volume", subPath: "/abs" } },
    ]),
    "CreateContainerConfigError: error SubPath `/abs` must not be an absolute path",
  );
  t.equal(
    await reason([
      { volume: "ci_web_ed", target: "/e", readOnly: false, bind: { from: "engine-volume", subPath: "a/../../b" } },
    ]),
    "CreateContainerConfigError: unable to provision SubPath `a/../../b`: must not contain '..'",
  );
  t.equal(
    await reason([
      {
        volume: "ci_web_ed",
        target: "/e",
        readOnly: false,
        bind: { from: "engine-volume", subPath: "$(NOPE)/$(EMPTY)", expand: true },
      },
    ]),
    "CreateContainerConfigError: missing value for EMPTY, NOPE",
  );
  t.match(
    await reason([
      { volume: "ci_web_ed", target: "/e", readOnly: false, bind: { from: "engine-volume", subPath: "escape" } },
    ]),
    /^CreateContainerConfigError: subpath "\/etc" not within volume path/,
    "a symlink out of the volume is refused",
  );
  t.match(
    await reason([
      { volume: "ci_web_other", target: "/e", readOnly: false, bind: { from: "engine-volume", subPath: "x" } },
    ]),
    /cannot find its directory on the host: no such volume/,
  );
  t.match(
    await reason([
      { volume: "h", target: "/h", readOnly: false, bind: { from: "host", path: join(dir, "missing"), subPath: "x" } },
    ]),
    /failed to create subPath directory for volumeMount "h" of container "app"/,
  );
});

t.test("subPathExpr: $(VAR) from the environment, $$ escapes", async (t) => {
  const env = [
    { name: "A", value: "x" },
    { name: "B", value: "y" },
  ];
  t.equal(expandSubPathExpr("$(A)/$(B)", env), "x/y");
  t.equal(expandSubPathExpr("$$(A)", env), "$(A)");
  t.equal(expandSubPathExpr("plain", env), "plain");
});
