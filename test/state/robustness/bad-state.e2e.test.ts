import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFile, chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import t, { type Test } from "tap";
import { runCommand } from "../../../lib/runtime/exec.js";
import { runCli, PODRUN_BIN } from "../../harness/cli.js";
import { removeManagedContainers } from "../../harness/cleanup.js";
import { BUSYBOX, requireImage, requireRegistry } from "../../harness/engine.js";
import { eventId, readBackoffFile, readEventLines, type LoggedEvent } from "../../harness/state-files.js";

// A state directory in a bad way, through the CLI: a corrupt back-off file, an event log whose
// last line was torn by a crash, a state directory podrun cannot write. Each gives one clear
// message and the documented behaviour; `podrun up` runs for real on docker where it proceeds.

const RUNTIME = "docker";
const CORRUPT = '{"version": 1, "entries": {"default/web_busybox": {"backoffMs": 1';
const TORN = '{"apiVersion":"v1","kind":"Event","metadata":{"name":"torn.1","namesp';

async function tempDir(t: Test, prefix = "podrun-bad-state-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A one-pod manifest: container b pulls with Always, so `up` reads and writes the back-off file. */
async function writePod(t: Test, dir: string, name: string): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(
    file,
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 1\n  containers:\n    - name: a\n      image: ${BUSYBOX}\n      command: ["sleep", "600"]\n    - name: b\n      image: ${BUSYBOX}\n      imagePullPolicy: Always\n      command: ["sleep", "600"]\n`,
  );
  t.teardown(() => removeManagedContainers(RUNTIME, { "io.kubernetes.pod.name": name }).then(() => undefined));
  return file;
}

const podName = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;
const warningLines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("Warning:"));
const containersOf = async (pod: string) =>
  (await runCommand(RUNTIME, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${pod}`])).stdout
    .split("\n")
    .filter(Boolean);

t.test("corrupt back-off file: podrun backoff prints one Warning naming where it went, exits 0", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "backoff.json"), CORRUPT);
  const r = await runCli(["backoff"], { env: { PODRUN_STATE_DIR: dir } });
  t.equal(r.exitCode, 0);
  t.equal(r.stdout, "");
  const [aside] = (await readdir(dir)).filter((name) => name.startsWith("backoff.json.corrupt-"));
  t.ok(aside, "moved aside, kept for inspection");
  const lines = r.stderr.trimEnd().split("\n");
  t.equal(warningLines(r.stderr).length, 1, "one Warning");
  t.match(lines[0], `Warning: state file ${join(dir, "backoff.json")} is not valid JSON (`);
  t.match(lines[0], `): moved it to ${join(dir, aside!)}; pull back-off starts empty`);
  t.equal(lines[1], "No back-off entries.");
  const again = await runCli(["backoff"], { env: { PODRUN_STATE_DIR: dir } });
  t.same(warningLines(again.stderr), [], "told once: the next run finds no corrupt file");
});

t.test("corrupt back-off file: podrun up warns once, proceeds, and writes a good file", async (t) => {
  if (!(await requireImage(t, RUNTIME, BUSYBOX)) || !(await requireRegistry(t, "open"))) return;
  const dir = await tempDir(t);
  await writeFile(join(dir, "backoff.json"), CORRUPT);
  const name = podName("corrupt-backoff");
  const r = await runCli(["up", "--runtime", RUNTIME, "--json", await writePod(t, dir, name)], {
    env: { PODRUN_STATE_DIR: dir },
  });
  t.equal(r.exitCode, 0, r.stderr);
  const warnings = warningLines(r.stderr);
  t.equal(warnings.length, 1, "one Warning");
  t.match(
    warnings[0],
    new RegExp(
      `^Warning: state file ${join(dir, "backoff.json")} is not valid JSON \\(.*\\): moved it to ${join(dir, "backoff.json.corrupt-")}\\S+; pull back-off starts empty$`,
    ),
  );
  // The pull succeeded, so back-off has nothing to keep; a file written meanwhile must parse.
  if ((await readdir(dir)).includes("backoff.json"))
    t.same((await readBackoffFile(dir)).entries, {}, "the new file parses");
  t.equal((await containersOf(name)).length, 3, "the pod runs: sandbox and two containers");
});

t.test("torn last event line: podrun up starts its events on a new line and loses none", async (t) => {
  if (!(await requireImage(t, RUNTIME, BUSYBOX)) || !(await requireRegistry(t, "open"))) return;
  const dir = await tempDir(t);
  const whole = JSON.stringify({
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "before.1", namespace: "default" },
    involvedObject: { kind: "Pod", name: "before", namespace: "default" },
    reason: "Pulled",
    message: "m",
    count: 1,
  });
  await appendFile(join(dir, "events.ndjson"), `${whole}\n${TORN}`);
  const name = podName("torn-log");
  const r = await runCli(["up", "--runtime", RUNTIME, "--json", await writePod(t, dir, name)], {
    env: { PODRUN_STATE_DIR: dir },
  });
  t.equal(r.exitCode, 0, r.stderr);
  const printed = r.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LoggedEvent);
  const log = await readEventLines(dir);
  t.same(log.invalid, [2], "only the torn line does not parse");
  t.equal(log.events[0]!.metadata.name, "before.1", "the event before it is intact");
  t.same(
    log.events.slice(1).map(eventId),
    printed.map(eventId),
    `all ${printed.length} events of the run are in the log, in order`,
  );
  t.ok(log.text.endsWith("\n"));
});

t.test(
  "a state directory under a regular file: podrun up exits 1 with one line, and creates no container",
  async (t) => {
    if (!(await requireImage(t, RUNTIME, BUSYBOX))) return;
    const dir = await tempDir(t);
    await writeFile(join(dir, "not-a-dir"), "");
    const stateDir = join(dir, "not-a-dir", "state");
    const name = podName("no-state");
    for (const how of [["--state-dir", stateDir], []]) {
      const r = await runCli(["up", "--runtime", RUNTIME, ...how, await writePod(t, dir, name)], {
        env: how.length ? {} : { PODRUN_STATE_DIR: stateDir },
      });
      t.equal(r.exitCode, 1);
      t.equal(r.stdout, "", "nothing was started");
      t.equal(
        r.stderr,
        `Error: cannot use state directory ${stateDir}: a component of the path is not a directory (ENOTDIR); set PODRUN_STATE_DIR to a writable directory\n`,
      );
      t.same(await containersOf(name), [], "no container created");
    }
  },
);

t.test("a state directory the user cannot write: podrun up exits 1 with one line naming it", async (t) => {
  const dir = await tempDir(t);
  await chmod(dir, 0o755);
  const readOnly = join(dir, "read-only");
  await mkdir(readOnly, { mode: 0o755 });
  const file = join(dir, "pod.yaml");
  await writeFile(
    file,
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${podName("ro")}\nspec:\n  containers:\n    - {name: a, image: ${BUSYBOX}}\n`,
    { mode: 0o644 },
  );
  // Root passes every permission check: run podrun as nobody instead, as a CI user would be.
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  if (process.getuid?.() !== 0) await chmod(readOnly, 0o555);
  // `env -i`: tap's process tracking hooks into children through NODE_OPTIONS, and as nobody it
  // could not write its records; podrun is run with exactly this environment.
  const run = (env: Record<string, string>) =>
    promisify(execFile)(
      "env",
      [
        "-i",
        ...Object.entries({ PATH: process.env.PATH ?? "", NO_COLOR: "1", ...env }).map(([k, v]) => `${k}=${v}`),
        process.execPath,
        PODRUN_BIN,
        "up",
        "--runtime",
        RUNTIME,
        file,
      ],
      asNobody,
    ).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );

  const explicit = await run({ HOME: dir, PODRUN_STATE_DIR: readOnly });
  t.same(explicit, {
    code: 1,
    stderr: `Error: cannot use state directory ${readOnly}: permission denied (EACCES); set PODRUN_STATE_DIR to a writable directory\n`,
  });
  // The default location under a home that cannot be written (a CI user whose HOME is /).
  const home = await run({ HOME: readOnly });
  const defaultDir = join(readOnly, ".local", "state", "podrun");
  t.same(home, {
    code: 1,
    stderr: `Error: cannot use state directory ${defaultDir}: permission denied (EACCES); set PODRUN_STATE_DIR to a writable directory\n`,
  });
  t.same(await readdir(readOnly), [], "nothing was created there");
});
