import { Readable } from "node:stream";
import t, { type Test } from "tap";
import { exec, type ExecOptions } from "../../lib/commands/exec.js";
import { ExitError, UsageError } from "../../lib/errors.js";
import { createCommandWorld, upManifest } from "../harness/command-io.js";

// `podrun exec` against the shared fake engine after a real `up` on it: the pod and container it
// picks, the exit code passed through, stdin, kubectl's messages. On the engines:
// kubectl-verbs.ts.

const PODS = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - {name: app, image: busybox:1.36}
        - {name: cache, image: busybox:1.36}
`;

async function setup(t: Test) {
  const world = await createCommandWorld(t);
  world.runtime.script("app", {
    exec: (command, stdin) =>
      command[0] === "fail"
        ? { exitCode: 3, stdout: "partial\n", stderr: "it failed\n" }
        : { exitCode: 0, stdout: `${command.join(" ")}${stdin ? `:${stdin}` : ""}\n`, stderr: "" },
  });
  await upManifest(world, "api.yaml", PODS);
  const run = (extra: Partial<ExecOptions>) => {
    world.nextCommand();
    return exec({ command: ["echo", "hi"], stdin: false, tty: false, ...world.io, ...extra });
  };
  return { world, run };
}

t.test("a workload's pod, its first container with kubectl's note; the command's output", async (t) => {
  const { world, run } = await setup(t);
  await run({ target: "deploy/api" });
  t.same(world.stdout.lines(), ["echo hi"]);
  t.same(world.stderr.lines(), ['Defaulted container "app" out of: app, cache']);
  await run({ selector: "app=api", container: "app" });
  t.same(world.stdout.lines(), ["echo hi"]);
  t.same(world.stderr.lines(), [], "no note with -c");
});

t.test("the command's exit code is podrun's, with kubectl's line", async (t) => {
  const { world, run } = await setup(t);
  const error = await run({ target: "deploy/api", container: "app", command: ["fail"] }).catch((e: unknown) => e);
  t.type(error, ExitError);
  t.equal((error as ExitError).code, 3);
  t.same(world.stdout.lines(), ["partial"]);
  t.same(world.stderr.lines(), ["it failed", "command terminated with exit code 3"]);
});

t.test("-i streams standard input to the command", async (t) => {
  const { world, run } = await setup(t);
  await run({
    target: "deploy/api",
    container: "app",
    command: ["cat"],
    stdin: true,
    input: Readable.from(["a\n", "b"]),
  });
  t.same(world.stdout.lines(), ["cat:a", "b"]);
});

t.test("kubectl's errors: no pod, no container, no command, pod and -l both", async (t) => {
  const { world, run } = await setup(t);
  await t.rejects(run({ target: "web" }), ExitError);
  t.same(world.stderr.lines(), ['Error from server (NotFound): pods "web" not found']);
  await t.rejects(run({ target: "deploy/web" }), ExitError);
  t.same(world.stderr.lines(), ['Error from server (NotFound): deployments.apps "web" not found']);
  await t.rejects(run({ target: "deploy/api", container: "db" }), ExitError);
  t.same(world.stderr.lines(), ['error: unable to upgrade connection: container not found ("db")']);
  await t.rejects(run({ selector: "app=web" }), ExitError);
  t.same(world.stderr.lines(), ['error: no pods found for selector "app=web"']);
  await t.rejects(
    run({ target: "deploy/api", command: [] }),
    new UsageError("you must specify at least one command for the container"),
  );
  await t.rejects(
    run({ target: "deploy/api", selector: "app" }),
    new UsageError("only a selector (-l) or a POD name is allowed"),
  );
  // A Service stands for a pod its selector picks: one that was never made is kubectl's NotFound.
  await t.rejects(run({ target: "svc/api" }), ExitError);
  t.same(world.stderr.lines(), ['Error from server (NotFound): services "api" not found']);
  await t.rejects(run({ target: "ingress/api" }), /podrun exec takes pods and workloads, not "ingress"/);
});
