import t from "tap";
import { rolloutStatus } from "../../lib/commands/rollout.js";
import { ExitError, UsageError } from "../../lib/errors.js";
import { createCommandWorld, upManifest } from "../harness/command-io.js";

// `podrun rollout status` against the shared fake engine after a real `up`: kubectl's progress
// lines as the pods' readiness probes pass, its end lines, its timeout. On the engines:
// kubectl-verbs.ts.

const STACK = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: server
          image: busybox:1.36
          readinessProbe: {exec: {command: [ready]}, periodSeconds: 1}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
        - {name: postgres, image: busybox:1.36}
`;

t.test("kubectl's lines: waiting with the count of available replicas, then rolled out", async (t) => {
  const world = await createCommandWorld(t);
  // The second probe of the two pods fails: one pod is ready at once, the other a period later.
  let calls = 0;
  world.runtime.script("server", {
    exec: () => ({ exitCode: ++calls === 2 ? 1 : 0, stdout: "", stderr: "" }),
  });
  await upManifest(world, "stack.yaml", STACK);
  world.nextCommand();
  await rolloutStatus({ target: "deploy/api", ...world.io });
  const lines = world.stdout.lines();
  t.equal(lines[0], 'Waiting for deployment "api" rollout to finish: 0 of 2 updated replicas are available...');
  t.equal(lines.at(-1), 'deployment "api" successfully rolled out');
  t.ok(lines.includes('Waiting for deployment "api" rollout to finish: 1 of 2 updated replicas are available...'));

  world.nextCommand();
  await rolloutStatus({ target: "sts/db", ...world.io });
  t.equal(world.stdout.lines()[0], "Waiting for 1 pods to be ready...");
  t.match(world.stdout.lines().at(-1), /^statefulset rolling update complete 1 pods at revision db-[0-9a-z]+\.\.\.$/);
});

t.test("not in time: kubectl's error, exit 1; kubectl's NotFound; kinds without a status viewer", async (t) => {
  const world = await createCommandWorld(t);
  world.runtime.script("server", { exec: () => ({ exitCode: 1, stdout: "", stderr: "" }) });
  await upManifest(world, "stack.yaml", STACK);
  world.nextCommand();
  await t.rejects(rolloutStatus({ target: "deploy/api", timeout: "1500ms", ...world.io }), ExitError);
  t.same(world.stderr.lines(), ["error: timed out waiting for the condition"]);
  world.nextCommand();
  await t.rejects(rolloutStatus({ target: "deploy/web", ...world.io }), ExitError);
  t.same(world.stderr.lines(), ['Error from server (NotFound): deployments.apps "web" not found']);
  await t.rejects(rolloutStatus({ target: "job/x", ...world.io }), /no status viewer has been implemented for Job/);
  await t.rejects(rolloutStatus({ target: "api", ...world.io }), UsageError);
});
