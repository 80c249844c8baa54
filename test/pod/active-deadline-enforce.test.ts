import t, { type Test } from "tap";
import { ps } from "../../lib/commands/ps.js";
import { up, type UpOptions } from "../../lib/commands/up.js";
import { ExitError, PodrunError } from "../../lib/errors.js";
import { defaultPod } from "../../lib/manifest/defaults.js";
import { findIgnoredFields } from "../../lib/kinds/support/support.js";
import { findActiveDeadline, formatDeadlineWarnings } from "../../lib/pod/active-deadline.js";
import { waitForPodReady } from "../../lib/pod/readiness/wait-ready.js";
import { createCommandWorld, type CommandWorld } from "../harness/command-io.js";
import { FakeRuntime } from "../harness/fake-runtime.js";

// spec.activeDeadlineSeconds against the shared fake engine: `up --wait` fails the pod when it
// passes (the DeadlineExceeded event, Killing, the containers stopped and kept), an `up` of a pod
// already past it leaves it Failed, `up` without --wait warns, and `ps` shows DeadlineExceeded.
// Time: the fake engine's clock says when the pod was made. The real engines:
// test/commands/active-deadline.e2e.test.ts.

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: job
spec:
  activeDeadlineSeconds: 30
  terminationGracePeriodSeconds: 5
  containers:
    - name: app
      image: busybox:1.36
      command: ["sleep", "3600"]
      readinessProbe:
        exec:
          command: ["false"]
`;

const HOUR = 3_600_000;

async function setup(t: Test, manifest = POD) {
  // The engine's clock: an hour ago until a test moves it, so a new pod is an hour old at once.
  const clock = { offset: -HOUR };
  const world: CommandWorld = await createCommandWorld(t, {
    images: ["registry.k8s.io/pause:3.10", "busybox:1.36"],
    clock: () => Date.now() + clock.offset,
  });
  world.runtime.script("app", { exec: () => ({ exitCode: 1, stdout: "", stderr: "" }) });
  const file = await world.manifest("job.yaml", manifest);
  const run = async (extra: Partial<UpOptions> = {}) => {
    world.nextCommand();
    try {
      await up({
        files: [file],
        publishAll: false,
        parallelPulls: 1,
        keepOnFailure: false,
        dryRun: false,
        json: false,
        ...world.io,
        ...extra,
      });
      return 0;
    } catch (error) {
      if (error instanceof ExitError) return error.code;
      throw error;
    }
  };
  const status = async () => {
    world.nextCommand();
    await ps({ ...world.io, allNamespaces: false, wide: false, json: false });
    return world.stdout.text;
  };
  return { world, clock, run, status, file };
}

t.test(
  "up --wait: the deadline has passed: DeadlineExceeded, Killing, the containers stopped and kept; exit 1",
  async (t) => {
    const { world, clock, run, status } = await setup(t);
    // The stop happens now, an hour after the pod was made.
    world.runtime.on("stopContainer", () => void (clock.offset = 0));
    t.equal(await run({ wait: true, timeoutMs: 60_000 }), 1);
    const lines = world.stdout.lines();
    const deadline = lines.findIndex((line) =>
      /Normal +DeadlineExceeded +pod\/job +Pod was active on the node longer than the specified deadline$/.test(line),
    );
    const killing = lines.findIndex((line) => /Normal +Killing +pod\/job\[app\] +Stopping container app$/.test(line));
    t.ok(deadline >= 0, "the kubelet's event, on the pod");
    t.ok(killing > deadline, "then the containers are killed");
    t.match(
      world.runtime.calls.filter((c) => c.startsWith("stopContainer")),
      ["stopContainer app 5"],
      "with the pod's grace period",
    );
    t.notOk(
      world.runtime.calls.some((c) => c.startsWith("removeContainers") || c.startsWith("removeSandbox")),
      "nothing removed: ps and logs show it",
    );
    const err = world.stderr.text.trimEnd().split("\n");
    t.match(err.at(-2), /^podrun: pod\/job left stopped \(podrun down .*job\.yaml removes it\)$/);
    t.equal(
      err.at(-1),
      "Error: DeadlineExceeded: pod/job: Pod was active on the node longer than the specified deadline (activeDeadlineSeconds: 30)",
    );
    t.notMatch(world.stderr.text, /Warning: spec\.activeDeadlineSeconds/, "--wait enforces it: no warning");
    t.match(await status(), /^job +0\/1 +DeadlineExceeded +0 /m);
  },
);

t.test(
  "up of a pod past its deadline: it stays Failed (running containers stopped, nothing started); --replace makes a new pod",
  async (t) => {
    const { world, clock, run, status } = await setup(t);
    t.equal(await run(), 0, "without --wait: started");
    t.match(
      world.stderr.text,
      /job\.yaml: Warning: spec\.activeDeadlineSeconds: enforced only while podrun up --wait waits: nothing stops pod\/job when its 30s pass; podrun ps then shows it as DeadlineExceeded/,
    );
    clock.offset = 0;
    t.match(await status(), /^job +0\/1 +DeadlineExceeded /m, "ps: past it, though its container still runs");

    world.runtime.calls.length = 0;
    t.equal(await run(), 1);
    t.match(
      world.stdout.text,
      /DeadlineExceeded +pod\/job +Pod was active on the node longer than the specified deadline/,
    );
    t.match(
      world.stdout.text,
      /Killing +pod\/job\[app\] +Stopping container app/,
      "what still ran is killed, as a node would",
    );
    t.notOk(
      world.runtime.calls.some((c) => /^(create|start|remove)/.test(c)),
      "nothing created, started or removed",
    );
    t.match(
      world.stderr.text,
      /left stopped \(podrun down .* removes it; up --replace runs it anew\)\nError: DeadlineExceeded: pod\/job: /,
    );

    world.runtime.calls.length = 0;
    t.equal(await run(), 1, "again: still Failed");
    t.notMatch(world.stdout.text, /Killing/, "nothing left to kill");

    world.runtime.calls.length = 0;
    t.equal(await run({ replace: true }), 0, "--replace: a new pod, with a start time of its own");
    t.ok(world.runtime.calls.includes("createSandbox default_job"));
    t.match(await status(), /^job +1\/1 +Running /m);
  },
);

t.test("up of a pod within its deadline keeps it; a changed deadline is a new pod", async (t) => {
  const { world, clock, run } = await setup(t);
  clock.offset = 0;
  t.equal(await run(), 0);
  world.runtime.calls.length = 0;
  t.equal(await run(), 0);
  t.match(world.stdout.text, /pod\/job\[app\] unchanged/);
  t.notOk(world.runtime.calls.some((c) => c.startsWith("create")));

  world.runtime.calls.length = 0;
  await world.manifest("job.yaml", POD.replace("activeDeadlineSeconds: 30", "activeDeadlineSeconds: 60"));
  t.equal(await run(), 0);
  t.ok(
    world.runtime.calls.includes("createSandbox default_job"),
    "recreated: its containers' label says the new deadline",
  );
});

t.test("the wait fails when the deadline comes, not before", async (t) => {
  const pod = defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "job" },
    spec: {
      activeDeadlineSeconds: 1,
      containers: [
        { name: "app", image: "busybox", readinessProbe: { exec: { command: ["false"] }, periodSeconds: 1 } },
      ],
    },
  });
  const runtime = new FakeRuntime();
  const app = runtime.addContainer({
    id: "id-app",
    name: "default_job_app",
    labels: { "io.kubernetes.container.name": "app" },
  });
  runtime.script("app", { exec: () => ({ exitCode: 1, stdout: "", stderr: "" }) });
  const began = Date.now();
  const deadline = await findActiveDeadline(
    runtime,
    pod,
    { containers: [{ name: "app", id: "id-app", kind: "app" }] },
    () => began,
  );
  t.equal(deadline?.atMs, Date.parse(app.createdAt) + 1000, "counted from the container's creation (no sandbox)");
  const error = await waitForPodReady({
    runtime,
    recorder: { event: () => undefined as never },
    pod,
    identity: { name: "job", namespace: "default", uid: "u" },
    containers: [{ name: "app", id: "id-app", kind: "app" }],
    podIP: "10.0.0.5",
    timeoutMs: 60_000,
    activeDeadline: { atMs: began + 300, error: new PodrunError("DeadlineExceeded", "past it") },
  }).catch((e: unknown) => e);
  const elapsed = Date.now() - began;
  t.type(error, PodrunError);
  t.equal((error as PodrunError).reason, "DeadlineExceeded");
  t.ok(elapsed >= 290 && elapsed < 5000, `at the deadline (${elapsed} ms)`);

  t.equal(
    await findActiveDeadline(
      runtime,
      defaultPod({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "x" },
        spec: { containers: [{ name: "app", image: "busybox" }] },
      }),
      { containers: [] },
    ),
    undefined,
    "no field: no deadline",
  );
});

t.test("the Warning names the file, the field and the pod; none for a pod without the field", async (t) => {
  const withIt = defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "a" },
    spec: { activeDeadlineSeconds: 90, containers: [{ name: "c", image: "busybox" }] },
  });
  const without = defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "b" },
    spec: { containers: [{ name: "c", image: "busybox" }] },
  });
  t.same(
    formatDeadlineWarnings({
      pods: [withIt, without],
      podSources: new Map([[withIt, "a.yaml"]]),
      source: "a.yaml, b.yaml",
    }),
    [
      "a.yaml: Warning: spec.activeDeadlineSeconds: enforced only while podrun up --wait waits: nothing stops pod/a when its 90s pass; podrun ps then shows it as DeadlineExceeded",
    ],
  );
});

t.test("the field is honoured: no 'not supported' Warning at load", async (t) => {
  const warnings: string[] = [];
  findIgnoredFields(
    {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "a" },
      spec: { activeDeadlineSeconds: 90, containers: [{ name: "c", image: "busybox" }] },
    },
    (w) => warnings.push(w.path.display),
  );
  t.same(warnings, []);
});

t.test("a container that cannot be stopped at the deadline is named before the error", async (t) => {
  const { world, run } = await setup(t);
  world.runtime.failOn("stopContainer", new Error("device busy"));
  t.equal(await run({ wait: true, timeoutMs: 60_000 }), 1);
  const err = world.stderr.text.trimEnd().split("\n");
  t.match(err.at(-3), /^podrun: could not stop app: .*device busy/);
  t.match(err.at(-1), /^Error: DeadlineExceeded: /);
});

t.test("a start time that cannot be read counts the deadline from now, and says so", async (t) => {
  const pod = defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "job" },
    spec: { activeDeadlineSeconds: 2, containers: [{ name: "app", image: "busybox" }] },
  });
  const failing = {
    inspectContainers: () => Promise.reject(new Error("engine gone\nits details")),
  };
  for (const started of [
    { sandboxId: "id-sandbox", containers: [] },
    { containers: [{ name: "app", id: "id-app", kind: "app" as const }] },
  ]) {
    const warnings: string[] = [];
    const deadline = await findActiveDeadline(
      failing,
      pod,
      started,
      () => 5000,
      (m) => warnings.push(m),
    );
    t.equal(deadline?.atMs, 7000, "from now");
    t.same(warnings, ["error determining status: engine gone: activeDeadlineSeconds counted from now"], "told once");
  }
});
