import t, { type Test } from "tap";
import { wait, type WaitOptions } from "../../lib/commands/wait.js";
import { down } from "../../lib/commands/down.js";
import { ExitError, UsageError } from "../../lib/errors.js";
import { createCommandWorld, upManifest, type CommandWorld } from "../harness/command-io.js";

// `podrun wait` against the shared fake engine after a real `up` on it: kubectl's lines and exit
// codes, readiness decided by the pods' probes (run by the waiting process), -l, workloads, Jobs,
// delete. On the engines: kubectl-verbs.ts.

const STACK = `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers:
    - {name: app, image: busybox:1.36}
---
apiVersion: v1
kind: Pod
metadata: {name: gated, labels: {app: web}}
spec:
  containers:
    - name: gate
      image: busybox:1.36
      readinessProbe: {exec: {command: [cat, /tmp/ready]}, periodSeconds: 1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - {name: server, image: busybox:1.36}
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - {name: migration, image: busybox:1.36}
`;

async function setup(
  t: Test,
): Promise<{ world: CommandWorld; run: (o: Partial<WaitOptions>) => Promise<void>; openGate: () => void }> {
  const world = await createCommandWorld(t);
  let gateOpen = false;
  world.runtime.script("gate", {
    exec: () => (gateOpen ? { exitCode: 0, stdout: "", stderr: "" } : { exitCode: 1, stdout: "", stderr: "no file" }),
  });
  world.runtime.script("migration", { exitCode: 0 });
  await upManifest(world, "stack.yaml", STACK);
  const run = (extra: Partial<WaitOptions>) => {
    world.nextCommand();
    return wait({ args: [], ...world.io, ...extra });
  };
  return { world, run, openGate: () => (gateOpen = true) };
}

t.test("a ready pod: kubectl's line, exit 0; one whose probe fails: the timeout, exit 1", async (t) => {
  const { world, run, openGate } = await setup(t);
  await run({ args: ["pod/web"], for: "condition=Ready" });
  t.same(world.stdout.lines(), ["pod/web condition met"]);
  const error = await run({ args: ["pod", "gated"], for: "condition=ready", timeout: "1500ms" }).catch(
    (e: unknown) => e,
  );
  t.type(error, ExitError);
  t.equal((error as ExitError).code, 1);
  t.same(world.stderr.lines(), ["error: timed out waiting for the condition on pods/gated"]);
  openGate();
  await run({ args: ["pods"], selector: "app=web", for: "condition=Ready", timeout: "5s" });
  t.same(
    world.stdout.lines().sort(),
    ["pod/gated condition met", "pod/web condition met"],
    "-l: each pod, once its probe passes",
  );
});

t.test("a Deployment's Available, a Job's Complete, a JSONPath, delete", async (t) => {
  const { world, run } = await setup(t);
  await run({ args: ["deploy/api"], for: "condition=Available" });
  t.same(world.stdout.lines(), ["deployment.apps/api condition met"]);
  await run({ args: ["job/migrate"], for: "condition=Complete", timeout: "5s" });
  t.same(world.stdout.lines(), ["job.batch/migrate condition met"]);
  await run({ args: ["pod/web"], for: "jsonpath={.status.phase}=Running" });
  t.same(world.stdout.lines(), ["pod/web condition met"]);
  const waiting = run({ args: ["pod/web"], for: "delete", timeout: "10s" });
  await down({ targets: ["web"], all: false, json: false, ...world.io, stdout: world.stdout, stderr: world.stderr });
  await waiting;
  t.match(world.stdout.text, /pod\/web condition met/);
});

t.test("kubectl's errors", async (t) => {
  const { world, run } = await setup(t);
  await t.rejects(run({ args: ["pod/nope"], for: "condition=Ready" }), ExitError);
  t.same(world.stderr.lines(), ['Error from server (NotFound): pods "nope" not found']);
  await t.rejects(run({ args: ["pod"], selector: "app=db", for: "condition=Ready" }), ExitError);
  t.same(world.stderr.lines(), ["error: no matching resources found"]);
  await t.rejects(run({ args: ["pod/web"], for: "condition=Available" }), /a Pod has no condition "Available"/);
  await t.rejects(
    run({ args: ["pod"], for: "condition=Ready" }),
    new UsageError("resource(s) were provided, but no name was specified"),
  );
  await t.rejects(run({ args: ["svc/web"], for: "delete" }), /podrun wait takes pods and workloads, not "svc"/);
  await t.rejects(
    run({ args: ["deploy/api"], for: "jsonpath={.status.phase}=Running" }),
    /podrun keeps no Deployment object/,
  );
});
