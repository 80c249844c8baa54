import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { execa } from "execa";
import { runCli } from "../harness/cli.js";
import { missing, requireEngine, requireTestEnv } from "../harness/engine.js";
import { BUSYBOX } from "../harness/engine-pod.js";

// Where the engine is (`podrun version`), against real engines: docker and podman on this host
// are local, their pods' addresses reachable; the simulated VM of scripts/test-env.sh (a dockerd in
// a network namespace of its own, reached through its socket) is a VM's, and a pod there is indeed
// not reachable at its address from here: a request to it never gets the pod's answer.

interface Located {
  engine: { name: string };
  location: { place: string; podIPsRoutable: boolean; sharedDisk: boolean; endpoint: string; reason: string };
}

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

t.test("up on the simulated VM: one Warning for the pods' httpGet and tcpSocket checks", async (t) => {
  const vm = requireTestEnv(t)?.vmDocker;
  if (!vm) return missing(t, "the simulated VM engine (vmDocker in env.json)");
  const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-vm-"));
  const env = { DOCKER_HOST: vm.host, PODRUN_STATE_DIR: join(dir, "state") };
  const name = `vm-${randomBytes(4).toString("hex")}`;
  const file = join(dir, "pod.yaml");
  await writeFile(
    file,
    `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: web
    image: ${BUSYBOX}
    command: [httpd, -f, -p, "8080", -h, /]
    readinessProbe: {tcpSocket: {port: 8080}}
`,
  );
  t.teardown(async () => {
    await runCli(["down", file, "--runtime", "docker", "--grace-period", "0"], { env });
    await rm(dir, { recursive: true, force: true });
  });
  const up = await runCli(["up", file, "--runtime", "docker"], { env });
  t.equal(up.exitCode, 0, up.stderr);
  t.match(
    up.stderr,
    new RegExp(
      `^Warning: pod addresses are not reachable from this host \\(network \\S+'s bridge \\S+ \\([\\d.]+\\) is not on this host\\): the httpGet and tcpSocket checks \\(pod/${name}\\[web: readinessProbe tcpSocket\\]\\) cannot reach the pods`,
      "m",
    ),
  );
  const down = await runCli(["down", file, "--runtime", "docker", "--grace-period", "0"], { env });
  t.equal(down.exitCode, 0, down.stderr);
  const left = await execa("docker", ["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${name}`], { env });
  t.equal(left.stdout.trim(), "", "down leaves nothing of the pod on the VM's engine");
});
