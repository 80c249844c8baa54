import t, { type Test } from "tap";
import { logs, type LogsOptions } from "../../lib/commands/logs.js";
import { up } from "../../lib/commands/up.js";
import { ExitError, UsageError } from "../../lib/errors.js";
import { createCommandWorld, type CommandWorld } from "../harness/command-io.js";

// `podrun logs` against the shared fake engine, after a real `up` on the same
// fake: which container is read, what is printed, how it ends. The real engines: logs.e2e.test.ts.

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  initContainers:
    - name: migrate
      image: busybox:1.36
  containers:
    - name: app
      image: busybox:1.36
`;

async function setup(
  t: Test,
  manifest = POD,
): Promise<{ world: CommandWorld; run: (extra?: Partial<LogsOptions>) => Promise<void> }> {
  const world = await createCommandWorld(t);
  world.runtime.script("migrate", { logs: ["migrated 3 tables"] });
  world.runtime.script("app", {
    logs: ["listening on :8080", { text: "warning: no cache", stream: "stderr" }, "GET / 200"],
  });
  await up({
    files: [await world.manifest("pod.yaml", manifest)],
    publishAll: false,
    parallelPulls: 1,
    keepOnFailure: false,
    dryRun: false,
    json: false,
    ...world.io,
  });
  const run = (extra: Partial<LogsOptions> = {}) => {
    world.nextCommand();
    return logs({
      pod: "web",
      follow: false,
      timestamps: false,
      allContainers: false,
      prefix: false,
      ...world.io,
      ...extra,
    });
  };
  return { world, run };
}

t.test("the pod's only app container: its lines, stdout and stderr, on stdout", async (t) => {
  const { world, run } = await setup(t);
  await run();
  t.same(world.stdout.lines(), ["listening on :8080", "warning: no cache", "GET / 200"]);
  t.equal(world.stderr.text, "");
  t.ok(world.runtime.calls.includes("streamLogs app"));
});

t.test("--tail, --prefix, --timestamps, -c and --all-containers", async (t) => {
  const { world, run } = await setup(t);
  await run({ tail: 1, prefix: true });
  t.same(world.stdout.lines(), ["[pod/web/app] GET / 200"]);
  await run({ container: "migrate" });
  t.same(world.stdout.lines(), ["migrated 3 tables"]);
  await run({ allContainers: true, prefix: true });
  t.same(world.stdout.lines(), [
    "[pod/web/migrate] migrated 3 tables",
    "[pod/web/app] listening on :8080",
    "[pod/web/app] warning: no cache",
    "[pod/web/app] GET / 200",
  ]);
  await run({ timestamps: true, tail: 1 });
  t.match(world.stdout.lines(), [/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z GET \/ 200$/]);
});

t.test("--follow: lines as the container writes them, until it stops", async (t) => {
  const { world, run } = await setup(t);
  const following = run({ follow: true });
  while (!world.stdout.text.includes("GET / 200")) await new Promise((resolve) => setTimeout(resolve, 5));
  world.runtime.writeLog("app", "GET /health 200");
  world.runtime.exit("app", 0);
  await following;
  t.same(world.stdout.lines().slice(-2), ["GET / 200", "GET /health 200"]);
});

t.test("--follow ends quietly when its signal aborts (Ctrl-C)", async (t) => {
  const { world, run } = await setup(t);
  const controller = new AbortController();
  const following = run({ follow: true, signal: controller.signal });
  while (!world.stdout.text.includes("GET / 200")) await new Promise((resolve) => setTimeout(resolve, 5));
  controller.abort();
  await following;
  t.equal(world.runtime.container("app")!.status, "running", "the container goes on");
});

t.test("a pod that is not there: kubectl's NotFound line, exit 1", async (t) => {
  const { world, run } = await setup(t);
  const error = await run({ pod: "nope" }).catch((e: unknown) => e);
  t.type(error, ExitError);
  t.equal((error as ExitError).code, 1);
  t.same(world.stderr.lines(), ['Error from server (NotFound): pods "nope" not found']);
});

t.test("usage errors: -c with --all-containers, an unknown container", async (t) => {
  const { run } = await setup(t);
  await t.rejects(
    run({ container: "app", allContainers: true }),
    new UsageError("--all-containers=true should not be specified with container name app"),
  );
  await t.rejects(run({ container: "db" }), new UsageError("container db is not valid for pod web"));
});
