import t, { type Test } from "tap";
import { down, type DownOptions } from "../../lib/commands/down.js";
import { up } from "../../lib/commands/up.js";
import { ExitError } from "../../lib/errors.js";
import { createCommandWorld } from "../harness/command-io.js";

// `podrun down` and a PersistentVolumeClaim's volume, on the shared fake engine after a real `up`:
// kept without --volumes, removed with it (after the pods), with --all too; one in use is a
// failure that leaves the rest done.

const CLAIM = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: db }
spec:
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 1Gi } }
`;
const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata: { name: ${name} }
spec:
  terminationGracePeriodSeconds: 0
  volumes:
    - { name: data, persistentVolumeClaim: { claimName: db } }
    - { name: scratch, emptyDir: {} }
  containers:
    - name: app
      image: busybox:1.36
      volumeMounts: [{ name: data, mountPath: /data }, { name: scratch, mountPath: /tmp }]
`;

async function setup(t: Test) {
  const world = await createCommandWorld(t, { images: ["busybox:1.36", "registry.k8s.io/pause:3.10"] });
  const claims = await world.manifest("claims.yaml", CLAIM);
  const web = await world.manifest("web.yaml", pod("web"));
  const api = await world.manifest("api.yaml", pod("api"));
  await up({
    files: [claims, web, api],
    publishAll: false,
    parallelPulls: 1,
    keepOnFailure: false,
    dryRun: false,
    json: false,
    ...world.io,
  });
  const volumes = async () => (await world.runtime.listVolumes({})).map((v) => v.name).sort();
  const run = (targets: string[], extra: Partial<DownOptions> = {}) => {
    world.nextCommand();
    return down({ targets, all: false, json: false, ...world.io, ...extra });
  };
  return { world, claims, web, api, volumes, run };
}

t.test(
  "down keeps the claim's volume; down --volumes of the claims' file removes it once no pod mounts it",
  async (t) => {
    const { world, claims, web, api, volumes, run } = await setup(t);
    t.same(
      await volumes(),
      ["default_api_scratch", "default_db", "default_web_scratch"],
      "one volume for the claim the two pods share",
    );
    await run([web]);
    t.same(await volumes(), ["default_api_scratch", "default_db"], "the pod's emptyDir goes, the claim's volume stays");
    await t.rejects(run([claims], { volumes: true }), ExitError, "api still mounts it");
    t.match(
      world.stderr.text,
      /^Error: VolumeInUse: persistentvolumeclaim\/db: volume default_db: could not remove it: /m,
    );
    t.same(await volumes(), ["default_api_scratch", "default_db"]);
    await run([api, claims], { volumes: true });
    t.equal(
      world.stdout.lines().at(-1),
      "persistentvolumeclaim/db deleted (volume default_db)",
      "after the pod's line",
    );
    t.match(world.stdout.lines().at(-2), /^pod\/api deleted/);
    t.same(await volumes(), []);
  },
);

t.test("down --all --volumes: every claim's volume, in --json one line each", async (t) => {
  const { world, volumes, run } = await setup(t);
  await run([], { all: true, volumes: true, json: true });
  const lines = world.stdout.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
  t.same(
    lines.filter((line) => "persistentVolumeClaim" in line),
    [{ persistentVolumeClaim: "db", namespace: "default", volume: "default_db", status: "Deleted" }],
  );
  t.same(await volumes(), []);
});

t.test("down --all without --volumes keeps it", async (t) => {
  const { volumes, run } = await setup(t);
  await run([], { all: true });
  t.same(await volumes(), ["default_db"]);
});
