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
import { engineBlind, BUSYBOX, requireEngine, requireImage } from "../harness/engine.js";

// An idempotent `podrun up`, against the real engines: a second `up` of the same file keeps what
// matches (same container IDs), recreates what changed (one container, or the whole pod for a
// pod-level field), `--replace` recreates all; a name held by a container podrun did not create is
// an error that touches nothing; Ctrl-C during `up` removes what the run had created.

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;
// PID 1 ignores SIGTERM unless it traps it: trapping makes each stop prompt.
const SERVE = `["sh", "-c", "trap 'exit 0' TERM; sleep 600 & wait"]`;

function podYaml(name: string, options: { mode?: string; hostPort?: number; init?: string } = {}): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 1
  initContainers:
    - name: init
      image: ${BUSYBOX}
      command: ${options.init ?? `["true"]`}
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ${SERVE}
      env:
        - name: MODE
          value: "${options.mode ?? "one"}"
${options.hostPort ? `      ports:\n        - containerPort: 8080\n          hostPort: ${options.hostPort}\n` : ""}    - name: side
      image: ${BUSYBOX}
      command: ${SERVE}
`;
}

async function setup(t: Test, runtime: RuntimeName) {
  const engine = await requireEngine(t, runtime);
  if (
    !engine ||
    !(await requireImage(t, runtime, BUSYBOX)) ||
    !(await requireImage(t, runtime, "registry.k8s.io/pause:3.10"))
  )
    return undefined;
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-reconcile-state-"));
  const dir = await mkdtemp(join(tmpdir(), "podrun-reconcile-"));
  t.teardown(() => Promise.all([stateDir, dir].map((path) => rm(path, { recursive: true, force: true }))));
  const file = join(dir, "pod.yaml");
  const env = { PODRUN_STATE_DIR: stateDir };
  const up = async (yaml: string, extra: string[] = []) => {
    await writeFile(file, yaml);
    return runCli(["up", "--runtime", runtime, file, ...extra], { env });
  };
  /** Kubernetes container name → engine ID, for every container of the pod (infra as POD). */
  const ids = async (pod: string): Promise<Map<string, string>> => {
    const listed = (
      await runCommand(runtime, ["ps", "-a", "-q", "--no-trunc", "--filter", `label=io.kubernetes.pod.name=${pod}`])
    ).stdout
      .split("\n")
      .filter(Boolean);
    if (listed.length === 0) return new Map();
    const inspected = JSON.parse((await runCommand(runtime, ["container", "inspect", ...listed])).stdout) as {
      Id: string;
      Config: { Labels: Record<string, string> };
    }[];
    return new Map(inspected.map((c) => [c.Config.Labels["io.kubernetes.container.name"]!, c.Id]));
  };
  const envOf = async (container: string, variable: string) =>
    (await runCommand(runtime, ["exec", container, "sh", "-c", `echo "$${variable}"`])).stdout.trim();
  return { up, ids, envOf, file, env };
}

// Each case has its own state directory and uniquely named pods: two run at once.
t.jobs = 2;
// Reconcile and an interrupted run are podrun's own logic (engineBlind); what an engine says of a
// name taken by something podrun did not make is the engine's, and runs on both.
for (const runtime of engineBlind("docker")) {
  t.test(
    `${runtime}: re-up keeps what is unchanged, recreates what changed, --replace recreates all`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("recon");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));

      const first = await env.up(podYaml(name));
      t.equal(first.exitCode, 0, first.stderr);
      const original = await env.ids(name);
      t.same([...original.keys()].sort(), ["POD", "app", "init", "side"]);

      // The same file again: nothing is touched.
      const again = await env.up(podYaml(name));
      t.equal(again.exitCode, 0, again.stderr);
      t.match(again.stdout, `pod/${name}[app] unchanged\npod/${name}[side] unchanged\n`);
      t.match(again.stdout, new RegExp(`^pod/${name}: 2 containers unchanged \\([0-9.]+s, ${runtime}\\)$`, "m"));
      t.notMatch(again.stdout, /Created|Started|Killing|Pulled/, "no event: nothing was done");
      t.same(await env.ids(name), original, "the same containers, by ID");

      // One env value changed: only that container is recreated, in the same sandbox.
      const changed = await env.up(podYaml(name, { mode: "two" }));
      t.equal(changed.exitCode, 0, changed.stderr);
      t.match(
        changed.stdout,
        new RegExp(`Killing +pod/${name}\\[app\\] +Container app definition changed, will be restarted\n`),
      );
      t.match(changed.stdout, `pod/${name}[side] unchanged`);
      t.match(changed.stdout, new RegExp(`^pod/${name}: 1 container unchanged, 1 recreated \\(`, "m"));
      const afterEnv = await env.ids(name);
      t.not(afterEnv.get("app"), original.get("app"), "app is a new container");
      t.equal(afterEnv.get("side"), original.get("side"), "side is the same container");
      t.equal(afterEnv.get("POD"), original.get("POD"), "the same sandbox");
      t.equal(afterEnv.get("init"), original.get("init"), "the init container did not run again");
      t.equal(await env.envOf(`default_${name}_app`, "MODE"), "two", "with the new value");
      t.notMatch(changed.stdout + changed.stderr, /\btwo\b/, "the value itself is printed nowhere");

      // A hostPort is a pod-level field: the whole pod is recreated, and the port is published.
      const port = 20000 + Math.floor(Math.random() * 20000);
      const moved = await env.up(podYaml(name, { mode: "two", hostPort: port }));
      t.equal(moved.exitCode, 0, moved.stderr);
      t.match(moved.stdout, `SandboxChanged`);
      t.match(
        moved.stdout,
        new RegExp(
          `^pod/${name}: recreated \\(pod-level fields changed\\): 2 containers started, 1 init container completed`,
          "m",
        ),
      );
      const afterPort = await env.ids(name);
      t.same([...afterPort.keys()].sort(), ["POD", "app", "init", "side"], "one pod, not two");
      for (const container of ["POD", "init", "app", "side"])
        t.not(afterPort.get(container), afterEnv.get(container), `${container} is new`);
      const published = (await runCommand(runtime, ["port", `default_${name}_POD`])).stdout;
      t.match(published, String(port));

      // --replace: everything anew, though nothing changed.
      const replaced = await env.up(podYaml(name, { mode: "two", hostPort: port }), ["--replace"]);
      t.equal(replaced.exitCode, 0, replaced.stderr);
      t.match(replaced.stdout, new RegExp(`^pod/${name}: recreated \\(--replace\\)`, "m"));
      const afterReplace = await env.ids(name);
      for (const container of ["POD", "init", "app", "side"])
        t.not(afterReplace.get(container), afterPort.get(container), `${container} replaced`);
    },
  );

  t.test(
    `${runtime}: SIGINT while an init container runs removes what the run created, exit 130`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("sigint");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      await writeFile(env.file, podYaml(name, { init: `["sleep", "30"]` }));
      const child = execa(process.execPath, [PODRUN_BIN, "up", "--runtime", runtime, env.file], {
        reject: false,
        env: { NO_COLOR: "1", ...env.env },
        stdin: "ignore",
        timeout: 120_000,
      });
      // Interrupt once the init container is running (the engine says so).
      let running = false;
      for (let i = 0; i < 150 && !running; i++) {
        const ps = await runCommand(runtime, [
          "ps",
          "-q",
          "--filter",
          `name=default_${name}_init`,
          "--filter",
          "status=running",
        ]);
        running = ps.stdout.trim() !== "";
        if (!running) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      t.ok(running, "the init container ran");
      const sentAt = Date.now();
      child.kill("SIGINT");
      const result = await child;
      t.equal(result.exitCode, 130, String(result.stderr));
      t.ok(Date.now() - sentAt < 15_000, "it stopped promptly, without waiting for the init container");
      t.match(String(result.stderr), /^podrun: interrupted; removed the 2 containers this run created$/m);
      t.same([...(await env.ids(name)).keys()], [], "no container of the pod is left");
      if (runtime === "podman") {
        const pods = (
          await runCommand("podman", ["pod", "ps", "-q", "--filter", `name=default_${name}`])
        ).stdout.trim();
        t.equal(pods, "", "no pod is left");
      }
    },
  );
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: a container podrun did not create holding a name is an error, and is left alone`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("clash");
      const foreign = `default_${name}_side`;
      t.teardown(async () => {
        await runCommand(runtime, ["rm", "-f", foreign], { reject: false });
        await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
      });
      const id = (await runCommand(runtime, ["create", "--name", foreign, BUSYBOX, "true"])).stdout
        .trim()
        .split("\n")
        .at(-1)!;

      const r = await env.up(podYaml(name));
      t.equal(r.exitCode, 1);
      t.match(
        r.stderr.trimEnd().split("\n").at(-1),
        new RegExp(
          `^Error: NameConflict: pod/${name}: container name "${foreign}" is taken by a container podrun did not create \\(${id.slice(0, 12)}; \`${runtime} rm -f ${foreign}\` removes it\\)`,
        ),
      );
      t.equal(r.stdout, "", "nothing was attempted");
      t.same([...(await env.ids(name)).keys()], [], "no podrun container was created");
      const still = JSON.parse((await runCommand(runtime, ["container", "inspect", foreign])).stdout) as {
        Id: string;
      }[];
      t.equal(still[0]?.Id, id, "the foreign container is untouched");
    },
  );
}

{
  const runtime = "podman";
  t.test(
    "podman: a pod of the pod's name podrun did not create is an error told by podman; nothing of the run is left",
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("podclash");
      const foreign = `default_${name}`;
      t.teardown(async () => {
        await runCommand(runtime, ["pod", "rm", "-f", foreign], { reject: false });
        await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
      });
      await runCommand(runtime, ["pod", "create", "--name", foreign]);
      const withVolume = podYaml(name).replace(
        "  containers:\n",
        "  volumes:\n    - name: scratch\n      emptyDir: {}\n  containers:\n",
      );
      const r = await env.up(withVolume);
      t.equal(r.exitCode, 1, r.stderr);
      t.equal(
        r.stderr.trimEnd().split("\n").at(-1),
        `Error: NameConflict: pod/${name}: pod name "${foreign}" is taken by a podman pod podrun did not create (\`podman pod rm -f ${foreign}\` removes it): podrun never replaces what it did not create; remove or rename it, or give the pod another name or namespace`,
      );
      t.same([...(await env.ids(name)).keys()], [], "no podrun container was created");
      const volumes = await runCommand(runtime, [
        "volume",
        "ls",
        "-q",
        "--filter",
        `label=io.kubernetes.pod.name=${name}`,
      ]);
      t.equal(volumes.stdout.trim(), "", "the volume the run made is removed");
      t.equal(
        (await runCommand(runtime, ["pod", "exists", foreign], { reject: false })).exitCode,
        0,
        "the foreign pod is untouched",
      );
    },
  );
}
