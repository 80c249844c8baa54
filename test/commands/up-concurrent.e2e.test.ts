import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { PODRUN_BIN, runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import {
  engineBlind,
  BUSYBOX,
  PAUSE,
  requireEngine,
  requireImage,
  requireRegistry,
  requireTestEnv,
} from "../harness/engine.js";
import { countRegistryRequests, registryLogMark } from "../harness/registry-log.js";

// One `podrun up --wait` of a stack on the real engines, its pods together: five bare pods (one
// of them fails), two of them on an image the run pulls, a StatefulSet of 2 of OrderedReady, and
// one of 2 whose first pod fails (an absent image, never pulled), so that its second is held.
// The engine's own State.StartedAt says the bare pods started together and db-1 after db-0 was
// Ready; the open registry's access log, that the shared image was pulled once; and a Ctrl-C of
// a concurrent `up` with --rm-on-interrupt leaves nothing. The fake engine's cases (slots, the
// one deadline): up-concurrent.test.ts.

/** Seconds after its start at which each container's readiness probe passes. */
const READY_AFTER = 3;

/** The app container, indented by `indent`: its probe passes READY_AFTER s after it starts. */
const container = (image: string, indent: string) =>
  `
containers:
  - name: app
    image: ${image}
    imagePullPolicy: IfNotPresent
    command: ["sh", "-c", "sleep ${READY_AFTER}; touch /tmp/ready; exec sleep 3600"]
    readinessProbe: {exec: {command: [test, -f, /tmp/ready]}, periodSeconds: 1}`.replace(/\n/g, `\n${indent}`);
const pod = (ns: string, name: string, image: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}}
spec:
  terminationGracePeriodSeconds: 0${container(image, "  ")}
`;
const failing = (ns: string) => `apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: ${ns}}
spec:
  restartPolicy: Never
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sh", "-c", "echo no config; exit 3"]
`;
const statefulSet = (ns: string, name = "db", image = BUSYBOX) => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ${name}, namespace: ${ns}}
spec:
  replicas: 2
  serviceName: ${name}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 0${container(image, "      ").replace("IfNotPresent", image === BUSYBOX ? "IfNotPresent" : "Never")}
`;

interface Started {
  pod: string;
  startedAt: number;
}

/** Each app container of the namespace's pods, and when the engine says it started. */
async function startedAt(runtime: RuntimeName, ns: string): Promise<Map<string, number>> {
  const ids = (
    await runCommand(runtime, [
      "ps",
      "-aq",
      "--filter",
      `label=io.kubernetes.pod.namespace=${ns}`,
      "--filter",
      "label=io.kubernetes.container.name=app",
    ])
  ).stdout
    .split("\n")
    .filter(Boolean);
  if (ids.length === 0) return new Map();
  const inspected = JSON.parse((await runCommand(runtime, ["inspect", ...ids])).stdout) as {
    Config: { Labels: Record<string, string> };
    State: { StartedAt: string };
  }[];
  const started: Started[] = inspected.map((c) => ({
    pod: c.Config.Labels["io.kubernetes.pod.name"]!,
    startedAt: Date.parse(c.State.StartedAt),
  }));
  return new Map(started.map((s) => [s.pod, s.startedAt]));
}

async function setup(t: Test, runtime: RuntimeName) {
  const testEnv = requireTestEnv(t);
  if (
    !testEnv ||
    !(await requireEngine(t, runtime)) ||
    !(await requireRegistry(t, "open")) ||
    !(await requireImage(t, runtime, BUSYBOX)) ||
    !(await requireImage(t, runtime, PAUSE))
  )
    return undefined;
  const ns = `conc-${randomBytes(3).toString("hex")}`;
  const dir = await mkdtemp(join(tmpdir(), "podrun-concurrent-"));
  const env = { PODRUN_STATE_DIR: join(dir, "state") };
  t.teardown(async () => {
    await removeManagedContainers(runtime, { "io.kubernetes.pod.namespace": ns });
    await rm(dir, { recursive: true, force: true });
  });
  return { testEnv, ns, dir, env };
}

/** A tag of the test's own in the open registry, absent from `runtime`: pulling it is seen in the log. */
async function pushedTag(t: Test, runtime: RuntimeName, registry: string, name: string): Promise<string> {
  const image = `${registry}/podrun-test/${name}:1`;
  await runCommand("docker", ["tag", BUSYBOX, image]);
  await runCommand("docker", ["push", "-q", image]);
  const rmi = async () => {
    for (const engine of new Set<RuntimeName>(["docker", runtime]))
      await runCommand(engine, ["rmi", ...(engine === "podman" ? ["-f"] : []), image], { reject: false });
  };
  await rmi();
  t.teardown(rmi);
  return image;
}

for (const runtime of engineBlind("docker"))
  t.test(`${runtime}: one up --wait of nine pods, together; a failed StatefulSet pod holds the next`, async (t) => {
    const s = await setup(t, runtime);
    if (!s) return;
    const { testEnv, ns, dir, env } = s;
    const tag = `conc-${ns}`;
    // What one pull of a fresh tag asks the registry, on this engine.
    const once = await pushedTag(t, runtime, testEnv.registries.open, `${tag}-once`);
    const before = registryLogMark(testEnv, "open");
    await runCommand(runtime, ["pull", ...(runtime === "podman" ? ["-q"] : []), once]);
    const onePull = countRegistryRequests(testEnv, "open", { since: before, match: new RegExp(`/${tag}-once/`) });
    t.ok(onePull > 0, `one pull asks the registry ${onePull} times`);

    const shared = await pushedTag(t, runtime, testEnv.registries.open, `${tag}-shared`);
    const files = [
      ...["p0", "p1"].map((name) => pod(ns, name, shared)),
      ...["p2", "p3"].map((name) => pod(ns, name, BUSYBOX)),
      failing(ns),
      statefulSet(ns),
      statefulSet(ns, "broken", `localhost/podrun-test/absent-${ns}:1`),
    ];
    const file = join(dir, "stack.yaml");
    await writeFile(file, files.join("---\n"));
    const mark = registryLogMark(testEnv, "open");
    const started = Date.now();
    const result = await runCli(["up", "--runtime", runtime, "--wait", "--timeout", "90s", file], { env });
    const seconds = (Date.now() - started) / 1000;
    t.comment(`up --wait of 9 pods: ${seconds}s`);

    // A failing pod among them leaves the others Ready.
    t.equal(result.exitCode, 1, result.stderr);
    const failed = /podrun: 3 of 9 pods failed: (.*)\n$/.exec(result.stderr)?.[1]?.split(", ");
    t.same(failed?.sort(), ["pod/bad", "pod/broken-0", "pod/broken-1"], "3 of 9 pods failed, in the order they ended");
    // OrderedReady after a failure: the set's next pod is not created.
    t.match(
      result.stderr,
      /^pod\/broken-1 not created: pod\/broken-0 did not come up, and statefulset\/broken starts its pods in order \(podManagementPolicy OrderedReady\)$/m,
    );
    t.notOk((await startedAt(runtime, ns)).has("broken-1"), "no container of broken-1");
    for (const name of ["p0", "p1", "p2", "p3", "db-0", "db-1"])
      t.match(result.stdout, new RegExp(`^pod/${name}: ready: 1/1 container`, "m"), `${name} Ready`);

    // Together: four pods one after the other, each Ready before the next, would start at least
    // 3 × READY_AFTER s apart, first to last. The run starts them in its slots, 4 at a time, the
    // StatefulSets' first pods first (others wait for them), so two of the four may wait for a
    // slot, for as long as the engine takes to start a pod under the suite's load.
    const at = await startedAt(runtime, ns);
    const bare = ["p0", "p1", "p2", "p3"].map((name) => at.get(name)!);
    const spread = (Math.max(...bare) - Math.min(...bare)) / 1000;
    t.ok(spread < 3 * READY_AFTER, `the four started within ${spread}s of each other`);
    // OrderedReady: db-1 started once db-0 was Ready.
    const gap = (at.get("db-1")! - at.get("db-0")!) / 1000;
    t.ok(gap >= READY_AFTER - 0.1, `db-1 started ${gap}s after db-0, which is Ready ${READY_AFTER}s after its start`);

    // One pull for the two pods of the image, and the same requests as one pull of its own.
    t.equal(
      countRegistryRequests(testEnv, "open", { since: mark, match: new RegExp(`/${tag}-shared/`) }),
      onePull,
      "the shared image pulled once",
    );
    // Each pod is told Pulled: by the one pull, or "already present" when its own look at the
    // image came after that pull had ended (the pods start together, but not in step).
    t.ok((result.stdout.match(/Successfully pulled image/g)?.length ?? 0) >= 1, "the pull told");
    for (const name of ["p0", "p1"])
      t.match(
        result.stdout,
        new RegExp(`Pulled +pod/${name}\\[app\\] +(Successfully pulled image|Container image "[^"]+" already present)`),
        `${name} told Pulled`,
      );

    const down = await runCli(["down", "--runtime", runtime, file], { env });
    t.equal(down.exitCode, 0, down.stderr);
    t.same(await startedAt(runtime, ns), new Map(), "down removed every pod");
  });

for (const runtime of engineBlind("docker"))
  t.test(`${runtime}: Ctrl-C during a concurrent up --wait --rm-on-interrupt leaves nothing`, async (t) => {
    const s = await setup(t, runtime);
    if (!s) return;
    const { ns, dir, env } = s;
    const file = join(dir, "four.yaml");
    await writeFile(file, ["a", "b", "c", "d"].map((name) => pod(ns, name, BUSYBOX)).join("---\n"));
    const child = execa(
      process.execPath,
      [PODRUN_BIN, "up", "--runtime", runtime, "--wait", "--rm-on-interrupt", file],
      { env: { NO_COLOR: "1", ...env }, reject: false, timeout: 60_000, stdin: "ignore" },
    );
    // Interrupted while the pods start: after the first container's Started event.
    let output = "";
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (/Started .*container app/.test(output)) resolve();
      });
      void child.then(() => resolve());
    });
    child.kill("SIGINT");
    const result = await child;
    t.equal(result.exitCode, 130, String(result.stderr));
    const left = (
      await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.namespace=${ns}`])
    ).stdout.trim();
    t.equal(left, "", "no container of the four pods is left");
  });
