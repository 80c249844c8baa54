import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, requireEngine, requireImage, requireRegistry, requireTestEnv } from "../harness/engine.js";
import { countRegistryRequests, registryLogMark } from "../harness/registry-log.js";

// `podrun up` end to end, against the real engines and the loopback registry of
// scripts/test-env.sh: real pulls, real containers, a real shared network namespace.

interface KubeEvent {
  type: string;
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string; namespace: string; uid: string; fieldPath?: string };
  count: number;
}

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;
const events = (stdout: string): KubeEvent[] =>
  stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as KubeEvent);
const reasons = (list: KubeEvent[], fieldPath?: string) =>
  list.filter((e) => fieldPath === undefined || e.involvedObject.fieldPath === fieldPath).map((e) => e.reason);

const podYaml = (name: string, spec: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 1\n${spec}`;

async function setup(t: Test, runtime: RuntimeName) {
  const engine = await requireEngine(t, runtime);
  if (
    !engine ||
    !(await requireImage(t, runtime, BUSYBOX)) ||
    !(await requireImage(t, runtime, "registry.k8s.io/pause:3.10"))
  )
    return undefined;
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-up-state-"));
  const dir = await mkdtemp(join(tmpdir(), "podrun-up-"));
  t.teardown(() => Promise.all([stateDir, dir].map((path) => rm(path, { recursive: true, force: true }))));
  const up = async (name: string, yaml: string, extra: string[] = []) => {
    const file = join(dir, `${name}.yaml`);
    await writeFile(file, yaml);
    return runCli(["up", "--runtime", runtime, "--json", file, ...extra], { env: { PODRUN_STATE_DIR: stateDir } });
  };
  const containersOf = async (pod: string) =>
    (await runCommand(runtime, ["ps", "-a", "-q", "--filter", `label=io.kubernetes.pod.name=${pod}`])).stdout
      .split("\n")
      .filter(Boolean);
  return { engine, up, containersOf, stateDir };
}

// Each case has its own state directory and uniquely named pods and images: two run at once.
t.jobs = 2;
for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: init containers run in order, each to completion, before the app; containers of a pod share localhost; labels; events in order`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("net");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const spec = `  initContainers:
    - name: first
      image: ${BUSYBOX}
      command: ["sh", "-c", "sleep 1"]
    - name: second
      image: ${BUSYBOX}
      command: ["true"]
  containers:
    - name: server
      image: ${BUSYBOX}
      command: ["sh", "-c", "mkdir -p /www && echo pong > /www/ping && exec httpd -f -p 8080 -h /www"]
    - name: client
      image: ${BUSYBOX}
      command: ["sh", "-c"]
      args: ["for i in $(seq 1 50); do if wget -q -O- http://127.0.0.1:8080/ping; then exec sleep 600; fi; sleep 0.2; done; exit 1"]
`;
      const r = await env.up(name, podYaml(name, spec));
      t.equal(r.exitCode, 0, r.stderr);
      const list = events(r.stdout);
      t.same(reasons(list, "spec.containers{server}"), ["Pulled", "Created", "Started"]);
      t.same(reasons(list, "spec.containers{client}"), ["Pulled", "Created", "Started"]);
      t.equal(
        list.find((e) => e.reason === "Pulled" && e.involvedObject.fieldPath === "spec.containers{server}")!.message,
        `Container image "${BUSYBOX}" already present on machine`,
      );
      t.ok(
        list.every(
          (e) =>
            e.involvedObject.kind === "Pod" &&
            e.involvedObject.name === name &&
            e.involvedObject.namespace === "default",
        ),
      );
      const order = list.filter((e) => e.reason === "Started").map((e) => e.involvedObject.fieldPath);
      t.same(
        order.slice(0, 2),
        ["spec.initContainers{first}", "spec.initContainers{second}"],
        "each init container started after the one before had finished",
      );
      t.same(
        order.slice(2).sort(),
        ["spec.containers{client}", "spec.containers{server}"],
        "the app containers after them (together: in either order)",
      );
      const state = (
        JSON.parse((await runCommand(runtime, ["inspect", `default_${name}_first`])).stdout) as [
          { State: { ExitCode: number; Status: string } },
        ]
      )[0].State;
      t.equal(state.ExitCode, 0);
      t.not(state.Status, "running", "the first init container had finished");

      // The client found the server on 127.0.0.1: the pod's containers share one network namespace.
      let logs = "";
      for (let i = 0; i < 50 && !logs.includes("pong"); i++) {
        logs = (await runCommand(runtime, ["logs", `default_${name}_client`], { reject: false })).stdout;
        if (!logs.includes("pong")) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      t.match(logs, "pong", "client reached the server over localhost");

      const ids = await env.containersOf(name);
      t.ok(ids.length >= 5, "infra + two init containers, exited, + two containers");
      const inspected = JSON.parse((await runCommand(runtime, ["inspect", ...ids])).stdout) as {
        Config: { Labels: Record<string, string> };
      }[];
      const names = inspected.map((c) => c.Config.Labels["io.kubernetes.container.name"]).sort();
      t.same(names.filter((n) => n !== undefined).sort(), ["POD", "client", "first", "second", "server"]);
      for (const c of inspected.filter((c) => c.Config.Labels["io.kubernetes.container.name"])) {
        t.match(c.Config.Labels, {
          "io.kubernetes.pod.name": name,
          "io.kubernetes.pod.namespace": "default",
          "io.podrun.managed": "true",
        });
        t.match(c.Config.Labels["io.kubernetes.pod.uid"], /^[0-9a-f-]{36}$/);
      }
    },
  );

  t.test(`${runtime}: pull from the loopback registry, then reuse with IfNotPresent`, { buffered: true }, async (t) => {
    const env = await setup(t, runtime);
    const testEnv = requireTestEnv(t);
    if (!env || !testEnv || !(await requireRegistry(t, "open"))) return;
    // A tag of our own, pushed now and removed locally, so the pull is a real pull.
    const image = `127.0.0.1:5100/podrun-test/${unique("up-pull")}:1`;
    await runCommand("docker", ["tag", BUSYBOX, image]);
    await runCommand("docker", ["push", "-q", image]);
    await runCommand("docker", ["rmi", image]);
    t.teardown(async () => {
      await runCommand(runtime, ["rmi", "-f", image], { reject: false });
    });
    const name = unique("pull");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const spec = `  containers:\n    - name: app\n      image: ${image}\n      command: ["sleep", "600"]\n`;
    const first = await env.up(name, podYaml(name, spec));
    t.equal(first.exitCode, 0, first.stderr);
    const pulled = events(first.stdout).filter((e) => e.involvedObject.fieldPath === "spec.containers{app}");
    t.same(
      pulled.map((e) => e.reason),
      ["Pulling", "Pulled", "Created", "Started"],
    );
    t.equal(pulled[0]!.message, `Pulling image "${image}"`);
    t.match(
      pulled[1]!.message,
      new RegExp(
        `^Successfully pulled image "${image.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}" in [0-9.]+m?s \\([0-9.]+m?s including waiting\\)\\. Image size: [1-9]\\d* bytes\\.$`,
      ),
    );

    await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
    const mark = registryLogMark(testEnv, "open");
    const second = await env.up(name, podYaml(name, spec));
    t.equal(second.exitCode, 0, second.stderr);
    t.same(reasons(events(second.stdout), "spec.containers{app}"), ["Pulled", "Created", "Started"]);
    t.match(second.stdout, "already present on machine");
    // This image's manifests only: other test files pull from the same registry meanwhile.
    const own = new RegExp(`/v2/${image.slice(image.indexOf("/") + 1, image.lastIndexOf(":"))}/manifests/`);
    t.equal(
      countRegistryRequests(testEnv, "open", { since: mark, match: own }),
      0,
      "IfNotPresent did not ask the registry",
    );
  });

  t.test(
    `${runtime}: Never with an absent image fails with ErrImageNeverPull and leaves nothing`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("never");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const image = `127.0.0.1:5100/podrun-test/${unique("absent")}:1`;
      const spec = `  containers:\n    - name: ok\n      image: ${BUSYBOX}\n      command: ["sleep", "600"]\n    - name: app\n      image: ${image}\n      imagePullPolicy: Never\n`;
      const r = await env.up(name, podYaml(name, spec));
      t.equal(r.exitCode, 1);
      const list = events(r.stdout);
      t.same(reasons(list, "spec.containers{app}"), ["ErrImageNeverPull", "Failed"]);
      t.equal(
        list.find((e) => e.reason === "ErrImageNeverPull")!.message,
        `Container image "${image}" is not present with pull policy of Never`,
      );
      t.match(r.stderr.trimEnd().split("\n").at(-1), /ErrImageNeverPull.*container app/);
      t.same(await env.containersOf(name), [], "no container left behind");
    },
  );

  t.test(
    `${runtime}: a missing image fails, then backs off without asking the registry`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      const testEnv = requireTestEnv(t);
      if (!env || !testEnv || !(await requireRegistry(t, "open"))) return;
      const name = unique("backoff");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const repo = unique("missing");
      const image = `127.0.0.1:5100/podrun-test/${repo}:1`;
      const spec = `  containers:\n    - name: app\n      image: ${image}\n`;
      const first = await env.up(name, podYaml(name, spec));
      t.equal(first.exitCode, 1);
      t.same(reasons(events(first.stdout), "spec.containers{app}"), ["Pulling", "Failed", "Failed"]);
      t.match(events(first.stdout).find((e) => e.reason === "Failed")!.message, `Failed to pull image "${image}": `);
      t.same(await env.containersOf(name), [], "nothing left after the failure");

      const mark = registryLogMark(testEnv, "open");
      const second = await env.up(name, podYaml(name, spec));
      t.equal(second.exitCode, 1);
      const list = events(second.stdout);
      t.same(reasons(list, "spec.containers{app}"), ["BackOff", "Failed"]);
      t.equal(list[reasons(list).indexOf("BackOff")]!.message, `Back-off pulling image "${image}"`);
      t.equal(list.find((e) => e.reason === "BackOff")!.type, "Normal");
      t.match(second.stderr, /ImagePullBackOff/);
      t.equal(
        countRegistryRequests(testEnv, "open", { since: mark, match: new RegExp(repo) }),
        0,
        "the registry was not contacted",
      );
      t.same(await env.containersOf(name), []);
    },
  );

  t.test(
    `${runtime}: a failing postStart hook kills the container and fails the pod`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("hook");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const spec = `  containers:\n    - name: app\n      image: ${BUSYBOX}\n      command: ["sleep", "600"]\n      lifecycle:\n        postStart:\n          exec:\n            command: ["sh", "-c", "echo secret-token >&2; exit 3"]\n`;
      const r = await env.up(name, podYaml(name, spec));
      t.equal(r.exitCode, 1);
      const list = events(r.stdout);
      t.same(reasons(list, "spec.containers{app}"), ["Pulled", "Created", "Started", "FailedPostStartHook", "Killing"]);
      t.equal(list.find((e) => e.reason === "FailedPostStartHook")!.message, "PostStartHook failed");
      t.equal(list.find((e) => e.reason === "Killing")!.message, "FailedPostStartHook");
      t.notMatch(r.stdout + r.stderr, "secret-token", "hook output never reaches events or messages");
      t.match(r.stderr, /PostStartHookError/);
      t.same(await env.containersOf(name), [], "nothing running, nothing left");
    },
  );

  t.test(
    `${runtime}: a failing init container fails the pod with its exit code and log`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("initfail");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const spec = `  initContainers:
    - name: migrate
      image: ${BUSYBOX}
      command: ["sh", "-c", "echo 'migration 42 failed'; exit 7"]
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sleep", "600"]
`;
      const r = await env.up(name, podYaml(name, spec));
      t.equal(r.exitCode, 1);
      t.match(r.stderr, /InitContainerFailed: .*init container migrate exited with code 7/);
      t.match(r.stderr, "migration 42 failed");
      t.notOk(
        events(r.stdout).some((e) => e.involvedObject.fieldPath === "spec.containers{app}"),
        "the app never started",
      );
      t.same(await env.containersOf(name), []);
    },
  );

  t.test(`${runtime}: --dry-run prints the commands and runs none`, { buffered: true }, async (t) => {
    const env = await setup(t, runtime);
    if (!env) return;
    const name = unique("dry");
    const spec = `  initContainers:\n    - name: init\n      image: ${BUSYBOX}\n  containers:\n    - name: app\n      image: ${BUSYBOX}\n      env:\n        - name: TOKEN\n          value: do-not-print-me\n      ports:\n        - containerPort: 80\n          hostPort: 18999\n`;
    const dir = await mkdtemp(join(tmpdir(), "podrun-dry-"));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, "pod.yaml");
    await writeFile(file, podYaml(name, spec));
    const r = await runCli(["up", "--runtime", runtime, "--dry-run", file], {
      env: { PODRUN_STATE_DIR: env.stateDir },
    });
    t.equal(r.exitCode, 0, r.stderr);
    const lines = r.stdout
      .trim()
      .split("\n")
      .filter((l) => l.startsWith(`${runtime} `));
    t.ok(
      lines.some((l) => l.includes(" create ") || l.startsWith(`${runtime} create`)),
      "a create command",
    );
    t.ok(
      lines.some((l) => / start /.test(` ${l} `)),
      "a start command",
    );
    t.match(r.stdout, "18999", "the hostPort is published on the sandbox");
    t.notMatch(r.stdout, "do-not-print-me", "env values never appear on a command line");
    t.same(await env.containersOf(name), [], "nothing was created");
  });
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: hostNetwork runs on the host's network, with no sandbox`, { buffered: true }, async (t) => {
    const env = await setup(t, runtime);
    if (!env) return;
    const name = unique("hostnet");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const port = 20000 + Math.floor(Math.random() * 20000);
    const spec = `  hostNetwork: true\n  containers:\n    - name: web\n      image: ${BUSYBOX}\n      command: ["sh", "-c", "mkdir -p /w && echo on-host > /w/i && exec httpd -f -p 127.0.0.1:${port} -h /w"]\n      ports:\n        - containerPort: ${port}\n`;
    const r = await env.up(name, podYaml(name, spec));
    t.equal(r.exitCode, 0, r.stderr);
    t.notOk(
      events(r.stdout).some((e) => e.involvedObject.fieldPath === undefined),
      "no sandbox image step",
    );
    let body = "";
    for (let i = 0; i < 50 && body !== "on-host\n"; i++) {
      body = await fetch(`http://127.0.0.1:${port}/i`).then(
        (res) => res.text(),
        () => "",
      );
      if (body !== "on-host\n") await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.equal(body, "on-host\n", "the container's port is the host's");
    const labels = (await env.containersOf(name)).length;
    t.equal(labels, 1, "one container, no infra container");
  });

  t.test(
    `${runtime}: an httpGet postStart hook against the pod that nobody answers fails the pod; --keep-on-failure keeps it`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("httphook");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const spec = `  containers:\n    - name: app\n      image: ${BUSYBOX}\n      command: ["sleep", "600"]\n      lifecycle:\n        postStart:\n          httpGet:\n            path: /ready\n            port: 8181\n`;
      const r = await env.up(name, podYaml(name, spec), ["--keep-on-failure"]);
      t.equal(r.exitCode, 1);
      t.same(reasons(events(r.stdout), "spec.containers{app}"), [
        "Pulled",
        "Created",
        "Started",
        "FailedPostStartHook",
        "Killing",
      ]);
      t.match(
        r.stderr,
        /PostStartHookError: pod\/.*container app: postStart hook failed: HTTP GET http:\/\/[\d.]+:8181\/ready failed: ECONNREFUSED/,
      );
      t.ok((await env.containersOf(name)).length >= 1, "--keep-on-failure left the pod for inspection");
    },
  );
}

t.test("an engine that does not answer: exit 1 and one line saying why", { buffered: true }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-noengine-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "pod.yaml");
  await writeFile(file, podYaml("noengine", `  containers:\n    - {name: a, image: ${BUSYBOX}}\n`));
  const r = await runCli(["up", "--runtime", "docker", file], {
    env: { DOCKER_HOST: "unix:///nonexistent/docker.sock", PODRUN_STATE_DIR: dir },
  });
  t.equal(r.exitCode, 1);
  t.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  t.match(
    r.stderr,
    /^Error: RuntimeUnavailable: no container engine answered: docker: Cannot connect to the Docker daemon at unix:\/\/\/nonexistent\/docker\.sock/,
  );
});
