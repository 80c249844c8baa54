import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { engineBlind, BUSYBOX, requireEngine, requireImage } from "../harness/engine.js";

// `podrun down` end to end, against the real engines: emptyDir volumes shared by the containers of
// a pod, preStop hooks, Killing events, and nothing left behind (checked with the engine's own CLI,
// by label). Every pod here is in a namespace of its own test: `--all` is always narrowed with -n,
// since other test files run pods on the same engines at the same time.

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;

interface DownResult {
  pod: string;
  namespace: string;
  status: string;
  containers: number;
  volumes: number;
  failures: unknown[];
}

async function setup(t: Test, runtime: RuntimeName) {
  const engine = await requireEngine(t, runtime);
  if (
    !engine ||
    !(await requireImage(t, runtime, BUSYBOX)) ||
    !(await requireImage(t, runtime, "registry.k8s.io/pause:3.10"))
  )
    return undefined;
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-down-state-"));
  const dir = await mkdtemp(join(tmpdir(), "podrun-down-"));
  t.teardown(() => Promise.all([stateDir, dir].map((path) => rm(path, { recursive: true, force: true }))));
  const env = { PODRUN_STATE_DIR: stateDir };
  const write = async (name: string, yaml: string) => {
    const file = join(dir, `${name}.yaml`);
    await writeFile(file, yaml);
    return file;
  };
  const podrun = (args: string[]) => runCli([args[0]!, "--runtime", runtime, ...args.slice(1)], { env });
  const lines = async (args: string[]) =>
    (await runCommand(runtime, args)).stdout
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
  /** Everything of the pod the engine still has: containers (running or not), volumes, and podman's pods. */
  const leftovers = async (pod: string) => ({
    containers: await lines(["ps", "-a", "-q", "--filter", `label=io.kubernetes.pod.name=${pod}`]),
    volumes: (await lines(["volume", "ls", "-q", "--filter", `label=io.kubernetes.pod.name=${pod}`])).filter((v) =>
      v.includes(pod),
    ),
    pods:
      runtime === "podman" ? await lines(["pod", "ps", "-q", "--filter", `label=io.kubernetes.pod.name=${pod}`]) : [],
  });
  const events = async () =>
    (await readFile(join(stateDir, "events.ndjson"), "utf8"))
      .split("\n")
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as {
            reason: string;
            message: string;
            type: string;
            involvedObject: { name: string; fieldPath?: string };
          },
      );
  return { write, podrun, leftovers, events, lines };
}

/** Removes what a failed test may leave: containers, pods and volumes labelled with the pod's name. */
async function teardown(runtime: RuntimeName, pod: string): Promise<void> {
  await removeManagedContainers(runtime, { "io.kubernetes.pod.name": pod });
  const volumes = (
    await runCommand(runtime, ["volume", "ls", "-q", "--filter", `label=io.kubernetes.pod.name=${pod}`], {
      reject: false,
    })
  ).stdout
    .split("\n")
    .filter((v) => v.includes(pod));
  if (volumes.length > 0) await runCommand(runtime, ["volume", "rm", ...volumes], { reject: false });
}

async function waitFor(check: () => Promise<boolean>, ms = 15_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

// Each case has its own state directory and uniquely named pods: two run at once.
t.jobs = 2;
for (const runtime of engineBlind("docker")) {
  t.test(
    `${runtime}: an emptyDir shared by the pod's containers; down runs preStop, records Killing, leaves nothing; twice is fine`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("down");
      t.teardown(() => teardown(runtime, name));
      // init writes, writer writes, reader reads both; at `down` the writer's preStop hook writes a
      // file that the reader, still running (hooks all run before any stop), reports in its log.
      const file = await env.write(
        name,
        `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  volumes:
    - name: shared
      emptyDir: {}
  initContainers:
    - name: init
      image: ${BUSYBOX}
      command: ["sh", "-c", "echo from-init > /data/init.txt"]
      volumeMounts: [{ name: shared, mountPath: /data }]
  containers:
    - name: writer
      image: ${BUSYBOX}
      command: ["sh", "-c", "echo from-writer > /data/writer.txt; exec sleep 600"]
      volumeMounts: [{ name: shared, mountPath: /data }]
      lifecycle:
        preStop:
          exec:
            command: ["sh", "-c", "echo stopping > /data/prestop.txt"]
    - name: reader
      image: ${BUSYBOX}
      command: ["sh", "-c", "until [ -f /data/writer.txt ]; do sleep 0.1; done; cat /data/init.txt /data/writer.txt; until [ -f /data/prestop.txt ]; do sleep 0.1; done; echo saw-prestop; exec sleep 600"]
      volumeMounts: [{ name: shared, mountPath: /data, readOnly: true }]
`,
      );
      const up = await env.podrun(["up", "--json", file]);
      t.equal(up.exitCode, 0, up.stderr);
      t.notMatch(up.stderr, "Warning", "volumes and preStop give no warning");

      const reader = `default_${name}_reader`;
      const readerLog = async () => (await runCommand(runtime, ["logs", reader], { reject: false })).stdout;
      t.ok(await waitFor(async () => (await readerLog()).includes("from-writer")), "the reader sees the writer's file");
      t.match(await readerLog(), /from-init\nfrom-writer/, "and the init container's: one emptyDir for the whole pod");

      const before = await env.leftovers(name);
      t.same(before.volumes, [`default_${name}_shared`], "one engine volume, found by the pod's label");
      const [volume] = JSON.parse(
        (await runCommand(runtime, ["volume", "inspect", `default_${name}_shared`])).stdout,
      ) as { Labels: Record<string, string> }[];
      t.match(volume!.Labels, {
        "io.kubernetes.pod.name": name,
        "io.kubernetes.pod.namespace": "default",
        "io.podrun.managed": "true",
        "io.podrun.volume": "shared",
      });
      const readOnly = await runCommand(runtime, ["exec", reader, "sh", "-c", "touch /data/x"], { reject: false });
      t.not(readOnly.exitCode, 0, "readOnly: true is read-only");

      // Follow the reader's log through the deletion: it ends when the reader is stopped.
      const follow = runCommand(runtime, ["logs", "-f", reader], { reject: false, timeoutMs: 60_000 });
      // By name: no manifest, so the hook and the grace period come from the containers' labels.
      const down = await env.podrun(["down", "--json", name]);
      t.equal(down.exitCode, 0, down.stderr);
      const result = JSON.parse(down.stdout.trim()) as DownResult;
      t.match(result, { pod: name, namespace: "default", status: "Deleted", containers: 3, volumes: 1, failures: [] });
      t.match(
        (await follow).stdout,
        "saw-prestop",
        "the preStop hook ran while the pod's containers were still running",
      );

      t.same(await env.leftovers(name), { containers: [], volumes: [], pods: [] }, "no container, volume or pod left");
      const killing = (await env.events()).filter((e) => e.involvedObject.name === name && e.reason === "Killing");
      t.same(
        killing.map((e) => `${e.involvedObject.fieldPath} ${e.message}`).sort(),
        ["spec.containers{reader} Stopping container reader", "spec.containers{writer} Stopping container writer"],
        "Killing events in the event log",
      );

      const again = await env.podrun(["down", file]);
      t.equal(again.exitCode, 0, again.stderr);
      t.equal(again.stdout, `pod/${name} not found\n`);
    },
  );

  t.test(
    `${runtime}: down --all -n NS removes that namespace's podrun pods and nothing else`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const namespace = unique("ns");
      const other = unique("ns-other");
      const [a, b, kept] = [unique("all-a"), unique("all-b"), unique("kept")];
      const foreign = unique("foreign");
      for (const pod of [a, b, kept]) t.teardown(() => teardown(runtime, pod));
      t.teardown(async () => {
        await runCommand(runtime, ["rm", "-f", foreign], { reject: false });
        await runCommand(runtime, ["volume", "rm", foreign], { reject: false });
      });
      // Something podrun did not make, though it carries the namespace's label: it must survive.
      await runCommand(runtime, [
        "run",
        "-d",
        "--name",
        foreign,
        "--label",
        `io.kubernetes.pod.namespace=${namespace}`,
        BUSYBOX,
        "sleep",
        "600",
      ]);
      await runCommand(runtime, ["volume", "create", "--label", `io.kubernetes.pod.namespace=${namespace}`, foreign]);

      const pod = (podName: string, ns: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${podName}
  namespace: ${ns}
spec:
  terminationGracePeriodSeconds: 1
  volumes: [{ name: scratch, emptyDir: {} }]
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sleep", "600"]
      volumeMounts: [{ name: scratch, mountPath: /scratch }]
`;
      const fileA = await env.write(a, `${pod(a, namespace)}---\n${pod(b, namespace)}`);
      const fileKept = await env.write(kept, pod(kept, other));
      for (const up of await Promise.all([fileA, fileKept].map((file) => env.podrun(["up", file]))))
        t.equal(up.exitCode, 0, up.stderr);

      const down = await env.podrun(["down", "--all", "-n", namespace, "--grace-period", "0"]);
      t.equal(down.exitCode, 0, down.stderr);
      t.match(
        down.stdout,
        new RegExp(`pod/${a} \\(namespace ${namespace}\\) deleted \\(1 container, 1 volume, [0-9.]+s\\)`),
      );
      t.match(down.stdout, new RegExp(`pod/${b} \\(namespace ${namespace}\\) deleted`));
      for (const gone of [a, b])
        t.same(await env.leftovers(gone), { containers: [], volumes: [], pods: [] }, `${gone}: nothing left`);

      t.equal(
        (await env.leftovers(kept)).containers.length,
        2,
        "a podrun pod of another namespace is kept (infra + app)",
      );
      t.same(
        await env.lines(["ps", "-q", "--filter", `name=^${foreign}$`]).then((ids) => ids.length),
        1,
        "the foreign container still runs",
      );
      t.same(
        await env.lines(["volume", "ls", "-q", "--filter", `name=${foreign}`]),
        [foreign],
        "the foreign volume is kept",
      );

      // A manifest given with -n of another namespace is refused, as kubectl does; nothing is touched.
      const mismatch = await env.podrun(["down", "-n", namespace, fileKept]);
      t.equal(mismatch.exitCode, 2);
      t.match(mismatch.stderr, `pod ${kept} is in namespace "${other}", which does not match -n ${namespace}`);
      const byFile = await env.podrun(["down", "--grace-period", "0", fileKept]);
      t.equal(byFile.exitCode, 0, byFile.stderr);
      t.same(await env.leftovers(kept), { containers: [], volumes: [], pods: [] });
    },
  );
}

t.test("usage errors: exit 2 before any engine is asked", { buffered: true }, async (t) => {
  const env = { PODRUN_RUNTIME: "nerdctl" }; // not installed here: reaching the engine would fail differently
  const cases: [string[], RegExp][] = [
    [["down"], /nothing to bring down: give a manifest FILE or DIR, a POD name, -l SELECTOR, or --all/],
    [["down", "--all", "web"], /--all takes no FILE or POD argument/],
    [["down", "missing-dir/pod.yaml"], /missing-dir\/pod\.yaml: cannot read: no such file/],
    [["down", "pod.yml"], /pod\.yml: cannot read: no such file/],
    [["down", "Web_1"], /"Web_1" is neither a manifest file nor a valid pod name/],
    [["down", "-n", "Bad_NS", "web"], /invalid namespace "Bad_NS"/],
    [["down", "--grace-period", "-1", "web"], /expected a whole number of seconds/],
    [["down", "--grace-period", "1", "--timeout", "2", "web"], /same option/],
  ];
  const results = await Promise.all(cases.map(([args]) => runCli(args, { env })));
  cases.forEach(([args, message], i) => {
    t.equal(results[i]!.exitCode, 2, args.join(" "));
    t.match(results[i]!.stderr, message, args.join(" "));
  });
});
