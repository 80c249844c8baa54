import t, { type Test } from "tap";
import { down } from "../../lib/commands/down.js";
import { events } from "../../lib/commands/events.js";
import { logs } from "../../lib/commands/logs.js";
import { ps } from "../../lib/commands/ps.js";
import { up } from "../../lib/commands/up.js";
import { ExitError, UsageError } from "../../lib/errors.js";
import { OWNER_LABEL } from "../../lib/workloads/expand.js";
import { createCommandWorld, type CommandWorld } from "../harness/command-io.js";

// ps, logs, events and down given a workload (`deploy/web`), against the shared fake engine after
// `up` of a Deployment, beside a bare pod whose name could be a pod of theirs. The pure parts: test/kinds/workload-ref.test.ts; the engines:
// workload-ref.e2e.test.ts.

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 1
      volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]
      containers:
        - name: app
          image: busybox:1.36
          volumeMounts: [{ name: data, mountPath: /data }]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data }
spec:
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 1Gi } }
`;

const BARE = `apiVersion: v1
kind: Pod
metadata: { name: web-bcdfg }
spec:
  terminationGracePeriodSeconds: 1
  containers: [{ name: app, image: busybox:1.36 }]
`;

interface Setup {
  world: CommandWorld;
  file: string;
  /** The Deployment's two pods, by name. */
  pods: string[];
}

async function setup(t: Test): Promise<Setup> {
  const world = await createCommandWorld(t, { images: ["registry.k8s.io/pause:3.10", "busybox:1.36"] });
  world.runtime.script("app", { logs: ["listening"] });
  const file = await world.manifest("web.yaml", DEPLOYMENT);
  await up({
    files: [file, await world.manifest("bare.yaml", BARE)],
    publishAll: false,
    parallelPulls: 1,
    keepOnFailure: false,
    dryRun: false,
    json: false,
    ...world.io,
  });
  const pods = [
    ...new Set(
      world.runtime
        .listAll()
        .filter((c) => c.labels[OWNER_LABEL] === "Deployment/web")
        .map((c) => c.labels["io.kubernetes.pod.name"]!),
    ),
  ];
  t.equal(pods.length, 2, "the Deployment's two pods run");
  world.nextCommand();
  return { world, file, pods };
}

const psBase = { allNamespaces: false, wide: false, json: false };

t.test("every container of a workload's pod carries the owner label; a bare pod's none", async (t) => {
  const { world, pods } = await setup(t);
  const owners = (pod: string) =>
    world.runtime
      .listAll()
      .filter((c) => c.labels["io.kubernetes.pod.name"] === pod)
      .map((c) => c.labels[OWNER_LABEL]);
  t.same(owners(pods[0]!), ["Deployment/web", "Deployment/web"], "sandbox and app container");
  t.same(owners("web-bcdfg"), [undefined, undefined]);
});

t.test(
  "ps deploy/web: the Deployment's pods only; -o wide says whose each is; --json has the ownerReferences",
  async (t) => {
    const { world, pods } = await setup(t);
    await ps({ ...psBase, names: ["deploy/web"], ...world.io });
    t.same(
      world.stdout
        .lines()
        .slice(1)
        .map((line) => line.split(/\s+/)[0]),
      [...pods].sort(),
    );
    world.nextCommand();
    await ps({ ...psBase, wide: true, ...world.io });
    const lines = world.stdout.lines();
    t.match(lines[0], /CONTAINER IDS\s+OWNER$/);
    t.same(
      lines.slice(1).map((line) => [line.split(/\s+/)[0], line.split(/\s+/).at(-1)]),
      [...[...pods].sort().map((p) => [p, "Deployment/web"]), ["web-bcdfg", "<none>"]].sort(),
    );
    world.nextCommand();
    await ps({ ...psBase, json: true, names: ["deployments/web", "web-bcdfg"], ...world.io });
    const list = JSON.parse(world.stdout.text) as {
      items: {
        metadata: { name: string; labels?: Record<string, string>; ownerReferences?: { kind: string; name: string }[] };
      }[];
    };
    t.same(
      list.items.map((i) => [i.metadata.name, i.metadata.ownerReferences?.[0]?.kind, i.metadata.labels?.[OWNER_LABEL]]),
      [...[...pods].sort().map((p) => [p, "ReplicaSet", "Deployment/web"]), ["web-bcdfg", undefined, undefined]],
    );
    t.match(list.items[0]!.metadata.ownerReferences![0]!.name, /^web-[a-z0-9]+$/);
  },
);

t.test("a bare pods' list keeps kubectl's columns: no OWNER", async (t) => {
  const { world } = await setup(t);
  await ps({ ...psBase, wide: true, names: ["web-bcdfg"], ...world.io });
  t.match(world.stdout.lines()[0], /CONTAINER IDS$/);
});

t.test(
  "a workload with no pods is kubectl's NotFound line, exit 1; an unknown type exit 2 before the engine",
  async (t) => {
    const { world } = await setup(t);
    await t.rejects(ps({ ...psBase, names: ["sts/web", "deploy/web"], ...world.io }), new ExitError(1));
    t.equal(world.stderr.text, 'Error from server (NotFound): statefulsets.apps "web" not found\n');
    t.equal(world.stdout.lines().length, 3, "the pods found are still listed");
    world.nextCommand();
    await t.rejects(
      logs({ pod: "job/web", follow: false, timestamps: false, allContainers: false, prefix: false, ...world.io }),
      new ExitError(1),
    );
    t.equal(world.stderr.text, 'Error from server (NotFound): jobs.batch "web" not found\n');
    world.nextCommand();
    world.runtime.calls.length = 0;
    await t.rejects(ps({ ...psBase, names: ["ingress/web"], ...world.io }), UsageError);
    await t.rejects(
      ps({ ...psBase, names: ["svc/web", "web"], ...world.io }),
      UsageError,
      "pods or Services, not both",
    );
    await t.rejects(
      logs({ pod: "svc/web", follow: false, timestamps: false, allContainers: false, prefix: false, ...world.io }),
      UsageError,
    );
    await t.rejects(events({ pod: "cm/web", wide: false, json: false, watch: false, ...world.io }), UsageError);
    await t.rejects(down({ targets: ["ingress/web"], all: false, json: false, ...world.io }), {
      message:
        /"ingress\/web" is no file or directory, and "ingress" is not a type podrun down takes: pod \(po\), service \(svc\), deployment \(deploy\)/,
    });
    t.same(world.runtime.calls, [], "nothing asked of the engine");
  },
);

t.test("logs deploy/web: each pod's lines in turn, prefixed with its pod; -f reads them at once", async (t) => {
  const { world, pods } = await setup(t);
  await logs({ pod: "deploy/web", follow: false, timestamps: false, allContainers: false, prefix: false, ...world.io });
  t.same(
    world.stdout.lines(),
    [...pods].sort().map((p) => `[pod/${p}/app] listening`),
  );
  world.nextCommand();
  await logs({
    pod: `pod/${pods[0]}`,
    follow: false,
    timestamps: false,
    allContainers: false,
    prefix: false,
    ...world.io,
  });
  t.same(world.stdout.lines(), ["listening"], "pod/NAME is the pod: no prefix, as before");
  world.nextCommand();
  const stop = new AbortController();
  const following = logs({
    pod: "deploy/web",
    follow: true,
    timestamps: false,
    allContainers: false,
    prefix: false,
    signal: stop.signal,
    ...world.io,
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  world.runtime.writeLog(`default_${pods[1]}_app`, "second");
  await new Promise((resolve) => setTimeout(resolve, 100));
  stop.abort();
  await following;
  t.same(
    world.stdout.lines().sort(),
    [...pods.map((p) => `[pod/${p}/app] listening`), `[pod/${pods[1]}/app] second`].sort(),
  );
});

t.test("logs of a workload with a pod still starting: that pod is named and left out, the others read", async (t) => {
  const { world, pods } = await setup(t);
  const first = world.runtime.container(`default_${pods[0]}_app`)!;
  world.runtime.setState(first.id, { running: false, startedAt: "", status: "created" });
  await logs({ pod: "deploy/web", follow: false, timestamps: false, allContainers: false, prefix: false, ...world.io });
  t.same(world.stdout.lines(), [`[pod/${pods[1]}/app] listening`]);
  t.equal(world.stderr.text, `container "app" in pod "${pods[0]}" is waiting to start: ContainerCreating\n`);
});

t.test("events deploy/web: its pods' events, not the bare pod's", async (t) => {
  const { world, pods } = await setup(t);
  await events({ pod: "deploy/web", wide: false, json: true, watch: false, ...world.io });
  const objects = new Set(
    world.stdout.lines().map((line) => (JSON.parse(line) as { involvedObject: { name: string } }).involvedObject.name),
  );
  t.same([...objects].sort(), [...pods].sort());
  world.nextCommand();
  await events({ pod: "web-bcdfg", wide: false, json: true, watch: false, ...world.io });
  t.ok(world.stdout.lines().length > 0, "the bare pod's own");
  t.ok(world.stdout.lines().every((line) => line.includes('"name":"web-bcdfg"')));
});

t.test("down deploy/web removes exactly its pods; again: not found, exit 0 as for a pod", async (t) => {
  const { world, pods } = await setup(t);
  await down({ targets: ["deploy/web"], all: false, json: false, ...world.io });
  t.same(
    world.stdout
      .lines()
      .filter((line) => / deleted /.test(line))
      .map((line) => line.split(" ")[0])
      .sort(),
    pods.map((p) => `pod/${p}`).sort(),
  );
  t.same(
    [...new Set(world.runtime.listAll().map((c) => c.labels["io.kubernetes.pod.name"]))],
    ["web-bcdfg"],
    "the bare pod stays",
  );
  t.ok(world.runtime.volumes.has("default_data"), "the claim's volume stays without --volumes");
  world.nextCommand();
  await down({ targets: ["deployment/web"], all: false, json: false, ...world.io });
  t.same(world.stdout.lines(), ["deployment/web not found"]);
  world.nextCommand();
  await down({ targets: ["deployment/web"], all: false, json: true, namespace: "ci", ...world.io });
  t.same(JSON.parse(world.stdout.text), { workload: "Deployment/web", namespace: "ci", status: "NotFound" });
});

t.test("down FILE of a Deployment: its pods, found by label even after the template changed", async (t) => {
  const { world, file, pods } = await setup(t);
  // A new image: a new pod-template-hash, so the names the file expands to now are not the running pods'.
  await world.manifest("web.yaml", DEPLOYMENT.replace("image: busybox:1.36", "image: busybox:1.37"));
  await down({ targets: [file], all: false, json: true, volumes: true, ...world.io });
  const results = world.stdout
    .lines()
    .map((line) => JSON.parse(line) as { pod?: string; status: string; persistentVolumeClaim?: string });
  t.same(
    results
      .filter((r) => r.pod)
      .map((r) => [r.pod, r.status])
      .sort(),
    pods.map((p) => [p, "Deleted"]).sort(),
  );
  t.same(
    results.filter((r) => r.persistentVolumeClaim).map((r) => [r.persistentVolumeClaim, r.status]),
    [["data", "Deleted"]],
    "--volumes: the file's claim",
  );
  t.same([...new Set(world.runtime.listAll().map((c) => c.labels["io.kubernetes.pod.name"]))], ["web-bcdfg"]);
});

t.test("down -n of a file whose workload is in another namespace: usage error", async (t) => {
  const { world, file } = await setup(t);
  await t.rejects(down({ targets: [file], all: false, json: false, namespace: "ci", ...world.io }), {
    message: /Deployment web is in namespace "default", which does not match -n ci/,
  });
});

t.test(
  "ps --volumes: the claim's volume, used by the Deployment's two pods; a claim named that is not there: exit 1",
  async (t) => {
    const { world, pods } = await setup(t);
    await ps({ ...psBase, volumes: true, ...world.io });
    t.same(world.stdout.lines(), [
      "NAME   VOLUME         USED BY",
      `data   default_data   ${[...pods].sort().join(",")}`,
    ]);
    world.nextCommand();
    await ps({ ...psBase, volumes: true, json: true, allNamespaces: true, ...world.io });
    t.same(JSON.parse(world.stdout.text), [
      { persistentVolumeClaim: "data", namespace: "default", volume: "default_data", usedBy: [...pods].sort() },
    ]);
    world.nextCommand();
    await t.rejects(ps({ ...psBase, volumes: true, names: ["data", "cache"], ...world.io }), new ExitError(1));
    t.equal(world.stderr.text, 'Error from server (NotFound): persistentvolumeclaims "cache" not found\n');
    world.nextCommand();
    await down({ targets: ["deploy/web"], all: false, json: false, ...world.io });
    world.nextCommand();
    await ps({ ...psBase, volumes: true, ...world.io });
    t.same(
      world.stdout.lines(),
      ["NAME   VOLUME         USED BY", "data   default_data   <none>"],
      "kept after down, used by none",
    );
  },
);

const JOB = `apiVersion: batch/v1
kind: Job
metadata: { name: migrate }
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 1
      containers: [{ name: main, image: busybox:1.36 }]
`;

t.test("a Job run by up: ps, logs and events job/NAME; down job/NAME removes its pod and its record", async (t) => {
  const world = await createCommandWorld(t, { images: ["registry.k8s.io/pause:3.10", "busybox:1.36"] });
  world.runtime.script("main", { exitCode: 0, logs: ["migrated"] });
  await up({
    files: [await world.manifest("job.yaml", JOB)],
    publishAll: false,
    parallelPulls: 1,
    keepOnFailure: false,
    dryRun: false,
    json: false,
    wait: true,
    timeoutMs: 10_000,
    ...world.io,
  });
  world.nextCommand();
  await ps({ ...psBase, names: ["jobs/migrate"], ...world.io });
  const [pod] = world.stdout
    .lines()
    .slice(1)
    .map((line) => line.split(/\s+/)[0]!);
  t.match(pod, /^migrate-[a-z0-9]{5}$/);
  t.match(world.stdout.lines()[1], /Completed/);
  world.nextCommand();
  await logs({
    pod: "job/migrate",
    follow: false,
    timestamps: false,
    allContainers: false,
    prefix: false,
    ...world.io,
  });
  t.same(world.stdout.lines(), ["migrated"], "one pod: as logs POD");
  world.nextCommand();
  await events({ pod: "job/migrate", wide: false, json: true, watch: false, ...world.io });
  const objects = world.stdout
    .lines()
    .map(
      (line) => (JSON.parse(line) as { involvedObject: { kind: string; name: string }; reason: string }).involvedObject,
    );
  t.ok(
    objects.some((o) => o.kind === "Job" && o.name === "migrate"),
    "the Job's own events (SuccessfulCreate, Completed)",
  );
  t.ok(
    objects.some((o) => o.kind === "Pod" && o.name === pod),
    "and its pod's",
  );
  world.nextCommand();
  await down({ targets: ["job/migrate"], all: false, json: false, ...world.io });
  t.match(world.stdout.text, `pod/${pod} deleted`);
  t.same(world.runtime.listAll(), [], "nothing left");
  world.nextCommand();
  await down({ targets: ["job/migrate"], all: false, json: false, ...world.io });
  t.same(world.stdout.lines(), ["job/migrate not found"], "the record went with the pod: the Job is gone");
});

t.test(
  "down job/NAME of a failed Job whose pod its controller deleted: the Job (its record) is deleted, not 'not found'",
  async (t) => {
    const world = await createCommandWorld(t, { images: ["registry.k8s.io/pause:3.10", "busybox:1.36"] });
    world.runtime.script("main", { runs: true });
    const file = await world.manifest(
      "job.yaml",
      JOB.replace("  backoffLimit: 0\n", "  backoffLimit: 0\n  activeDeadlineSeconds: 1\n"),
    );
    await t.rejects(
      up({
        files: [file],
        publishAll: false,
        parallelPulls: 1,
        keepOnFailure: false,
        dryRun: false,
        json: false,
        wait: true,
        timeoutMs: 10_000,
        ...world.io,
      }),
      new ExitError(1),
    );
    t.same(world.runtime.listAll(), [], "DeadlineExceeded: the controller deleted the pod");
    world.nextCommand();
    await down({ targets: ["job/migrate"], all: false, json: true, ...world.io });
    t.same(JSON.parse(world.stdout.text), { workload: "Job/migrate", namespace: "default", status: "Deleted" });
    world.nextCommand();
    await down({ targets: ["job/migrate"], all: false, json: false, ...world.io });
    t.same(world.stdout.lines(), ["job/migrate not found"], "then it is gone");
  },
);
