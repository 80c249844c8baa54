import t, { type Test } from "tap";
import { up, type UpOptions } from "../../lib/commands/up.js";
import { ExitError, UsageError } from "../../lib/errors.js";
import { createCommandWorld, type CommandWorld } from "../harness/command-io.js";
import { engineError, pullError } from "../harness/fake-runtime.js";

// `podrun up` against the shared fake engine: what it prints, what it asks the engine in which
// order, how it ends (ExitError 1, UsageError), and what a failure leaves. No engine, no build.
// The real engines: up.e2e.test.ts, up-reconcile.e2e.test.ts, up-wait.e2e.test.ts.

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  volumes:
    - name: data
      emptyDir: {}
  initContainers:
    - name: init
      image: busybox:1.36
      command: ["sh", "-c", "echo ready > /data/flag"]
      volumeMounts: [{ name: data, mountPath: /data }]
  containers:
    - name: app
      image: busybox:1.36
      command: ["sleep", "3600"]
      volumeMounts: [{ name: data, mountPath: /data }]
`;

async function setup(
  t: Test,
  manifest = POD,
): Promise<{ world: CommandWorld; run: (extra?: Partial<UpOptions>) => Promise<void> }> {
  const world = await createCommandWorld(t);
  const file = await world.manifest("pod.yaml", manifest);
  const run = (extra: Partial<UpOptions> = {}) => {
    world.nextCommand();
    return up({
      files: [file],
      publishAll: false,
      parallelPulls: 1,
      keepOnFailure: false,
      dryRun: false,
      json: false,
      ...world.io,
      ...extra,
    });
  };
  return { world, run };
}

/** Durations vary with the machine: `0.1s`, `5ms` become `<t>`. */
const timeless = (line: string) => line.replace(/\b\d+(?:\.\d+)?m?s\b/g, "<t>");

const steps = (calls: readonly string[]) =>
  calls.filter((c) =>
    /^(createSandbox|startSandbox|createContainer|startContainer|waitContainer|createVolume) /.test(c),
  );

t.test(
  "a new pod: volume and sandbox, the init container to completion, then the app; events and a summary line",
  async (t) => {
    const { world, run } = await setup(t);
    await run();
    const calls = steps(world.runtime.calls);
    // The volume is made while the sandbox starts: both before the first container.
    t.ok(calls.indexOf("createVolume default_web_data") < calls.indexOf("createContainer init"));
    t.same(
      calls.filter((c) => !c.startsWith("createVolume")),
      [
        "createSandbox default_web",
        "startSandbox default_web",
        "createContainer init",
        "startContainer init",
        "waitContainer init",
        "createContainer app",
        "startContainer app",
      ],
    );
    t.same(world.stdout.lines().map(timeless), [
      'Normal   Pulled     pod/web        Container image "registry.k8s.io/pause:3.10" already present on machine',
      'Normal   Pulling    pod/web[init]  Pulling image "busybox:1.36"',
      `Normal   Pulled     pod/web[init]  Successfully pulled image "busybox:1.36" in <t> (<t> including waiting). Image size: ${world.runtime.images.get("busybox:1.36")!.size} bytes.`,
      "Normal   Created    pod/web[init]  Created container: init",
      "Normal   Started    pod/web[init]  Started container init",
      'Normal   Pulled     pod/web[app]   Container image "busybox:1.36" already present on machine',
      "Normal   Created    pod/web[app]   Created container: app",
      "Normal   Started    pod/web[app]   Started container app",
      "pod/web: 1 container started, 1 init container completed (<t>, docker)",
    ]);
    t.equal(world.stderr.text, "");
    const app = world.runtime.container("app")!;
    t.equal(app.status, "running");
    t.equal(app.labels["io.podrun.container.kind"], "app");
    t.equal(world.runtime.container("init")!.status, "exited");
    t.same([...world.runtime.volumes.keys()], ["default_web_data"]);
    t.equal(process.exitCode, undefined, "up sets no exit code: it returns (0) or throws");
  },
);

t.test("up again with the same manifest keeps the pod: no container is made or removed", async (t) => {
  const { world, run } = await setup(t);
  await run();
  const before = world.runtime.listAll().map((c) => c.id);
  const made = world.runtime.calls.length;
  await run();
  const second = world.runtime.calls.slice(made);
  t.notOk(
    second.some((c) => /^(create|start|stop|remove)/.test(c)),
    `no change: ${second.join("; ")}`,
  );
  t.same(
    world.runtime.listAll().map((c) => c.id),
    before,
    "the same containers",
  );
  t.same(world.stdout.lines().map(timeless), [
    "pod/web[app] unchanged",
    "pod/web: 1 container unchanged (<t>, docker)",
  ]);
});

t.test("a changed app container is recreated; the rest of the pod stays", async (t) => {
  const { world, run } = await setup(t);
  await run();
  const sandbox = world.runtime.container("default_web_POD")!.id;
  const oldApp = world.runtime.container("app")!.id;
  await world.manifest("pod.yaml", POD.replace('["sleep", "3600"]', '["sleep", "7200"]'));
  await run();
  t.equal(world.runtime.container("default_web_POD")!.id, sandbox, "the sandbox is kept");
  t.not(world.runtime.container("app")!.id, oldApp, "app is new");
  t.same(world.runtime.container("app")!.status, "running");
  t.match(world.stdout.text, /Killing +pod\/web\[app\] +Container app definition changed, will be restarted/);
});

t.test("a start that fails: RunContainerError, exit 1, and everything this run made is removed", async (t) => {
  const { world, run } = await setup(t);
  world.runtime.failOn(
    "startContainer",
    engineError('failed to create task for container: exec: "sleep": executable file not found in $PATH: unknown'),
    { subject: "app" },
  );
  const error = await run().catch((e: unknown) => e);
  t.type(error, ExitError);
  t.equal((error as ExitError).code, 1);
  t.same(world.stderr.lines(), [
    "podrun: removed the 3 containers this run created for pod/web (--keep-on-failure keeps them)",
    'Error: RunContainerError: pod/web: container app: failed to create task for container: exec: "sleep": executable file not found in $PATH: unknown',
  ]);
  t.same(world.runtime.listAll(), [], "no container left");
  t.same([...world.runtime.volumes.keys()], [], "no volume left");
  const undo = world.runtime.calls.filter((c) => c.startsWith("remove"));
  t.same(
    undo,
    [
      "removeVolumes default_web_data",
      "removeContainers app,init",
      "removeSandbox default_web",
      "removeVolumes default_web_data",
    ],
    "a leftover volume first, then the undo: newest container first, sandbox, volumes",
  );
});

t.test("--keep-on-failure leaves what was made", async (t) => {
  const { world, run } = await setup(t);
  world.runtime.failOn("startContainer", engineError("OCI runtime create failed"), { subject: "app" });
  await t.rejects(run({ keepOnFailure: true }), ExitError);
  t.same(
    world.runtime.listAll().map((c) => `${c.labels["io.kubernetes.container.name"]} ${c.status}`),
    ["POD running", "init exited", "app created"],
  );
  t.same(world.stderr.lines(), ["Error: RunContainerError: pod/web: container app: OCI runtime create failed"]);
});

t.test(
  "an init container that fails: InitContainerFailed with its last log lines; no app container is made",
  async (t) => {
    const { world, run } = await setup(t);
    world.runtime.script("init", { exitCode: 3, logs: ["mounting /data", "no space left on device"] });
    await t.rejects(run(), ExitError);
    t.notOk(world.runtime.calls.includes("createContainer app"));
    t.same(world.stderr.lines(), [
      "podrun: removed the 2 containers this run created for pod/web (--keep-on-failure keeps them)",
      "last log lines of init container init:",
      "    mounting /data",
      "    no space left on device",
      "Error: InitContainerFailed: pod/web: init container init exited with code 3",
    ]);
    t.same(world.runtime.listAll(), []);
  },
);

t.test("a pull that fails: ErrImagePull, the kubelet's events, nothing left", async (t) => {
  const { world, run } = await setup(t);
  world.runtime.pull = (ref) =>
    pullError(ref, "not-found", `failed to resolve reference "docker.io/library/${ref}": not found`);
  await t.rejects(run(), ExitError);
  t.match(
    world.stdout.text,
    /Warning +Failed +pod\/web\[init\] +Failed to pull image "busybox:1.36": failed to resolve reference/,
  );
  t.match(world.stdout.text, /Warning +Failed +pod\/web\[init\] +Error: ErrImagePull/);
  t.equal(
    world.stderr.lines().at(-1),
    'Error: ErrImagePull: pod/web: container init: failed to resolve reference "docker.io/library/busybox:1.36": not found',
  );
  t.same(world.runtime.listAll(), []);
  t.notOk(world.runtime.calls.some((c) => c.startsWith("createContainer")));
});

t.test("a name held by a container podrun did not make: NameConflict, nothing touched", async (t) => {
  const { world, run } = await setup(t);
  world.runtime.addContainer({ name: "default_web_app" });
  await t.rejects(run(), ExitError);
  t.match(world.stderr.lines().at(-1), /^Error: NameConflict: pod\/web: /);
  t.same(
    world.runtime.listAll().map((c) => c.name),
    ["default_web_app"],
    "the other container stays",
  );
  t.notOk(world.runtime.calls.some((c) => c.startsWith("create")));
});

t.test("--wait: an exec readiness probe that passes makes the pod ready", async (t) => {
  const probed = POD.replace(
    'command: ["sleep", "3600"]',
    'command: ["sleep", "3600"]\n      readinessProbe: { exec: { command: ["cat", "/data/flag"] } }',
  );
  const { world, run } = await setup(t, probed);
  world.runtime.script("app", { exec: () => ({ exitCode: 0, stdout: "ready", stderr: "" }) });
  await run({ wait: true, timeoutMs: 10_000 });
  t.ok(world.runtime.calls.includes("execInContainer app cat /data/flag"));
  t.match(world.stdout.lines().at(-1), /^pod\/web: ready: 1\/1 container \(\d+\.\ds\)$/);
  t.ok(world.stdout.lines().includes("pod/web: 1 container started; waiting up to 10s for readiness"));
});

t.test(
  "--wait: a container that exits under restartPolicy Never fails the wait and is left for inspection",
  async (t) => {
    const { world, run } = await setup(t, POD.replace("spec:\n", "spec:\n  restartPolicy: Never\n"));
    world.runtime.script("app", { exitCode: 2, logs: ["fatal: bad config"] });
    const error = await run({ wait: true, timeoutMs: 10_000 }).catch((e: unknown) => e);
    t.equal((error as ExitError).code, 1);
    t.same(world.stderr.lines(), [
      `podrun: pod/web left as it is (podrun down ${world.dir}/pod.yaml removes it)`,
      "last log lines of container app:",
      "    fatal: bad config",
      "Error: ContainerTerminated: pod/web: container app exited with code 2 and restartPolicy Never does not restart it",
    ]);
    t.equal(world.runtime.container("app")!.status, "exited", "left as it is");
  },
);

t.test("usage errors are thrown before the engine is asked anything", async (t) => {
  const { world, run } = await setup(t);
  await t.rejects(run({ timeoutMs: 1000 }), new UsageError("--timeout and --rm-on-interrupt apply only with --wait"));
  const onlyConfig = await world.manifest(
    "config.yaml",
    "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\ndata: { a: b }\n",
  );
  await t.rejects(
    up({
      files: [onlyConfig],
      publishAll: false,
      parallelPulls: 1,
      keepOnFailure: false,
      dryRun: false,
      json: false,
      ...world.io,
    }),
    {
      name: "UsageError",
      message: `${onlyConfig}: no Pod to run (the file holds only ConfigMaps or Secrets)`,
    },
  );
  t.same(world.runtime.calls, []);
});

t.test(
  "a Deployment: its stale pods are looked for by owner, then its replicas run as pods named by the controller's rules",
  async (t) => {
    const { world } = await setup(t);
    const deployment = await world.manifest(
      "deploy.yaml",
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec:\n  replicas: 2\n  selector: { matchLabels: { app: web } }\n  template:\n    metadata: { labels: { app: web } }\n    spec: { containers: [{ name: app, image: busybox:1.36 }] }\n",
    );
    await up({
      files: [deployment],
      publishAll: false,
      parallelPulls: 1,
      keepOnFailure: false,
      dryRun: false,
      json: false,
      ...world.io,
    });
    t.equal(
      world.runtime.calls[0],
      "listContainers io.podrun.managed=true,io.kubernetes.pod.namespace=default,io.podrun.owner=Deployment/web",
    );
    const sandboxes = world.runtime.calls.filter((call) => call.startsWith("createSandbox "));
    t.equal(sandboxes.length, 2, "two pods");
    for (const call of sandboxes)
      t.match(call, /^createSandbox default_web-[bcdfghjklmnpqrstvwxz2456789]+-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    t.equal(
      world.runtime.calls.filter((call) => call.startsWith("listContainers ")).length,
      1,
      "one look for stale pods per workload",
    );
  },
);

t.test("--json: one JSON event per line on stdout, no summary", async (t) => {
  const { world, run } = await setup(t);
  await run({ json: true });
  const events = world.stdout
    .lines()
    .map((line) => JSON.parse(line) as { reason: string; involvedObject: { fieldPath?: string } });
  t.same(
    events.map((e) => e.reason),
    ["Pulled", "Pulling", "Pulled", "Created", "Started", "Pulled", "Created", "Started"],
  );
  t.equal(events.at(-1)!.involvedObject.fieldPath, "spec.containers{app}");
});

t.test("two pods: one that fails does not stop the other; exit 1 names it", async (t) => {
  const { world, run } = await setup(
    t,
    `${POD}---\n${POD.replace("name: web", "name: api").replace(/busybox:1\.36/g, "busybox:1.37")}`,
  );
  world.runtime.pull = (ref) =>
    ref === "busybox:1.36" ? pullError(ref, "not-found", "manifest unknown") : { id: "sha256:api", size: 1 };
  const error = await run().catch((e: unknown) => e);
  t.equal((error as ExitError).code, 1);
  t.equal(world.stderr.lines().at(-1), "podrun: 1 of 2 pods failed: pod/web");
  t.same(
    world.runtime.listAll().map((c) => c.name),
    ["default_api_POD", "default_api_init", "default_api_app"],
  );
});
