// Whether the engine sees this host's files: the endpoint where it tells, else a check by mount
// kept for an hour, and the variable that says it instead (pure logic over a recording fake; the
// check against real engines is in test/runtime/engine-files.e2e.test.ts).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { reachFiles } from "../../lib/apply/reach-files.js";
import type { HelperMount } from "../../lib/runtime/types.js";

function fakeEngine(
  endpoint: string,
  answer: (mounts: readonly HelperMount[], args: readonly string[]) => Promise<string>,
) {
  const runs: (readonly string[])[] = [];
  return {
    runs,
    name: "docker" as const,
    files: undefined as { image: string; shared: boolean } | undefined,
    endpoint: async () => endpoint,
    runFilesHelper: async (args: readonly string[], options: { mounts: readonly HelperMount[] }) => {
      runs.push(args);
      return { stdout: await answer(options.mounts, args), stderr: "" };
    },
  };
}

/** An engine that sees this host's disk: it reads the file back from the bind's source. */
const seeing = async (mounts: readonly HelperMount[], args: readonly string[]) => {
  const path = args[1]!;
  const source = join(mounts[0]!.source, path.slice("/check/".length));
  return JSON.stringify({ [path]: (await readFile(source)).toString("base64") });
};

t.test("the endpoint decides where it can: no engine call", async (t) => {
  const local = fakeEngine("", seeing);
  t.match(await reachFiles(local, "/nonexistent", "proxy:1", { env: {} }), { shared: true });
  t.same(local.files, { image: "proxy:1", shared: true });
  const remote = fakeEngine("ssh://me@build.example.com", seeing);
  t.match(await reachFiles(remote, "/nonexistent", "proxy:1", { env: {} }), {
    shared: false,
    reason: /is another host/,
  });
  t.same(remote.files, { image: "proxy:1", shared: false });
  t.same([...local.runs, ...remote.runs], []);
});

t.test("otherwise a check by mount, kept for an hour; `fresh` checks anew", async (t) => {
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-reach-files-"));
  t.teardown(() => rm(stateDir, { recursive: true, force: true }));
  const vm = fakeEngine("unix:///home/me/.colima/default/docker.sock", seeing);
  t.match(await reachFiles(vm, stateDir, "proxy:1", { env: {} }), { shared: true, reason: /read back a file/ });
  t.same(vm.files, { image: "proxy:1", shared: true });
  t.equal(vm.runs.length, 1);
  t.match(await reachFiles(vm, stateDir, "proxy:1", { env: {} }), { shared: true, reason: /\(checked / });
  t.equal(vm.runs.length, 1, "the kept answer");
  await reachFiles(vm, stateDir, "proxy:1", { fresh: true, env: {} });
  t.equal(vm.runs.length, 2, "asked anew");

  const blind = fakeEngine("unix:///home/me/.colima/other/docker.sock", async () => "{}");
  t.match(await reachFiles(blind, stateDir, "proxy:1", { env: {} }), { shared: false, reason: /not the file/ });
  t.same(blind.files, { image: "proxy:1", shared: false });
  const refused = fakeEngine("tcp://127.0.0.1:2375", () =>
    Promise.reject(new Error("bind source path does not exist")),
  );
  t.match(await reachFiles(refused, stateDir, "proxy:1", { env: {} }), {
    shared: false,
    reason: /cannot mount .*bind source path does not exist/,
  });
  const kept = JSON.parse(await readFile(join(stateDir, "engine-disk.json"), "utf8")) as Record<string, unknown>;
  t.same(Object.keys(kept).sort(), [
    "docker tcp://127.0.0.1:2375",
    "docker unix:///home/me/.colima/default/docker.sock",
    "docker unix:///home/me/.colima/other/docker.sock",
  ]);
});

t.test("PODRUN_ENGINE_FILES says it instead", async (t) => {
  const engine = fakeEngine("unix:///home/me/.colima/default/docker.sock", seeing);
  t.match(await reachFiles(engine, "/nonexistent", "proxy:1", { env: { PODRUN_ENGINE_FILES: "copied" } }), {
    shared: false,
    reason: "PODRUN_ENGINE_FILES=copied",
  });
  t.same(engine.files, { image: "proxy:1", shared: false });
  t.match(await reachFiles(engine, "/nonexistent", "proxy:1", { env: { PODRUN_ENGINE_FILES: "shared" } }), {
    shared: true,
  });
  t.same(engine.files, { image: "proxy:1", shared: true });
  t.same(engine.runs, []);
});
