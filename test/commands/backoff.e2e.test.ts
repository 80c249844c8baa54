import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { engineBlind, BUSYBOX, PAUSE, requireImage, requireRegistry, requireTestEnv } from "../harness/engine.js";
import { countRegistryRequests, registryLogMark } from "../harness/registry-log.js";

// Back-off across runs against the real loopback registry, the way a CI job meets it: a missing
// image fails; the next `up` reports BackOff without contacting the registry; `podrun backoff`
// shows why and until when; after the registry is fixed, `podrun backoff clear` lets the next
// `up` pull at once instead of in up to five minutes.

interface Reasoned {
  reason: string;
  involvedObject: { fieldPath?: string };
}

const reasonsOf = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Reasoned)
    .filter((e) => e.involvedObject.fieldPath === "spec.containers{app}")
    .map((e) => e.reason);

for (const runtime of engineBlind("docker")) {
  t.test(`${runtime}: a failed pull backs off across runs until podrun backoff clear`, async (t) => {
    const testEnv = requireTestEnv(t);
    if (
      !testEnv ||
      !(await requireImage(t, runtime, BUSYBOX)) ||
      !(await requireImage(t, runtime, PAUSE)) ||
      !(await requireRegistry(t, "open"))
    )
      return;
    if (runtime !== "docker" && !(await requireImage(t, "docker", BUSYBOX))) return; // docker pushes the fix
    const suffix = randomBytes(3).toString("hex");
    const repo = `podrun-test/backoff-e2e-${runtime}-${suffix}`;
    const image = `127.0.0.1:5100/${repo}:1`;
    const name = `backoff-e2e-${suffix}`;
    const key = `default/${name}_${image}`;
    const dir = await mkdtemp(join(tmpdir(), "podrun-backoff-e2e-"));
    const file = join(dir, "pod.yaml");
    await writeFile(
      file,
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n    - name: app\n      image: ${image}\n      command: ["sleep", "600"]\n`,
    );
    t.teardown(async () => {
      await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
      await runCommand(runtime, ["rmi", "-f", image], { reject: false });
      await runCommand("docker", ["rmi", "-f", image], { reject: false });
      await rm(dir, { recursive: true, force: true });
    });
    const env = { PODRUN_STATE_DIR: join(dir, "state") };
    const up = () => runCli(["up", "--runtime", runtime, "--json", file], { env });
    const requestsSince = (mark: number) =>
      countRegistryRequests(testEnv, "open", { since: mark, match: new RegExp(`/v2/${repo}/`) });

    // 1. The image is not in the registry: the pull fails and starts a back-off.
    let mark = registryLogMark(testEnv, "open");
    const failed = await up();
    t.equal(failed.exitCode, 1);
    t.same(reasonsOf(failed.stdout), ["Pulling", "Failed", "Failed"]);
    t.ok(requestsSince(mark) >= 1, "the registry was asked");

    // 2. The next run backs off without contacting the registry.
    mark = registryLogMark(testEnv, "open");
    const backedOff = await up();
    t.equal(backedOff.exitCode, 1);
    t.same(reasonsOf(backedOff.stdout), ["BackOff", "Failed"]);
    t.match(
      backedOff.stderr,
      `ImagePullBackOff: pod/${name}: container app: Back-off pulling image "${image}": ErrImagePull: `,
    );
    t.equal(requestsSince(mark), 0, "no request during back-off");

    // 3. podrun backoff says which entry, until when, and why.
    const listed = await runCli(["backoff"], { env });
    t.equal(listed.exitCode, 0, listed.stderr);
    const [header, row, ...rest] = listed.stdout.trimEnd().split("\n");
    t.match(header, /^KEY +BACKOFF +NEXT RETRY IN +LAST FAILURE +LAST ERROR$/);
    t.same(rest, [], "one entry");
    const cells = row!.split(/ {3,}/);
    t.equal(cells[0], key);
    t.equal(cells[1], "10s", "the first period");
    t.match(cells[2], /^(10|[1-9])s$|^now$/, "the wait, counted down (now only on a very slow machine)");
    t.match(cells[4], /^ErrImagePull: .*(not found|manifest unknown)/i);
    const [entry] = JSON.parse((await runCli(["backoff", "--json"], { env })).stdout) as {
      key: string;
      backoffMs: number;
      lastUpdate: string;
      nextRetryAt: string;
    }[];
    t.match(entry, { key, backoffMs: 10_000 });
    t.equal(
      Date.parse(entry!.nextRetryAt) - Date.parse(entry!.lastUpdate),
      10_000,
      "next retry: 10 s after the failure",
    );

    // 4. The registry is fixed (the image pushed) and the entry cleared: the next run pulls at once.
    const cleared = await runCli(["backoff", "clear", key], { env });
    t.same([cleared.exitCode, cleared.stdout, cleared.stderr], [0, `cleared ${key}\n`, ""]);
    await runCommand("docker", ["tag", BUSYBOX, image]);
    await runCommand("docker", ["push", "-q", image]);
    await runCommand("docker", ["rmi", image]);
    mark = registryLogMark(testEnv, "open");
    const pulled = await up();
    t.equal(pulled.exitCode, 0, pulled.stderr);
    t.same(reasonsOf(pulled.stdout), ["Pulling", "Pulled", "Created", "Started"]);
    t.ok(requestsSince(mark) >= 1, `the registry was asked again (${requestsSince(mark)} requests)`);
    const after = await runCli(["backoff", "--json"], { env });
    t.same(JSON.parse(after.stdout), [], "a successful pull leaves no entry");
  });
}
