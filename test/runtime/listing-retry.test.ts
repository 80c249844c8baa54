import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import { CliRuntime } from "../../lib/runtime/cli-runtime.js";

// podman 4's `volume ls` and `ps -a` read every object after listing them: one that another run
// removes in between (any one, not only those the filters pick) fails the whole listing ("no such
// volume", "no such container") and prints nothing. listVolumes and listContainers ask again; any
// other failure, or the same one three times, is the answer. The engine here is a script that
// answers from a list of replies, one per call, and logs its calls.

const LISTED = JSON.stringify([{ Name: "default_web_data", Labels: { "io.kubernetes.pod.name": "web" } }]);
const GONE = "Error: no volume with name default_other_scratch found in database: no such volume";

async function fakeEngine(t: Test, replies: { code: number; stdout?: string; stderr?: string }[]) {
  const dir = await mkdtemp(join(tmpdir(), "podrun-volume-list-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const cases = replies
    .map((r, i) => `${i}) printf '%s' '${r.stdout ?? ""}'; printf '%s\\n' '${r.stderr ?? ""}' >&2; exit ${r.code} ;;`)
    .join("\n  ");
  const binary = join(dir, "podman");
  await writeFile(
    binary,
    `#!/bin/sh\nn=$(cat "${dir}/calls" 2>/dev/null | wc -l)\necho "$*" >> "${dir}/calls"\ncase $n in\n  ${cases}\n  *) exit 99 ;;\nesac\n`,
  );
  await chmod(binary, 0o755);
  const calls = async () => (await readFile(join(dir, "calls"), "utf8")).trim().split("\n");
  return { runtime: new CliRuntime({ name: "podman", binary }), calls };
}

t.test("a volume removed during the listing: asked again", async (t) => {
  const { runtime, calls } = await fakeEngine(t, [
    { code: 125, stderr: GONE },
    { code: 0, stdout: LISTED },
  ]);
  t.same(await runtime.listVolumes({ "io.kubernetes.pod.name": "web" }), [
    { name: "default_web_data", labels: { "io.kubernetes.pod.name": "web" } },
  ]);
  t.equal((await calls()).length, 2);
});

t.test("the same failure three times, or another failure at once, is the answer", async (t) => {
  const thrice = await fakeEngine(
    t,
    [1, 2, 3].map(() => ({ code: 125, stderr: GONE })),
  );
  await t.rejects(thrice.runtime.listVolumes({ app: "web" }), /no such volume/);
  t.equal((await thrice.calls()).length, 3);
  const other = await fakeEngine(t, [{ code: 125, stderr: "Error: database is locked" }]);
  await t.rejects(other.runtime.listVolumes({ app: "web" }), /database is locked/);
  t.equal((await other.calls()).length, 1);
});

t.test("a container removed during `ps -a`: asked again, not taken as no container at all", async (t) => {
  const { runtime, calls } = await fakeEngine(t, [
    { code: 125, stderr: "Error: no container with ID 4f2a found in database: no such container" },
    { code: 0, stdout: "" },
  ]);
  t.same(await runtime.listContainers({ "io.kubernetes.pod.name": "web" }), []);
  t.same(
    (await calls()).map((c) => c.split(" ")[0]),
    ["ps", "ps"],
  );
});
