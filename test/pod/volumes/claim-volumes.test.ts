import type { PersistentVolumeClaim, Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { PodrunError } from "../../../lib/errors.js";
import { createRecorder } from "../../../lib/events/recorder.js";
import { claimVolumeLabels, ensureClaimVolumes, removeClaimVolumes } from "../../../lib/pod/volumes/claim-volumes.js";
import { planContainerMounts, planPodVolumes } from "../../../lib/pod/volumes/volume-plan.js";
import { CliRuntime } from "../../../lib/runtime/cli-runtime.js";
import { formatMountArgs } from "../../../lib/runtime/create-args.js";
import { DIALECTS } from "../../../lib/runtime/dialects.js";
import type { RuntimeCommand } from "../../../lib/runtime/types.js";
import { FakeRuntime } from "../../harness/fake-runtime.js";

// A claim's engine volume: made once, kept when there, shared, never one of the pod's own; a
// missing claim fails before anything is made; `down --volumes` removes only claims' volumes.

const identity = { name: "web", namespace: "default", uid: "u1" };
const claimOf = (name: string, namespace?: string): PersistentVolumeClaim => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
});
const pod = (claims: string[], fsGroup?: number): Pod => ({
  metadata: { name: "web" },
  spec: {
    ...(fsGroup !== undefined ? { securityContext: { fsGroup } } : {}),
    volumes: [
      ...claims.map((claimName, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName } })),
      { name: "scratch", emptyDir: {} },
    ],
    containers: [
      {
        name: "c",
        image: "busybox",
        volumeMounts: [
          { name: "v0", mountPath: "/data" },
          { name: "scratch", mountPath: "/tmp" },
        ],
      },
    ],
  },
});
const objects = (...claims: PersistentVolumeClaim[]) => ({
  configMaps: [],
  secrets: [],
  persistentVolumeClaims: claims,
});

function recorded() {
  const events: string[] = [];
  const recorder = createRecorder({
    sinks: [{ write: (event) => void events.push(`${event.type} ${event.reason} ${event.message}`) }],
  });
  return { events, recorder };
}

t.test("a claim's volume is made once, with the claim's labels, and kept when it is there", async (t) => {
  const runtime = new FakeRuntime();
  const { recorder, events } = recorded();
  await ensureClaimVolumes(
    { runtime, recorder },
    { pod: pod(["db", "db"]), identity, objects: objects(claimOf("db")) },
  );
  t.same(runtime.callsOf("createVolume"), ["createVolume default_db"], "one volume for two volumes naming one claim");
  t.same(
    (await runtime.listVolumes({})).map((v) => v.labels),
    [claimVolumeLabels("default", "db")],
  );
  t.same(claimVolumeLabels("default", "db"), {
    "io.podrun.managed": "true",
    "io.kubernetes.pod.namespace": "default",
    "io.podrun.claim": "db",
  });
  await ensureClaimVolumes({ runtime, recorder }, { pod: pod(["db"]), identity, objects: objects(claimOf("db")) });
  t.equal(runtime.callsOf("createVolume").length, 1, "the second up keeps it");
  t.same(events, []);
});

t.test("a claim in none of the manifests: FailedMount, and no volume made", async (t) => {
  const runtime = new FakeRuntime();
  const { recorder, events } = recorded();
  const error = await ensureClaimVolumes(
    { runtime, recorder },
    { pod: pod(["db", "gone"]), identity, objects: objects(claimOf("db"), claimOf("gone", "other")) },
  ).catch((e: unknown) => e);
  t.type(error, PodrunError);
  const message =
    'Unable to attach or mount volumes: unmounted volumes=[v1]: error processing PVC default/gone: persistentvolumeclaim "gone" not found';
  t.match(error, { reason: "FailedMount", message });
  t.same(events, [`Warning FailedMount ${message}`]);
  t.same(runtime.callsOf("createVolume"), []);
});

t.test("a pod without claims asks the engine nothing", async (t) => {
  const runtime = new FakeRuntime();
  await ensureClaimVolumes(
    { runtime, recorder: recorded().recorder },
    {
      pod: { metadata: { name: "web" }, spec: { containers: [{ name: "c", image: "busybox" }] } },
      identity,
      objects: objects(),
    },
  );
  t.same(runtime.calls, []);
});

t.test("mounts: the claim's volume by name, readOnly from the mount or the source, subPath as a bind", async (t) => {
  const spec = pod(["db"]).spec!;
  spec.volumes!.push({ name: "ro", persistentVolumeClaim: { claimName: "db", readOnly: true } });
  spec.containers[0]!.volumeMounts!.push(
    { name: "ro", mountPath: "/ro" },
    { name: "v0", mountPath: "/sub", subPath: "a/b", readOnly: true },
  );
  t.same(planContainerMounts(spec, identity, spec.containers[0]!), [
    { volume: "default_db", target: "/data", readOnly: false },
    { volume: "default_web_scratch", target: "/tmp", readOnly: false },
    { volume: "default_db", target: "/ro", readOnly: true },
    { volume: "default_db", target: "/sub", readOnly: true, bind: { from: "engine-volume", subPath: "a/b" } },
  ]);
  t.same(
    planPodVolumes(spec, identity).map((v) => v.name),
    ["default_web_scratch"],
    "the claim is not one of the pod's own volumes",
  );
});

t.test("down --volumes: the manifests' claims, or every claim with --all; never a pod's emptyDir", async (t) => {
  const runtime = new FakeRuntime();
  const { recorder } = recorded();
  await ensureClaimVolumes(
    { runtime, recorder },
    { pod: pod(["db", "cache"]), identity, objects: objects(claimOf("db"), claimOf("cache")) },
  );
  await ensureClaimVolumes(
    { runtime, recorder },
    { pod: pod(["db"]), identity: { ...identity, namespace: "ci" }, objects: objects(claimOf("db", "ci")) },
  );
  await runtime.createVolume("default_web_scratch", {
    "io.podrun.managed": "true",
    "io.kubernetes.pod.namespace": "default",
    "io.kubernetes.pod.name": "web",
  });
  t.same(
    await removeClaimVolumes(runtime, {
      claims: [
        { namespace: "default", name: "db" },
        { namespace: "default", name: "absent" },
      ],
    }),
    { removed: ["default_db"], failures: [] },
  );
  t.same(await removeClaimVolumes(runtime, { all: true, namespace: "ci" }), { removed: ["ci_db"], failures: [] });
  t.same(await removeClaimVolumes(runtime, { all: true }), { removed: ["default_cache"], failures: [] });
  t.same(
    (await runtime.listVolumes({})).map((v) => v.name),
    ["default_web_scratch"],
  );
});

t.test(
  "argv on each engine (nerdctl: argv only, never run here): a listing, then volume create with the claim's labels",
  async (t) => {
    for (const name of ["docker", "podman", "nerdctl"] as const) {
      const commands: RuntimeCommand[] = [];
      const runtime = new CliRuntime({
        name,
        binary: `/nonexistent/${name}`,
        dryRun: { record: (c) => commands.push(c) },
      });
      await ensureClaimVolumes(
        { runtime, recorder: recorded().recorder },
        { pod: pod(["db"]), identity, objects: objects(claimOf("db")) },
      );
      t.same(
        commands.map((c) => c.args),
        [
          [
            "volume",
            "ls",
            "--format",
            "json",
            "--filter",
            "label=io.podrun.managed=true",
            "--filter",
            "label=io.kubernetes.pod.namespace=default",
          ],
          [
            "volume",
            "create",
            "--label",
            "io.podrun.managed=true",
            "--label",
            "io.kubernetes.pod.namespace=default",
            "--label",
            "io.podrun.claim=db",
            "default_db",
          ],
        ],
        name,
      );
      const mounts = planContainerMounts(pod(["db"]).spec!, identity, pod(["db"]).spec!.containers[0]!);
      t.same(
        formatMountArgs(DIALECTS[name], mounts.slice(0, 1)),
        name === "nerdctl" ? ["-v", "default_db:/data"] : ["-v", "default_db:/data:nocopy"],
        `${name}: the claim's volume by name`,
      );
    }
  },
);

t.test("a dry run names a missing claim in the event and plans on", async (t) => {
  const runtime = new FakeRuntime();
  const { recorder, events } = recorded();
  await ensureClaimVolumes({ runtime, recorder }, { pod: pod(["gone"]), identity, objects: objects(), dryRun: true });
  t.same(events, [
    'Warning FailedMount Unable to attach or mount volumes: unmounted volumes=[v0]: error processing PVC default/gone: persistentvolumeclaim "gone" not found',
  ]);
  t.same(
    runtime.callsOf("createVolume"),
    ["createVolume default_gone"],
    "the plan shows the volume the claim would have",
  );
});
