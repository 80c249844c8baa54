import { randomBytes } from "node:crypto";
import { access, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import t from "tap";
import { execa } from "execa";
import { runCli } from "../harness/cli.js";
import { holdVmEngines, missing, requireTestEnv } from "../harness/engine.js";
import { BUSYBOX } from "../harness/engine-pod.js";

// A pod on an engine that cannot see this host's disk nor reach its pods: the simulated VM engines of
// scripts/test-env.sh (a dockerd, and a podman service reached as a remote podman is) run in a
// mount namespace where a tmpfs hides env.json's vmHiddenDir, so a state directory under it is
// one they cannot see, as a remote engine cannot. podrun finds that out by a mount, copies the
// pod's files into an engine volume through the engine (lib/pod/volumes/engine-files.ts), and
// httpGet, tcpSocket and exec probes and httpGet hooks pass (through the relay); every file volume
// type reads back inside the container, with its modes and the fsGroup's group;
// a kept pod's ConfigMap update is seen in place; the termination message and the logs come back;
// the hostPort answers on the engine's host; `down` leaves nothing there or here.

// One file at a time on the simulated VM engines: `down --all` there must not meet another file's pods.
await holdVmEngines(t);

const VM_ENGINES = [
  { runtime: "docker", key: "vmDocker", variable: "DOCKER_HOST" },
  { runtime: "podman", key: "vmPodman", variable: "CONTAINER_HOST" },
] as const;

const manifest = (name: string, greeting: string, hostPort: number) => `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}-config}
data: {greeting: ${greeting}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}-file}
data: {app.conf: "port=8080"}
---
apiVersion: v1
kind: Secret
metadata: {name: ${name}-secret}
stringData: {password: s3cret}
---
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels: {app: ${name}}
spec:
  terminationGracePeriodSeconds: 2
  securityContext: {fsGroup: 2000}
  initContainers:
  - name: init
    image: ${BUSYBOX}
    command: [sh, -c, 'echo from-init > /work/sub/made && echo "GREETING=''from-file''" > /work/sub/app.env && echo init-done > /dev/termination-log']
    volumeMounts: [{name: work, mountPath: /work/sub, subPath: data}]
  containers:
  - name: web
    image: ${BUSYBOX}
    command: [sh, -c, 'echo serving; mkdir /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www']
    ports: [{containerPort: 8080, hostPort: ${hostPort}}]
    startupProbe: {httpGet: {path: /index.html, port: 8080}, periodSeconds: 1, timeoutSeconds: 5}
    readinessProbe: {httpGet: {path: /index.html, port: 8080}, periodSeconds: 1, timeoutSeconds: 5}
    livenessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1, timeoutSeconds: 5}
    lifecycle:
      preStop: {httpGet: {path: /index.html, port: 8080}}
    volumeMounts:
    - {name: config, mountPath: /etc/config}
    - {name: file, mountPath: /etc/app.conf, subPath: app.conf}
    - {name: secret, mountPath: /etc/secret}
    - {name: info, mountPath: /etc/info}
    - {name: all, mountPath: /etc/all}
    - {name: work, mountPath: /work}
  - name: side
    image: ${BUSYBOX}
    command: [sh, -c, 'touch /tmp/ready && exec sleep 600']
    env:
    - name: GREETING
      valueFrom: {fileKeyRef: {volumeName: work, path: data/app.env, key: GREETING}}
    startupProbe: {exec: {command: [cat, /tmp/ready]}, periodSeconds: 1, timeoutSeconds: 5}
    readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1, timeoutSeconds: 5}
    livenessProbe: {exec: {command: [cat, /tmp/ready]}, periodSeconds: 1, timeoutSeconds: 5}
    lifecycle:
      postStart: {httpGet: {path: /index.html, port: 8080}}
  volumes:
  - {name: config, configMap: {name: ${name}-config}}
  - {name: file, configMap: {name: ${name}-file}}
  - {name: secret, secret: {secretName: ${name}-secret, defaultMode: 0400}}
  - name: info
    downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}
  - name: all
    projected: {sources: [{configMap: {name: ${name}-config}}, {secret: {name: ${name}-secret}}]}
  - {name: work, emptyDir: {}}
`;

const READ_BACK = [
  "cat /etc/config/greeting",
  "cat /etc/app.conf",
  "cat /etc/secret/password",
  "stat -L -c '%a %g' /etc/secret/password",
  "cat /etc/info/labels",
  "cat /etc/all/greeting /etc/all/password",
  "cat /work/data/made",
  "stat -c '%a %g' /work",
  "grep -c Kubernetes-managed /etc/hosts",
  "grep -c '^search default.svc.cluster.local ' /etc/resolv.conf",
]
  .map((command) => `echo "$(${command})"`)
  .join("; ");

for (const { runtime, key, variable } of VM_ENGINES)
  t.test(`an engine that cannot see this host's files (${runtime}): the pod's files copied through it`, async (t) => {
    const testEnv = requireTestEnv(t);
    const vm = testEnv?.[key];
    if (!vm || !testEnv?.vmHiddenDir) return missing(t, `the simulated VM engine (${key}, vmHiddenDir in env.json)`);
    const dir = await mkdtemp(join(testEnv.vmHiddenDir, "podrun-e2e-files-"));
    const stateDir = join(dir, "state");
    const env = { [variable]: vm.host, PODRUN_STATE_DIR: stateDir };
    const name = `files-${randomBytes(4).toString("hex")}`;
    const hostPort = 20000 + (randomBytes(2).readUInt16BE() % 10000);
    const file = join(dir, "pod.yaml");
    const engine = (args: string[]) => execa(runtime, args, { env, reject: false });
    const podctl = ([verb, ...args]: string[]) => runCli([verb!, "--runtime", runtime, ...args], { env });
    t.teardown(async () => {
      await podctl(["down", "--all", "--grace-period", "0"]);
      await rm(dir, { recursive: true, force: true });
    });

    const version = await podctl(["version"]);
    t.match(version.stdout, /\nfiles: not seen by the engine: copied into engine volumes: \w+ cannot mount /);

    await writeFile(file, manifest(name, "hello", hostPort));
    const up = await podctl(["up", "--wait", "--timeout", "60s", file]);
    t.equal(up.exitCode, 0, `up --wait: ${up.stderr}`);
    t.match(up.stdout, new RegExp(`pod/${name}: ready: 2/2 containers`), "httpGet, tcpSocket and exec probes passed");
    // A startup or readiness probe may fail while the server starts (a loaded machine, a slow relay), as on a node;
    // a hook that failed or a liveness probe that did would have restarted a container.
    t.notMatch(up.stdout, /FailedPostStartHook|Liveness probe failed/, "no hook failed, no liveness probe");
    const read = await podctl(["exec", name, "-c", "web", "--", "sh", "-c", READ_BACK]);
    t.equal(read.exitCode, 0, read.stderr);
    t.same(read.stdout.split("\n"), [
      "hello",
      "port=8080",
      "s3cret",
      "440 2000", // defaultMode 0400 with the fsGroup's read bit, the group 2000
      `app="${name}"`,
      "hellos3cret",
      "from-init", // the init container's file, through an emptyDir subPath made on the engine's host
      "2777 2000", // the emptyDir as the kubelet sets it up: 0777, setgid, the fsGroup's
      "1", // podrun's /etc/hosts
      "1", // and resolv.conf: the cluster's DNS search path
      "",
    ]);
    const greetingEnv = await podctl(["exec", name, "-c", "side", "--", "sh", "-c", 'echo "$GREETING"']);
    t.equal(greetingEnv.stdout, "from-file\n", "an env file the init container wrote, read through the engine");
    const message = await podctl([
      "get",
      "pod",
      name,
      "-o",
      "jsonpath={.status.initContainerStatuses[0].state.terminated.message}",
    ]);
    t.equal(message.stdout, "init-done\n", "the termination message, read back through the engine");
    const logs = await podctl(["logs", name, "-c", "web"]);
    t.match(logs.stdout, /^serving$/m, "logs");
    // The hostPort is published on the engine's host (here, the simulated VM's network namespace).
    const node = await execa(
      "nsenter",
      [`--net=/run/netns/${vm.netns}`, "busybox", "wget", "-qO-", `http://127.0.0.1:${hostPort}/index.html`],
      { reject: false },
    );
    t.equal(node.stdout, "ok", `the hostPort answers on the engine's host: ${node.stderr}`);

    // A kept pod: the ConfigMap's new value appears in place, the container kept.
    const id = async () =>
      (await podctl(["get", "pod", name, "-o", "jsonpath={.status.containerStatuses[0].containerID}"])).stdout.trim();
    const before = await id();
    await writeFile(file, manifest(name, "bonjour", hostPort));
    const again = await podctl(["up", file]);
    t.equal(again.exitCode, 0, again.stderr);
    const greeting = await podctl([
      "exec",
      name,
      "-c",
      "web",
      "--",
      "cat",
      "/etc/config/greeting",
      "/etc/all/greeting",
    ]);
    t.equal(greeting.stdout, "bonjourbonjour", "the update, seen in place");
    t.equal(await id(), before, "the container was kept");
    const copies = await podctl(["exec", name, "-c", "web", "--", "ls", "-a", "/etc/config"]);
    t.equal(copies.stdout.split("\n").filter((entry) => entry.startsWith("..2")).length, 1, "the old copy is gone");

    const down = await podctl(["down", file]);
    t.equal(down.exitCode, 0, down.stderr);
    const preStop = await podctl(["events", "--reason", "FailedPreStopHook"]);
    t.notMatch(preStop.stdout, /FailedPreStopHook/, "the httpGet preStop hook reached the pod");
    const volumes = await engine(["volume", "ls", "-q", "--filter", "label=io.podrun.managed=true"]);
    t.equal(volumes.stdout.trim(), "", "no volume left on the engine");
    const containers = await engine(["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${name}`]);
    t.equal(containers.stdout.trim(), "", "no container left");
    // A remote podman removes a `run --rm` container once it has exited, a moment after its client returns.
    let helpers = "";
    for (let i = 0; i < 50; i++) {
      helpers = (await engine(["ps", "-aq", "--filter", "label=io.podrun.files-helper"])).stdout.trim();
      if (helpers === "") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.equal(helpers, "", "no files helper left");
    await t.rejects(access(join(stateDir, "pods", runtime, `default_${name}`)), "nor the pod directory here");
    t.notMatch(await readFile(join(stateDir, "events.ndjson"), "utf8"), /s3cret/, "the Secret is in no event");
  });
