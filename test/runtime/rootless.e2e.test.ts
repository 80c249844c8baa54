import { randomBytes } from "node:crypto";
import { chmod, chown, cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";
import { execa } from "execa";
import { missing, requireTestEnv } from "../harness/engine.js";
import { BUSYBOX } from "../harness/engine-pod.js";

// Rootless podman (issue 27), run by a user of its own (scripts/test-env.sh): podrun runs as that
// user, so podman is rootless; its pods' addresses are in a namespace this host cannot reach, so
// their network checks go through the engine's relay; the engine sees this host's files, but
// podrun (not root) cannot give them the pod's fsGroup, so they are copied through the engine,
// whose root (in its user namespace) can. A container running as uid 1000 then reads a 0400
// Secret through the fsGroup, as on a node, and writes the emptyDir.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const manifest = (name: string, greeting: string) => `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}-config}
data: {greeting: ${greeting}}
---
apiVersion: v1
kind: Secret
metadata: {name: ${name}-secret}
stringData: {password: s3cret}
---
apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 2
  securityContext: {fsGroup: 2000}
  initContainers:
  - name: init
    image: ${BUSYBOX}
    command: [sh, -c, 'echo init-done > /dev/termination-log']
  containers:
  - name: web
    image: ${BUSYBOX}
    securityContext: {runAsUser: 1000}
    command: [sh, -c, 'echo serving; mkdir /tmp/www && echo ok > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www']
    readinessProbe: {httpGet: {path: /index.html, port: 8080}, periodSeconds: 1, timeoutSeconds: 5}
    livenessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1, timeoutSeconds: 5}
    lifecycle:
      postStart: {httpGet: {path: /index.html, port: 8080}}
    volumeMounts:
    - {name: config, mountPath: /etc/config}
    - {name: secret, mountPath: /etc/secret}
    - {name: work, mountPath: /work}
  volumes:
  - {name: config, configMap: {name: ${name}-config}}
  - {name: secret, secret: {secretName: ${name}-secret, defaultMode: 0400}}
  - {name: work, emptyDir: {}}
`;

t.test("rootless podman: probes through the relay, files given the fsGroup through the engine", async (t) => {
  const rootless = requireTestEnv(t)?.rootlessPodman;
  if (!rootless) return missing(t, "rootless podman (rootlessPodman in env.json)");
  // podrun (its bundle) where the user can read it, and a state directory of the user's.
  const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-rootless-"));
  await chmod(dir, 0o755);
  for (const part of ["bin", "dist", "package.json"]) await cp(join(ROOT, part), join(dir, part), { recursive: true });
  const stateDir = join(dir, "state");
  await mkdir(stateDir);
  await chown(stateDir, rootless.uid, rootless.uid);
  const name = `rl-${randomBytes(4).toString("hex")}`;
  const file = join(dir, "pod.yaml");
  /** A command run as the rootless user, in its session's environment. */
  const asUser = (command: string[], env: string[] = []) =>
    execa(
      "runuser",
      [
        ...["-u", rootless.user, "--", "env", `XDG_RUNTIME_DIR=${rootless.runtimeDir}`, `HOME=${rootless.home}`],
        ...env,
        ...command,
      ],
      { reject: false, cwd: dir },
    );
  const podrun = ([verb, ...args]: string[]) =>
    asUser(
      [process.execPath, join(dir, "bin/podrun.js"), verb!, "--runtime", "podman", ...args],
      [`PATH=${dirname(process.execPath)}:/usr/sbin:/usr/bin:/sbin:/bin`, `PODRUN_STATE_DIR=${stateDir}`, "NO_COLOR=1"],
    );
  t.teardown(async () => {
    await podrun(["down", "--all", "--grace-period", "0"]);
    await rm(dir, { recursive: true, force: true });
  });

  const version = await podrun(["version"]);
  t.match(version.stdout, /\nplace: a VM or namespace of this machine: the engine runs rootless/);
  t.match(version.stdout, /\npod addresses: not reachable from this host\n/);
  t.match(version.stdout, /\nfiles: seen by the engine: bind-mounted: podman at its default socket runs on this host/);

  await writeFile(file, manifest(name, "hello"), { mode: 0o644 });
  const up = await podrun(["up", "--wait", "--timeout", "60s", file]);
  t.equal(up.exitCode, 0, `up --wait: ${up.stderr}`);
  t.match(up.stdout, new RegExp(`pod/${name}: ready: 1/1 container `), "Ready: its probes went through the relay");
  t.notMatch(
    up.stdout,
    /FailedPostStartHook|Liveness probe failed|FailedVolumeOwnership/,
    "no hook or liveness failure, no ownership Warning",
  );
  const read = await podrun([
    "exec",
    name,
    "-c",
    "web",
    "--",
    "sh",
    "-c",
    [
      "id -u",
      "cat /etc/secret/password",
      "stat -L -c '%a %g' /etc/secret/password",
      "cat /etc/config/greeting",
      "stat -c '%a %g' /work",
      "touch /work/mine && stat -c '%u %g' /work/mine",
    ]
      .map((command) => `echo "$(${command})"`)
      .join("; "),
  ]);
  t.equal(read.exitCode, 0, read.stderr);
  t.same(read.stdout.split("\n"), [
    "1000",
    "s3cret", // uid 1000 reads a 0400 Secret through the fsGroup's read bit
    "440 2000",
    "hello",
    "2777 2000",
    "1000 2000", // a file made in the emptyDir belongs to the fsGroup (setgid)
  ]);
  const message = await podrun([
    "get",
    "pod",
    name,
    "-o",
    "jsonpath={.status.initContainerStatuses[0].state.terminated.message}",
  ]);
  t.equal(message.stdout, "init-done", `the termination message: ${message.stderr}`);
  const logs = await podrun(["logs", name, "-c", "web"]);
  t.match(logs.stdout, /^serving$/m, "logs");

  await writeFile(file, manifest(name, "bonjour"));
  const again = await podrun(["up", file]);
  t.equal(again.exitCode, 0, again.stderr);
  const greeting = await podrun(["exec", name, "-c", "web", "--", "cat", "/etc/config/greeting"]);
  t.equal(greeting.stdout, "bonjour", "a ConfigMap update, in place");

  const down = await podrun(["down", "--all"]);
  t.equal(down.exitCode, 0, down.stderr);
  const engine = (args: string[]) => asUser(["podman", ...args]);
  const containers = await engine(["ps", "-aq", "--filter", "label=io.podrun.managed=true"]);
  t.equal(containers.stdout.trim(), "", "no pod container left");
  const relays = await engine(["ps", "-aq", "--filter", "label=io.podrun.relay"]);
  t.equal(relays.stdout.trim(), "", "nor the relay");
  const volumes = await engine(["volume", "ls", "-q", "--filter", "label=io.podrun.managed=true"]);
  t.equal(volumes.stdout.trim(), "", "nor a volume");
});
