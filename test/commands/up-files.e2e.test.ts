import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, requirePodEngine } from "../harness/engine.js";

// Manifests over several files, end to end on a real engine: the documentation's split (a
// ConfigMap in one file, the Pod using it in another) given as two files and as a directory, and
// two pods of two files where the first fails and the second still goes up; `down DIR` after.
// On docker alone: what is read, and in which order, is the manifest reader's, before any engine
// is asked (test/manifest/load-manifests.test.ts, test/cli/manifest-files.cli.test.ts), and one
// pod's failure not stopping the next is up's (up.test.ts); what the engine answers here, a pod
// that runs, ErrImageNeverPull for an absent image, `down` by file, up.e2e.test.ts and
// down.e2e.test.ts show on docker and podman.

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;

interface KubeEvent {
  type: string;
  reason: string;
  involvedObject: { name: string; fieldPath?: string };
}
const eventsOf = (stdout: string): KubeEvent[] =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as KubeEvent);
const reasonsFor = (events: KubeEvent[], pod: string) =>
  events.filter((e) => e.involvedObject.name === pod).map((e) => e.reason);

const configMap = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  GREETING: hello\n`;
const pod = (name: string, container: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
${container}`;
const sleeper = (extra = "") => `    - name: app
      image: ${BUSYBOX}
      imagePullPolicy: Never
      command: ["sleep", "600"]
${extra}`;

async function running(runtime: RuntimeName, pod: string): Promise<string[]> {
  const { stdout } = await runCommand(runtime, [
    "ps",
    "-q",
    "--filter",
    `label=io.kubernetes.pod.name=${pod}`,
    "--filter",
    "label=io.kubernetes.container.name=app",
  ]);
  return stdout.split("\n").filter(Boolean);
}

async function leftovers(runtime: RuntimeName, pod: string): Promise<string[]> {
  const { stdout } = await runCommand(runtime, ["ps", "-a", "-q", "--filter", `label=io.kubernetes.pod.name=${pod}`]);
  return stdout.split("\n").filter(Boolean);
}

for (const runtime of ["docker"] as const) {
  t.test(
    `${runtime}: a ConfigMap file and a Pod file in one up, as files and as a directory; a failed pod does not stop the next`,
    async (t) => {
      if (!(await requirePodEngine(t, runtime))) return;
      const env = { PODRUN_STATE_DIR: await mkdtemp(join(tmpdir(), "podrun-files-state-")) };
      const podrun = (args: string[]) => runCli([args[0]!, "--runtime", runtime, ...args.slice(1)], { env });
      const root = await mkdtemp(join(tmpdir(), "podrun-files-"));
      t.teardown(() =>
        Promise.all([env.PODRUN_STATE_DIR, root].map((path) => rm(path, { recursive: true, force: true }))),
      );
      const web = unique("split");
      const bad = unique("first");
      const good = unique("second");
      t.teardown(async () => {
        for (const name of [web, bad, good]) await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
      });

      // The documentation's split: the Pod reads a ConfigMap defined in another file.
      const split = join(root, "split");
      await mkdir(split);
      const config = `${web}-config`;
      await writeFile(join(split, "cm.yaml"), configMap(config));
      await writeFile(
        join(split, "pod.yaml"),
        pod(
          web,
          sleeper(
            `      envFrom:\n        - configMapRef:\n            name: ${config}\n      env:\n        - name: ONE\n          valueFrom:\n            configMapKeyRef: {name: ${config}, key: GREETING}\n`,
          ),
        ),
      );
      const alone = await podrun(["up", "--json", join(split, "pod.yaml")]);
      t.equal(alone.exitCode, 2, "the Pod file alone: its ConfigMap is in no file read");
      t.match(
        alone.stderr,
        `Not found: "${config}": no ConfigMap "${config}" in namespace "default" in the file read (${join(split, "pod.yaml")})`,
      );
      t.same(await leftovers(runtime, web), [], "nothing created");

      const both = await podrun(["up", "--json", join(split, "cm.yaml"), join(split, "pod.yaml")]);
      t.equal(both.exitCode, 0, both.stderr);
      t.notMatch(both.stderr, "Not found");
      t.same(reasonsFor(eventsOf(both.stdout), web).slice(-3), ["Pulled", "Created", "Started"]);
      t.equal((await running(runtime, web)).length, 1, "the pod's container runs");

      // The same set as a directory: the pod is there and unchanged.
      const again = await podrun(["up", split]);
      t.equal(again.exitCode, 0, again.stderr);
      t.notMatch(again.stderr, "Not found");
      t.match(again.stdout, `pod/${web}[app] unchanged`);

      // Two pods of two files: the first cannot start (an absent image, Never pulled), the second goes up.
      const pair = join(root, "pair");
      await mkdir(pair);
      await writeFile(
        join(pair, "1-first.yaml"),
        pod(
          bad,
          `    - name: app\n      image: 127.0.0.1:5100/podrun-test/absent-${bad}:1\n      imagePullPolicy: Never\n`,
        ),
      );
      await writeFile(join(pair, "2-second.yaml"), pod(good, sleeper()));
      const up = await podrun(["up", "--json", pair]);
      t.equal(up.exitCode, 1, "one pod failed");
      const events = eventsOf(up.stdout);
      t.ok(reasonsFor(events, bad).includes("ErrImageNeverPull"), "the first pod's own events");
      t.same(reasonsFor(events, good).slice(-3), ["Pulled", "Created", "Started"], "the second pod went up after it");
      t.match(up.stderr, `Error: ErrImageNeverPull: pod/${bad}: `);
      t.match(up.stderr, `podrun: 1 of 2 pods failed: pod/${bad}\n`);
      t.equal((await running(runtime, good)).length, 1);

      // down DIR: the pods of every file of the directory.
      const down = await podrun(["down", pair, split]);
      t.equal(down.exitCode, 0, down.stderr);
      t.match(down.stdout, `pod/${bad} not found`);
      t.match(down.stdout, `pod/${good} deleted`);
      t.match(down.stdout, `pod/${web} deleted`);
      for (const name of [web, bad, good]) t.same(await leftovers(runtime, name), [], `nothing left of ${name}`);

      // A bare name stays a pod's, even next to a folder of that name; the miss says how to read the folder.
      const bare = await runCli(["down", "--runtime", runtime, "split"], { env, cwd: root });
      t.equal(bare.exitCode, 0, bare.stderr);
      t.equal(
        bare.stdout,
        "pod/split not found (split is also a directory here: podrun down ./split brings down its manifests' pods)\n",
      );
    },
  );
}
