import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, statfs, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../../lib/runtime/detect.js";
import { runCommand } from "../../../lib/runtime/exec.js";
import { runCli } from "../../harness/cli.js";
import { removeManagedContainers } from "../../harness/cleanup.js";
import { requirePodEngine } from "../../harness/engine.js";
import { BUSYBOX, testPodHeader, uniqueName } from "../../harness/engine-pod.js";
import { readEventLines } from "../../harness/state-files.js";

// The engine or the disk failing under podrun: an engine that cannot be reached between two runs
// (the shared daemons stay up: podrun is pointed at a socket nobody serves, as when the daemon is
// stopped), and a state directory on a full file system. Each gives one clear line and exit 1
// (README, exit codes), no stack trace, and leaves nothing half done. A container that exits
// during `up --wait` with code 0 is here; with code 3, test/commands/up-wait.e2e.test.ts. An engine
// that never answers is engine-hang.e2e.test.ts.

const ERROR_LINE = /^Error: [^\n]+\n$/;
// An engine whose daemon is gone: the CLIs' own variables, pointed at a socket that is not there.
const UNREACHABLE = {
  DOCKER_HOST: "unix:///nonexistent/podrun-engine-faults.sock",
  CONTAINER_HOST: "unix:///nonexistent/podrun-engine-faults.sock",
};
const UNANSWERED: Record<RuntimeName, string> = {
  docker:
    "docker: Cannot connect to the Docker daemon at unix:///nonexistent/podrun-engine-faults.sock. Is the docker daemon running?",
  podman: "podman: unable to connect to Podman socket: ",
  nerdctl: "",
};

async function tempDir(t: Test, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A 256 KiB tmpfs as the state directory, in a temporary directory. At teardown `pods` are removed
 * before it is unmounted: their containers bind-mount their /etc/hosts from it.
 */
async function smallStateDir(
  t: Test,
  runtime: RuntimeName,
  pods: readonly string[],
): Promise<{ dir: string; stateDir: string }> {
  const dir = await tempDir(t, "podrun-faults-");
  const stateDir = join(dir, "state");
  await mkdir(stateDir);
  await runCommand("mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", stateDir]);
  t.teardown(async () => {
    for (const pod of pods) await removeManagedContainers(runtime, { "io.kubernetes.pod.name": pod });
    await runCommand("umount", [stateDir], { reject: false });
  });
  return { dir, stateDir };
}

const podYaml = (name: string) =>
  `${testPodHeader(name)}  containers:\n    - name: a\n      image: ${BUSYBOX}\n      command: ["sleep", "600"]\n`;
const containersOf = async (runtime: RuntimeName, pod: string) =>
  (await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${pod}`])).stdout
    .split("\n")
    .filter(Boolean);

// Every case has its own pod, state directory and tmpfs: they run at once, mostly waiting on the engines.
t.jobs = 4;
for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: the engine unreachable between two runs: up, down, ps, logs each say so in one line, exit 1`,
    { buffered: true },
    async (t) => {
      if (!(await requirePodEngine(t, runtime))) return;
      const stateDir = await tempDir(t, "podrun-faults-state-");
      const dir = await tempDir(t, "podrun-faults-");
      const name = uniqueName("engine-gone");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }).then(() => undefined));
      const file = join(dir, "pod.yaml");
      await writeFile(file, podYaml(name));
      const env = { PODRUN_STATE_DIR: stateDir };

      const first = await runCli(["up", "--runtime", runtime, file], { env });
      t.equal(first.exitCode, 0, first.stderr);
      const containersBefore = await containersOf(runtime, name);
      const logBefore = await readEventLines(stateDir);

      for (const args of [["up", file], ["up", "--wait", file], ["down", file], ["ps"], ["ps", name], ["logs", name]]) {
        const r = await runCli([...args, "--runtime", runtime], { env: { ...env, ...UNREACHABLE } });
        const what = args.join(" ").replace(file, "pod.yaml");
        t.equal(r.exitCode, 1, `${what}: exit 1`);
        t.equal(r.stdout, "", `${what}: nothing on stdout`);
        t.match(r.stderr, ERROR_LINE, `${what}: one line`);
        t.ok(
          r.stderr.startsWith(`Error: RuntimeUnavailable: no container engine answered: ${UNANSWERED[runtime]}`),
          `${what}: says which engine and why: ${r.stderr.trim()}`,
        );
      }
      // Without --runtime every engine is tried, and the line says what each answered.
      const detect = await runCli(["ps"], { env: { ...env, ...UNREACHABLE } });
      t.equal(detect.exitCode, 1);
      t.match(detect.stderr, ERROR_LINE);
      t.match(detect.stderr, UNANSWERED.docker, "docker's reason");
      t.match(detect.stderr, UNANSWERED.podman, "podman's reason");

      // Nothing was touched: the pod still runs, the event log has no new or torn line.
      t.same(await containersOf(runtime, name), containersBefore, "the pod is as it was");
      t.equal(await isRunning(runtime, `default_${name}_a`), "true", "its container still runs");
      const logAfter = await readEventLines(stateDir);
      t.same(logAfter.invalid, [], "the event log parses");
      t.equal(logAfter.text, logBefore.text, "no event was recorded by the failed runs");
      // The engine back: down works and leaves nothing.
      const down = await runCli(["down", "--runtime", runtime, file], { env });
      t.equal(down.exitCode, 0, down.stderr);
      t.same(await containersOf(runtime, name), [], "down removed every container");
    },
  );

  t.test(
    `${runtime}: a full state directory: up fails in one line naming the path, creates nothing, the state still parses`,
    { buffered: true },
    async (t) => {
      if (process.getuid?.() !== 0) return void t.plan(0, "mounting a tmpfs needs root");
      if (!(await requirePodEngine(t, runtime))) return;
      const kept = uniqueName("disk-kept");
      const late = uniqueName("disk-full");
      const { dir, stateDir } = await smallStateDir(t, runtime, [kept, late]);
      const env = { PODRUN_STATE_DIR: stateDir };
      const files = Object.fromEntries(
        await Promise.all([kept, late].map(async (pod) => [pod, await writeManifest(dir, pod)] as const)),
      );

      const first = await runCli(["up", "--runtime", runtime, files[kept]!], { env });
      t.equal(first.exitCode, 0, first.stderr);
      await fill(join(stateDir, "fill"), 0);

      const full = await runCli(["up", "--runtime", runtime, files[late]!], { env });
      t.equal(full.exitCode, 1, "exit 1");
      t.equal(full.stdout, "", "nothing started");
      t.match(full.stderr, ERROR_LINE, `one line: ${full.stderr.trim()}`);
      t.match(full.stderr, stateDir, "it names the path");
      t.match(full.stderr, "no space left on device (ENOSPC)", "and says why");
      t.same(await containersOf(runtime, late), [], "no container of the new pod");
      t.notOk((await readdir(join(stateDir, "pods", runtime))).includes(`default_${late}`), "nor its directory");
      t.same((await readEventLines(stateDir)).invalid, [], "the event log parses");
      t.same(
        (await readdir(stateDir)).filter((f) => /\.lock|\.tmp$/.test(f)),
        [],
        "no lock or temp file left",
      );

      // Room for the pod's files (its /etc/hosts, resolv.conf and record, a page each) but not
      // for the event log: the pod runs, a Warning names the log.
      await rm(join(stateDir, "fill"));
      await fill(join(stateDir, "fill"), 3);
      const tight = await runCli(["up", "--runtime", runtime, files[late]!], { env });
      t.equal(tight.exitCode, 0, tight.stderr);
      // The disk fills mid-line (a short write) or before it (ENOSPC): a torn line readers skip.
      const logPath = join(stateDir, "events.ndjson");
      t.match(
        tight.stderr,
        new RegExp(
          `^Warning: event log not written: cannot write event log ${logPath}: (short write \\(disk full\\?\\)|no space left on device \\(ENOSPC\\))\n$`,
        ),
      );
      t.equal(await isRunning(runtime, `default_${late}_a`), "true", "the pod runs");
      const torn = (await readEventLines(stateDir)).invalid;
      t.ok(torn.length <= 1, "at most the one torn line");

      // Space again: down removes both pods.
      await rm(join(stateDir, "fill"));
      for (const pod of [kept, late]) {
        const down = await runCli(["down", "--runtime", runtime, files[pod]!], { env });
        t.equal(down.exitCode, 0, down.stderr);
        t.same(await containersOf(runtime, pod), [], `${pod}: nothing left`);
      }
      const after = await readEventLines(stateDir);
      t.same(after.invalid, torn, "down's events are whole lines after the torn one");
      t.match(after.events.at(-1)?.reason, /Killing|Deleted|Stopped/, "and they are in the log");
    },
  );
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: a full state directory with imagePullPolicy Always: the pull back-off cannot be read, ErrImagePull names it, nothing is left`,
    { buffered: true },
    async (t) => {
      if (process.getuid?.() !== 0) return void t.plan(0, "mounting a tmpfs needs root");
      if (!(await requirePodEngine(t, runtime))) return;
      const name = uniqueName("disk-always");
      const { dir, stateDir } = await smallStateDir(t, runtime, [name]);
      const file = join(dir, "pod.yaml");
      await writeFile(file, podYaml(name).replace("      command:", "      imagePullPolicy: Always\n      command:"));
      // Room for the pod's /etc files and its record (a page each), none for the back-off's lock.
      await fill(join(stateDir, "fill"), 3);

      const r = await runCli(["up", "--runtime", runtime, file], { env: { PODRUN_STATE_DIR: stateDir } });
      t.equal(r.exitCode, 1, "exit 1");
      const errors = r.stderr.split("\n").filter((line) => line.startsWith("Error"));
      t.same(
        errors,
        [
          `Error: ErrImagePull: pod/${name}: container a: Failed to pull image "${BUSYBOX}": pull back-off not checked: cannot take lock ${stateDir}/backoff.json.lock: no space left on device (ENOSPC)`,
        ],
        "one line naming the state directory and why",
      );
      t.notMatch(r.stderr, /RunContainerError|^\s+at /m);
      t.same(await containersOf(runtime, name), [], "no container of the pod");
      t.notOk(
        (await readdir(join(stateDir, "pods", runtime)).catch((): string[] => [])).includes(`default_${name}`),
        "nor its directory",
      );
      t.same(
        (await readdir(stateDir)).filter((f) => /\.lock|\.tmp$/.test(f)),
        [],
        "no lock or temp file left",
      );
      t.ok((await readEventLines(stateDir)).invalid.length <= 1, "the event log parses but for a torn last line");
    },
  );

  t.test(
    `${runtime}: an app container that exits with code 0 during up --wait fails the wait at once, in one line, exit 1`,
    { buffered: true },
    async (t) => {
      if (!(await requirePodEngine(t, runtime))) return;
      const dir = await tempDir(t, "podrun-faults-");
      const name = uniqueName("wait-exit0");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }).then(() => undefined));
      const file = join(dir, "pod.yaml");
      // OnFailure does not restart a container that succeeded: the pod can never be Ready.
      await writeFile(
        file,
        podYaml(name)
          .replace("restartPolicy: Never", "restartPolicy: OnFailure")
          .replace(
            'command: ["sleep", "600"]',
            'command: ["sh", "-c", "echo finished early; sleep 1"]\n      readinessProbe:\n        exec:\n          command: ["false"]\n        periodSeconds: 1',
          ),
      );
      const started = Date.now();
      const r = await runCli(["up", "--runtime", runtime, "--wait", "--timeout", "2m", file], {
        env: { PODRUN_STATE_DIR: join(dir, "state") },
      });
      t.equal(r.exitCode, 1, "exit 1");
      t.ok(Date.now() - started < 30_000, "long before the timeout");
      const lines = r.stderr.trimEnd().split("\n");
      t.equal(
        lines.at(-1),
        `Error: ContainerTerminated: pod/${name}: container a exited with code 0 and restartPolicy OnFailure does not restart it`,
      );
      t.equal(lines.filter((line) => line.startsWith("Error")).length, 1, "one error line");
      t.match(r.stderr, "last log lines of container a:\n    finished early\n");
      t.match(r.stderr, `podrun: pod/${name} left as it is (podrun down ${file} removes it)`);
      t.equal(await isRunning(runtime, `default_${name}_a`), "false", "the container stays exited, not restarted");
    },
  );
}

const isRunning = async (runtime: RuntimeName, container: string) =>
  (
    await runCommand(runtime, ["inspect", "--format", "{{.State.Running}}", container], { reject: false })
  ).stdout.trim();

async function writeManifest(dir: string, pod: string): Promise<string> {
  const file = join(dir, `${pod}.yaml`);
  await writeFile(file, podYaml(pod));
  return file;
}

/** Fills the file system of `file` to leave `pages` free 4 KiB pages. */
async function fill(file: string, pages: number): Promise<void> {
  const fs = await statfs(file.slice(0, file.lastIndexOf("/")));
  const free = fs.bavail * fs.bsize - pages * 4096;
  await writeFile(file, randomBytes(Math.max(0, free)));
}
