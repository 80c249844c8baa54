import { existsSync } from "node:fs";
import { join } from "node:path";
import t, { type Test } from "tap";
import { down, type DownOptions } from "../../lib/commands/down.js";
import { up } from "../../lib/commands/up.js";
import { ExitError } from "../../lib/errors.js";
import { createCommandWorld, type CommandWorld } from "../harness/command-io.js";
import { engineError } from "../harness/fake-runtime.js";

// `podrun down` against the shared fake engine, after a real `up` on the same fake: what it
// removes, in which order, what it prints, how it ends. The real engines: down.e2e.test.ts.

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  terminationGracePeriodSeconds: 5
  volumes:
    - name: data
      emptyDir: {}
    - name: conf
      configMap: { name: cfg }
  initContainers:
    - name: init
      image: busybox:1.36
  containers:
    - name: app
      image: busybox:1.36
      lifecycle: { preStop: { exec: { command: ["drain"] } } }
      volumeMounts: [{ name: data, mountPath: /data }, { name: conf, mountPath: /etc/conf }]
    - name: log
      image: busybox:1.36
---
apiVersion: v1
kind: ConfigMap
metadata: { name: cfg }
data: { mode: fast }
`;

async function setup(
  t: Test,
): Promise<{ world: CommandWorld; file: string; run: (extra?: Partial<DownOptions>) => Promise<void> }> {
  const world = await createCommandWorld(t);
  const file = await world.manifest("pod.yaml", POD);
  await up({
    files: [file],
    publishAll: false,
    parallelPulls: 1,
    keepOnFailure: false,
    dryRun: false,
    json: false,
    ...world.io,
  });
  const run = (extra: Partial<DownOptions> = {}) => {
    world.nextCommand();
    world.runtime.calls.length = 0;
    return down({ targets: [file], all: false, json: false, ...world.io, ...extra });
  };
  return { world, file, run };
}

const timeless = (line: string) => line.replace(/\b\d+(?:\.\d+)?s\b/g, "<t>");

t.test(
  "down FILE removes what up made: preStop hook, stops, then containers, sandbox, volumes and the pod directory",
  async (t) => {
    const { world, run } = await setup(t);
    const podDir = join(world.stateDir, "pods", "docker", "default_web");
    t.ok(existsSync(podDir), "up wrote the ConfigMap's files");
    await run();
    t.same(world.runtime.listAll(), [], "no container left");
    t.same([...world.runtime.volumes.keys()], [], "no volume left");
    t.notOk(existsSync(podDir), "the pod directory is gone");
    const calls = world.runtime.calls.filter((c) => !c.startsWith("list"));
    t.same(
      calls.filter((c) => c.startsWith("stopContainer")).sort(),
      ["stopContainer app 5", "stopContainer log 5"],
      "the manifest's grace period",
    );
    t.ok(calls.indexOf("execInContainer app drain") < calls.indexOf("stopContainer app 5"), "the hook before the stop");
    // The cluster network stays: only `down --all` removes it (lib/apply/down.ts).
    t.same(calls.slice(-2), ["removeSandbox default_web", "removeVolumes default_web_data"]);
    t.notOk(calls.includes("removeNetwork podrun"), "the cluster network is kept");
    t.match(
      calls.at(-3),
      /^removeContainers (app,log|log,app),init$/,
      "app containers newest first, then init containers, in one call",
    );
    // The app containers are killed at once, as the kubelet kills them: their events come in either order.
    const lines = world.stdout.lines().map(timeless);
    t.same(lines.slice(0, 2).sort(), [
      "Normal   Killing    pod/web[app]   Stopping container app",
      "Normal   Killing    pod/web[log]   Stopping container log",
    ]);
    t.same(lines.slice(2), ["pod/web deleted (3 containers, 1 volume, <t>)"]);
    t.equal(world.stderr.text, "");
  },
);

t.test("down again: not found, exit 0; by name and --all find nothing either", async (t) => {
  const { world, run } = await setup(t);
  await run();
  await run();
  t.same(world.stdout.lines(), ["pod/web not found"]);
  await run({ targets: ["web"] });
  t.same(world.stdout.lines(), ["pod/web not found"]);
  await run({ targets: [], all: true });
  t.same(world.stdout.lines(), ["no podrun pods (docker)"]);
  t.same(
    world.runtime.calls.filter(
      (c) =>
        !c.startsWith("list") && c !== "removeNetwork podrun" && c !== "removeRelay podrun" && c !== "removeRelay host",
    ),
    [],
    "nothing but listings, and the cluster network's removal with the relays (nothing uses them)",
  );
});

t.test("down POD by name, without the manifest: the grace period and hook from the labels", async (t) => {
  const { world, run } = await setup(t);
  await run({ targets: ["web"] });
  t.same(world.runtime.listAll(), []);
  t.ok(world.runtime.calls.includes("execInContainer app drain"), "the preStop hook from its label");
  t.ok(world.runtime.calls.includes("stopContainer app 5"), "the grace period from its label");
});

t.test("--all takes down every pod, a pod of which only volumes are left among them", async (t) => {
  const { world, run } = await setup(t);
  await world.runtime.createVolume("default_old_cache", {
    "io.podrun.managed": "true",
    "io.kubernetes.pod.name": "old",
    "io.kubernetes.pod.namespace": "default",
    "io.podrun.volume": "cache",
  });
  await run({ targets: [], all: true });
  t.same(world.runtime.listAll(), []);
  t.same([...world.runtime.volumes.keys()], []);
  t.same(
    world.stdout
      .lines()
      .filter((l) => l.startsWith("pod/"))
      .map(timeless)
      .sort(),
    ["pod/old deleted (0 containers, 1 volume, <t>)", "pod/web deleted (3 containers, 1 volume, <t>)"],
  );
});

t.test("a container that cannot be removed: FailedKillPod, exit 1, the rest still goes", async (t) => {
  const { world, run } = await setup(t);
  world.runtime.failOn("removeContainers", engineError("removal of container app is already in progress"), {
    subject: "app",
  });
  const error = await run().catch((e: unknown) => e);
  t.type(error, ExitError);
  t.equal((error as ExitError).code, 1);
  const removals = world.runtime.calls.filter((c) => c.startsWith("remove"));
  t.ok(
    ["removeContainers app", "removeContainers log", "removeContainers init"].every((c) => removals.includes(c)),
    "the bulk removal failed: one call per container says which",
  );
  t.ok(removals.includes("removeSandbox default_web"), "the sandbox is still removed");
  t.same(
    world.runtime.listAll(),
    [],
    "and with it the container that refused (the engine removes what is in a sandbox)",
  );
  t.same(world.stderr.lines().map(timeless), [
    "Error: FailedKillPod: pod/web: container app: could not remove it: removal of container app is already in progress",
    "pod/web not fully deleted (2 containers, 1 volume, <t> removed)",
  ]);
  t.match(
    world.stdout.text,
    /Warning +FailedKillPod +pod\/web +error killing pod: app: removal of container app is already in progress/,
  );
});

t.test("--json: one result per pod", async (t) => {
  const { world, run } = await setup(t);
  await run({ json: true });
  const [result] = world.stdout.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
  t.match(result, {
    pod: "web",
    namespace: "default",
    status: "Deleted",
    containers: 3,
    volumes: 1,
    failures: [],
    hookFailures: [],
  });
});

t.test("usage errors come before the engine is asked", async (t) => {
  const world = await createCommandWorld(t);
  await t.rejects(down({ targets: ["web"], all: true, json: false, ...world.io }), {
    name: "UsageError",
    message: "--all takes no FILE or POD argument: give one or the other",
  });
  await t.rejects(down({ targets: [], all: false, json: false, ...world.io }), {
    name: "UsageError",
    message: /^nothing to bring down/,
  });
  await t.rejects(down({ targets: ["Web_1"], all: false, json: false, ...world.io }), {
    name: "UsageError",
    message: /^"Web_1" is neither a manifest file nor a valid pod name/,
  });
  await t.rejects(down({ targets: ["web"], namespace: "Bad_NS", all: false, json: false, ...world.io }), {
    name: "UsageError",
    message: /^invalid namespace "Bad_NS"/,
  });
  t.same(world.runtime.calls, []);
});
