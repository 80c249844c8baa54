import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { execa } from "execa";
import { PODRUN_BIN, runCli } from "../harness/cli.js";
import { holdVmEngines, missing, requireEngine, requireTestEnv } from "../harness/engine.js";
import { BUSYBOX } from "../harness/engine-pod.js";

// Where the engine is (`podrun version`), against real engines: docker and podman on this host
// are local, their pods' addresses reachable; the simulated VM of scripts/test-env.sh (a dockerd in
// a network namespace of its own, reached through its socket) is a VM's, and a pod there is indeed
// not reachable at its address from here: a request to it never gets the pod's answer.

interface Located {
  engine: { name: string };
  location: { place: string; podIPsRoutable: boolean; sharedDisk: boolean; endpoint: string; reason: string };
}

// One file at a time on the simulated VM engines: `down --all` there must not meet another file's pods.
await holdVmEngines(t);

const located = async (runtime: string, env: Record<string, string> = {}) => {
  const result = await runCli(["version", "--runtime", runtime, "-o", "json"], { env });
  if (result.exitCode !== 0) throw new Error(`podrun version: ${result.stderr}`);
  return JSON.parse(result.stdout) as Located;
};

for (const runtime of ["docker", "podman"] as const)
  t.test(`${runtime} on this host: local, its pods reachable`, async (t) => {
    if (!(await requireEngine(t, runtime))) return;
    const { engine, location } = await located(runtime);
    t.equal(engine.name, runtime);
    t.match(location, { place: "local", podIPsRoutable: true, sharedDisk: true });
    const text = await runCli(["version", "--runtime", runtime]);
    t.match(text.stdout, /^podrun: \S+ \(Kubernetes API v1\.\d+\)\nengine: /);
    t.match(text.stdout, /\nplace: local \(this host\): network \S+'s bridge \S+ \([\d.]+\) is on this host\n/);
  });

t.test("the simulated VM: its pods' addresses are not reachable from this host", async (t) => {
  const vm = requireTestEnv(t)?.vmDocker;
  if (!vm) return missing(t, "the simulated VM engine (vmDocker in env.json)");
  const env = { DOCKER_HOST: vm.host };
  const { location } = await located("docker", env);
  t.match(location, { place: "vm", podIPsRoutable: false, sharedDisk: true, endpoint: vm.host });
  t.match(location.reason, /^network \S+'s bridge \S+ \([\d.]+\) is not on this host$/);
  // A pod there serving a token of its own: from this host, its address never answers with it.
  const token = randomBytes(8).toString("hex");
  const name = `podrun-e2e-vm-${token}`;
  const docker = (args: string[]) => execa("docker", args, { env, reject: false });
  t.teardown(() => docker(["rm", "-f", name]));
  const started = await docker([
    "run",
    "-d",
    "--name",
    name,
    BUSYBOX,
    "sh",
    "-c",
    `mkdir /www && echo ${token} > /www/index.html && exec httpd -f -p 8080 -h /www`,
  ]);
  t.equal(started.exitCode, 0, started.stderr);
  const ip = (
    await docker(["inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", name])
  ).stdout.trim();
  t.match(ip, /^\d+\.\d+\.\d+\.\d+$/);
  const inside = await docker(["exec", name, "wget", "-qO-", "http://127.0.0.1:8080/"]);
  t.equal(inside.stdout.trim(), token, "the pod answers inside the VM");
  const fromHere = await fetch(`http://${ip}:8080/`, { signal: AbortSignal.timeout(2000) })
    .then((response) => response.text())
    .catch((error: Error) => `unreachable: ${error.message}`);
  t.not(fromHere.trim(), token, `from this host, ${ip} is not the pod (${fromHere.trim().slice(0, 60)})`);
});

/** The simulated VM engines: a dockerd (DOCKER_HOST) and a podman service used as a remote podman (CONTAINER_HOST). */
const VM_ENGINES = [
  { runtime: "docker", key: "vmDocker", variable: "DOCKER_HOST" },
  { runtime: "podman", key: "vmPodman", variable: "CONTAINER_HOST" },
] as const;

for (const { runtime, key, variable } of VM_ENGINES)
  t.test(
    `the simulated VM (${runtime}): httpGet and tcpSocket probes and hooks through the engine's relay`,
    async (t) => {
      const vm = requireTestEnv(t)?.[key];
      if (!vm) return missing(t, `the simulated VM engine (${key} in env.json)`);
      const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-vm-"));
      const env = { [variable]: vm.host, PODRUN_STATE_DIR: join(dir, "state") };
      const name = `vm-${randomBytes(4).toString("hex")}`;
      // A hostNetwork pod's port, on the engine's host (the simulated VM's namespace): its checks go to 127.0.0.1 there.
      const hostPort = 30000 + (randomBytes(2).readUInt16BE() % 10000);
      const file = join(dir, "pod.yaml");
      // Every kind of network check: web's server answers them; side's postStart reaches web (started first).
      // A 5 s timeout: what is proved is the path through the relay, not its speed on a loaded machine.
      await writeFile(
        file,
        `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 5
  containers:
  - name: web
    image: ${BUSYBOX}
    command: [sh, -c, 'mkdir /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www']
    startupProbe: {httpGet: {path: /index.html, port: 8080}, periodSeconds: 1, timeoutSeconds: 5}
    readinessProbe: {httpGet: {path: /index.html, port: 8080}, periodSeconds: 1, timeoutSeconds: 5}
    livenessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1, timeoutSeconds: 5}
    lifecycle:
      preStop: {httpGet: {path: /index.html, port: 8080}}
  - name: side
    image: ${BUSYBOX}
    command: [sleep, "600"]
    startupProbe: {exec: {command: ["true"]}, periodSeconds: 1, timeoutSeconds: 5}
    readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1, timeoutSeconds: 5}
    livenessProbe: {exec: {command: ["true"]}, periodSeconds: 1, timeoutSeconds: 5}
    lifecycle:
      postStart: {httpGet: {path: /index.html, port: 8080}}
---
apiVersion: v1
kind: Pod
metadata: {name: ${name}-host}
spec:
  hostNetwork: true
  terminationGracePeriodSeconds: 1
  containers:
  - name: web
    image: ${BUSYBOX}
    command: [sh, -c, 'mkdir /www && echo ok > /www/index.html && exec httpd -f -p ${hostPort} -h /www']
    readinessProbe: {httpGet: {path: /index.html, port: ${hostPort}}, periodSeconds: 1, timeoutSeconds: 5}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}-deploy}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}-deploy}}
  template:
    metadata: {labels: {app: ${name}-deploy}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: web
        image: ${BUSYBOX}
        command: [sh, -c, 'mkdir /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www']
        readinessProbe: {httpGet: {path: /index.html, port: 8080}, periodSeconds: 1, timeoutSeconds: 5}
`,
      );
      const engine = (args: string[]) => execa(runtime, args, { env, reject: false });
      t.teardown(async () => {
        await runCli(["down", "--all", "--runtime", runtime, "--grace-period", "0"], { env });
        await rm(dir, { recursive: true, force: true });
      });
      const up = await runCli(["up", "--wait", "--timeout", "60s", file, "--runtime", runtime], { env });
      t.equal(up.exitCode, 0, `up --wait: ${up.stderr}`);
      t.match(
        up.stdout,
        new RegExp(`pod/${name}: ready: 2/2 containers`),
        "Ready: its probes passed through the relay",
      );
      t.match(
        up.stdout,
        new RegExp(`pod/${name}-host: ready: 1/1 container `),
        "the hostNetwork pod Ready: its probe went to the engine host's loopback",
      );
      // A startup or readiness probe may fail while the server starts (a loaded machine, a slow relay), as on a node;
      // a hook that failed or a liveness probe that did would have restarted a container.
      t.notMatch(up.stdout, /FailedPostStartHook|Liveness probe failed/, "no hook failed, no liveness probe");
      const relays = await engine(["ps", "--filter", "label=io.podrun.relay", "--format", "{{.Names}}"]);
      t.same(
        relays.stdout.trim().split("\n").sort(),
        ["podrun-relay-host", "podrun-relay-podrun"],
        "one relay on the cluster network, one on the engine's host network",
      );
      const waited = await runCli(
        ["wait", "--for=condition=Ready", `pod/${name}`, "--timeout", "30s", "--runtime", runtime],
        { env },
      );
      t.equal(
        waited.stdout,
        `pod/${name} condition met\n`,
        `wait runs the probes through the relay too: ${waited.stderr}`,
      );
      const rollout = await runCli(
        ["rollout", "status", `deployment/${name}-deploy`, "--timeout", "30s", "--runtime", runtime],
        { env },
      );
      t.match(
        rollout.stdout,
        /successfully rolled out/,
        `rollout status probes through the relay too: ${rollout.stderr}`,
      );
      // port-forward: the engine's place says the pod is not reachable, so its connections go through the relay.
      const forward = execa(
        process.execPath,
        [PODRUN_BIN, "port-forward", "--runtime", runtime, `pod/${name}`, ":8080"],
        {
          env: { ...env, NO_COLOR: "1" },
          reject: false,
        },
      );
      let said = "";
      forward.stdout.on("data", (chunk: Buffer) => (said += chunk.toString()));
      for (let i = 0; i < 100 && !/Forwarding from/.test(said); i++) await new Promise((r) => setTimeout(r, 100));
      const port = Number(/127\.0\.0\.1:(\d+) -> 8080/.exec(said)?.[1]);
      t.ok(port > 0, `port-forward listens: ${said}`);
      const bodies = await Promise.all(
        Array.from({ length: 5 }, () => fetch(`http://127.0.0.1:${port}/index.html`).then((r) => r.text())),
      );
      t.same(bodies, Array(5).fill("ok\n"), "each request reached the pod through the relay");
      forward.kill("SIGTERM");
      t.equal((await forward).exitCode, 0, "SIGTERM ends it");
      const down = await runCli(["down", file, "--runtime", runtime], { env });
      t.equal(down.exitCode, 0, down.stderr);
      const events = await runCli(["events", "--reason", "FailedPreStopHook", "--runtime", runtime], { env });
      t.notMatch(events.stdout, /FailedPreStopHook/, "the httpGet preStop hook reached the pod");
      const all = await runCli(["down", "--all", "--runtime", runtime], { env });
      t.equal(all.exitCode, 0, all.stderr);
      const left = await engine(["ps", "-aq", "--filter", "label=io.podrun.relay"]);
      t.equal(left.stdout.trim(), "", "down --all removes the relay with the cluster network");
      const network = await engine(["network", "ls", "-q", "--filter", "name=^podrun$"]);
      t.equal(network.stdout.trim(), "", "and the network");
    },
  );
