import t, { type Test } from "tap";
import { MAX_PARALLEL_STARTS } from "../../lib/apply/up.js";
import { up, type UpOptions } from "../../lib/commands/up.js";
import { ExitError, UsageError } from "../../lib/errors.js";
import { createCommandWorld, type CommandWorld } from "../harness/command-io.js";
import { pullError } from "../harness/fake-runtime.js";

// `podrun up` of several pods against the shared fake engine: they start together, at most
// MAX_PARALLEL_STARTS at a time; a StatefulSet of OrderedReady keeps its order, and its next pods
// are not created when one fails; with --wait every pod has the run's one deadline. The real
// engines: up-concurrent.e2e.test.ts.

const pod = (name: string, image = "busybox:1.36") => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  containers: [{name: app, image: ${image}, command: [sleep, "3600"]}]
`;
const statefulSet = (policy: string, image = "busybox:1.36") => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  serviceName: db
  podManagementPolicy: ${policy}
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: app, image: ${image}, command: [sleep, "3600"]}]
`;

async function setup(
  t: Test,
  text: string,
): Promise<{ world: CommandWorld; run: (extra?: Partial<UpOptions>) => Promise<void> }> {
  const world = await createCommandWorld(t);
  const file = await world.manifest("stack.yaml", text);
  const run = (extra: Partial<UpOptions> = {}) =>
    up({
      files: [file],
      publishAll: false,
      parallelPulls: 1,
      keepOnFailure: false,
      dryRun: false,
      json: false,
      ...world.io,
      ...extra,
    });
  return { world, run };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test(`eight pods: they start together, ${MAX_PARALLEL_STARTS} at a time`, async (t) => {
  const names = Array.from({ length: 8 }, (_, i) => `p${i}`);
  const { world, run } = await setup(t, names.map((name) => pod(name)).join("---\n"));
  let open = 0;
  let most = 0;
  // Each sandbox takes a while to make: the starts overlap while they are made.
  world.runtime.on("createSandbox", async () => {
    most = Math.max(most, ++open);
    await sleep(30);
    open--;
  });
  await run();
  t.equal(most, MAX_PARALLEL_STARTS, `${MAX_PARALLEL_STARTS} sandboxes made at once, no more`);
  t.same(
    world.runtime
      .listAll()
      .filter((c) => c.name.endsWith("_app"))
      .map((c) => c.name)
      .sort(),
    names.map((name) => `default_${name}_app`),
    "all eight pods run",
  );
  for (const name of names) t.match(world.stdout.text, `pod/${name}: 1 container started`);
});

t.test("a StatefulSet of OrderedReady: each pod created once the one before it has started", async (t) => {
  const { world, run } = await setup(t, statefulSet("OrderedReady"));
  world.runtime.delay("startContainer", 20);
  await run();
  const steps = world.runtime.calls.filter((c) => /^(createSandbox|startContainer) /.test(c));
  t.same(steps, [
    "createSandbox default_db-0",
    "startContainer app",
    "createSandbox default_db-1",
    "startContainer app",
    "createSandbox default_db-2",
    "startContainer app",
  ]);
});

t.test("the first pod of an OrderedReady set takes a start slot before the bare pods listed ahead of it", async (t) => {
  // Five bare pods, then the set: FIFO slots would start db-0 in the second wave, and every pod
  // after it later by as much; db-0, waited for by two, is served first.
  const names = Array.from({ length: 5 }, (_, i) => `p${i}`);
  const { world, run } = await setup(t, [...names.map((name) => pod(name)), statefulSet("OrderedReady")].join("---\n"));
  world.runtime.on("createSandbox", async () => {
    await sleep(30);
  });
  await run();
  const made = world.runtime.calls.filter((c) => c.startsWith("createSandbox ")).map((c) => c.slice(22));
  t.ok(
    made.indexOf("db-0") < MAX_PARALLEL_STARTS,
    `db-0 among the first ${MAX_PARALLEL_STARTS} sandboxes: ${made.join(" ")}`,
  );
  t.ok(made.indexOf("p4") >= MAX_PARALLEL_STARTS, "a bare pod waits for the next slot instead");
});

t.test("Parallel: the three pods go together: no container starts before the three sandboxes are made", async (t) => {
  const { world, run } = await setup(t, statefulSet("Parallel"));
  let sandboxes = 0;
  let allMade: () => void = () => undefined;
  const made = new Promise<void>((resolve) => (allMade = resolve));
  world.runtime.on("createSandbox", () => void (++sandboxes === 3 && allMade()));
  // A container's start waits until the three sandboxes are there; pods one after the other
  // would never get there, and the start goes on after a second with fewer.
  const seen: number[] = [];
  world.runtime.on("startContainer", async () => {
    await Promise.race([made, sleep(1000)]);
    seen.push(sandboxes);
  });
  await run();
  t.same(seen, [3, 3, 3], "each container started with the three sandboxes made");
});

t.test("OrderedReady: db-0 fails, so db-1 and db-2 are not created; a pod beside them still runs", async (t) => {
  const { world, run } = await setup(t, `${pod("solo", "busybox:1.37")}---\n${statefulSet("OrderedReady")}`);
  world.runtime.pull = (ref) =>
    ref === "busybox:1.36" ? pullError(ref, "not-found", "manifest unknown") : { id: "sha256:solo", size: 1 };
  const error = await run().catch((e: unknown) => e);
  t.equal((error as ExitError).code, 1);
  const stderr = world.stderr.lines();
  for (const held of ["db-1", "db-2"])
    t.ok(
      stderr.includes(
        `pod/${held} not created: pod/db-${Number(held.at(-1)) - 1} did not come up, and statefulset/db starts its pods in order (podManagementPolicy OrderedReady)`,
      ),
      `${held} is held`,
    );
  t.equal(stderr.at(-1), "podrun: 3 of 4 pods failed: pod/db-0, pod/db-1, pod/db-2");
  t.same(
    world.runtime.listAll().map((c) => c.name),
    ["default_solo_POD", "default_solo_app"],
    "nothing of db-1 or db-2; db-0 undone",
  );
});

t.test("--wait: one deadline for the run, not one per pod from its own start", async (t) => {
  const probed = (name: string) =>
    pod(name)
      .replace("app, image", `${name}, image`)
      .replace(
        'command: [sleep, "3600"]}',
        'command: [sleep, "3600"], readinessProbe: {exec: {command: [cat, /tmp/ready]}, periodSeconds: 1}}',
      );
  const { world, run } = await setup(t, [probed("a"), probed("late")].join("---\n"));
  // `late` begins 1.2 s after `a` and is never Ready: its wait ends at the run's deadline (1.5 s
  // after the run began), not 1.5 s after its own start (2.7 s).
  world.runtime.delay("createSandbox", 1200, { subject: "default_late" });
  world.runtime.script("late", { exec: () => ({ exitCode: 1, stdout: "", stderr: "no such file" }) });
  const started = Date.now();
  const error = await run({ wait: true, timeoutMs: 1500 }).catch((e: unknown) => e);
  const seconds = (Date.now() - started) / 1000;
  t.equal((error as ExitError).code, 1);
  t.ok(seconds < 2.4, `ended at the run's deadline (${seconds}s)`);
  t.match(world.stdout.text, /pod\/a: ready: 1\/1 container/);
  t.match(world.stderr.text, /pod\/late: not ready after \S+: container late/);
});

t.test("$PODRUN_PARALLEL_LIMIT bounds the starts; anything but a positive integer is a usage error", async (t) => {
  const { world, run } = await setup(t, ["a", "b", "c"].map((name) => pod(name)).join("---\n"));
  let open = 0;
  let most = 0;
  world.runtime.on("createSandbox", async () => {
    most = Math.max(most, ++open);
    await sleep(30);
    open--;
  });
  await run({ env: { ...world.io.env, PODRUN_PARALLEL_LIMIT: "1" } });
  t.equal(most, 1, "one at a time");
  const error = await run({ env: { ...world.io.env, PODRUN_PARALLEL_LIMIT: "0" } }).catch((e: unknown) => e);
  t.type(error, UsageError);
  t.equal((error as Error).message, 'invalid value "0" for PODRUN_PARALLEL_LIMIT: expected a positive integer');
});
