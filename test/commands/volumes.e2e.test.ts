import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import t, { type Test } from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, requirePodEngine } from "../harness/engine.js";

// configMap, secret, downwardAPI, projected and hostPath volumes, subPath and subPathExpr, as a
// container sees them on docker and podman: a container prints the modes (`stat -L`) and contents
// of every path, and the test reads what it printed. Then what stays on the host: the Secret's
// files out of other users' reach, nothing left after `down`, nothing made when a check fails.

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;

const PATHS = [
  "/cfg",
  "/cfg/app.properties",
  "/cfg/plain",
  "/items/conf",
  "/items/conf/nested/app.ini",
  "/items/plain.txt",
  "/sec/password",
  "/dn/labels",
  "/dn/name",
  "/proj/p1",
  "/proj/pw",
  "/proj/ns",
  "/hd",
  "/hf",
  "/hdc",
  "/hfc",
  "/sub",
  "/ed/sub1",
];

const script = [
  `for p in ${PATHS.join(" ")}; do stat -L -c 'MODE %a %n' $p; done`,
  'for f in /cfg/app.properties /items/conf/nested/app.ini /sec/password /dn/labels /dn/name /proj/p1 /proj/pw /proj/ns /hf; do echo "--- $f"; cat $f; echo; done',
  "ls /proj | tr '\\n' ' ' | sed 's/^/PROJ /'; echo",
  "touch /cfg/x 2>/dev/null && echo 'WRITE cfg' || echo 'RO cfg'",
  "touch /hf 2>/dev/null && echo 'WRITE hf' || echo 'RO hf'",
  "echo from-container > /hd/written && echo 'WRITE hd'",
  "echo x > /sub/made && test -f /ed/sub1/made && echo 'SUBPATH shared'",
  "echo END",
  "exec sleep 600",
].join("\n");

// A subPath of a configMap key, and a Memory emptyDir of its own: a tmpfs of sizeLimit, executable.
const oneScript = [
  "stat -L -c 'MODE %a %n' /etc/one.txt",
  "stat -f -c 'FS %T' /mem",
  "df -k /mem | tail -1 | awk '{print \"SIZE \" $2}'",
  "printf '#!/bin/sh\\necho EXEC ok\\n' > /mem/run && chmod +x /mem/run && /mem/run",
  'echo "ONE $(cat /etc/one.txt)"',
  "exec sleep 600",
].join("\n");

function manifest(name: string, hostDir: string, plain = "hello"): string {
  return `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}-cfg}
data:
  app.properties: "a=1\\nb=2\\n"
  plain: ${plain}
---
apiVersion: v1
kind: Secret
metadata: {name: ${name}-sec}
stringData:
  password: "line1\\nline2\\n"
---
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels: {app: web, tier: back}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: show
    image: ${BUSYBOX}
    env: [{name: SUB, value: sub1}]
    command: [sh, -c, ${JSON.stringify(script)}]
    volumeMounts:
    - {name: cfg, mountPath: /cfg}
    - {name: items, mountPath: /items}
    - {name: sec, mountPath: /sec}
    - {name: dn, mountPath: /dn}
    - {name: proj, mountPath: /proj}
    - {name: hd, mountPath: /hd}
    - {name: hf, mountPath: /hf, readOnly: true}
    - {name: hdc, mountPath: /hdc}
    - {name: hfc, mountPath: /hfc}
    - {name: ed, mountPath: /sub, subPathExpr: "$(SUB)"}
    - {name: ed, mountPath: /ed}
  - name: one
    image: ${BUSYBOX}
    command: [sh, -c, ${JSON.stringify(oneScript)}]
    volumeMounts:
    - {name: cfg, mountPath: /etc/one.txt, subPath: plain}
    - {name: mem, mountPath: /mem}
  volumes:
  - {name: cfg, configMap: {name: ${name}-cfg}}
  - name: items
    configMap:
      name: ${name}-cfg
      defaultMode: 0600
      items:
      - {key: app.properties, path: conf/nested/app.ini, mode: 0755}
      - {key: plain, path: plain.txt}
  - {name: sec, secret: {secretName: ${name}-sec, defaultMode: 0400}}
  - name: dn
    downwardAPI:
      items:
      - {path: labels, fieldRef: {fieldPath: metadata.labels}}
      - {path: name, fieldRef: {fieldPath: metadata.name}}
  - name: proj
    projected:
      defaultMode: 0440
      sources:
      - configMap: {name: ${name}-cfg, items: [{key: plain, path: p1}]}
      - secret: {name: ${name}-sec, items: [{key: password, path: pw, mode: 0400}]}
      - downwardAPI: {items: [{path: ns, fieldRef: {fieldPath: metadata.namespace}}]}
      - serviceAccountToken: {path: token}
  - {name: hd, hostPath: {path: ${hostDir}/dir, type: Directory}}
  - {name: hf, hostPath: {path: ${hostDir}/file, type: File}}
  - {name: hdc, hostPath: {path: ${hostDir}/made-dir, type: DirectoryOrCreate}}
  - {name: hfc, hostPath: {path: ${hostDir}/made-file, type: FileOrCreate}}
  - {name: ed, emptyDir: {}}
  - {name: mem, emptyDir: {medium: Memory, sizeLimit: 4Mi}}
`;
}

async function setup(t: Test, runtime: RuntimeName) {
  if (!(await requirePodEngine(t, runtime))) return undefined;
  const base = await mkdtemp(join(tmpdir(), "podrun-volumes-"));
  t.teardown(() => rm(base, { recursive: true, force: true }));
  const stateDir = join(base, "state");
  const run = async (args: string[], yaml?: string) => {
    const file = join(base, "pod.yaml");
    if (yaml !== undefined) await writeFile(file, yaml);
    return runCli([args[0]!, "--runtime", runtime, ...args.slice(1), ...(yaml !== undefined ? [file] : [])], {
      env: { PODRUN_STATE_DIR: stateDir },
    });
  };
  return { base, stateDir, run };
}

async function waitForLogs(runtime: RuntimeName, container: string, marker: string): Promise<string> {
  let logs = "";
  for (let i = 0; i < 50 && !logs.includes(marker); i++) {
    logs = (await runCommand(runtime, ["logs", container], { reject: false })).stdout;
    if (!logs.includes(marker)) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return logs;
}

const volumesOf = async (runtime: RuntimeName, pod: string) =>
  (await runCommand(runtime, ["volume", "ls", "-q", "--filter", `label=io.kubernetes.pod.name=${pod}`])).stdout
    .split("\n")
    .filter(Boolean);

// Each case has its own state directory and uniquely named pods: two run at once.
t.jobs = 2;
for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: every volume type as the container sees it; a kept pod's files updated in place; down leaves nothing`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("vol");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const hostDir = join(env.base, "host");
      await mkdir(join(hostDir, "dir"), { recursive: true });
      await writeFile(join(hostDir, "file"), "from-host");

      const up = await env.run(["up", "--json"], manifest(name, hostDir));
      t.equal(up.exitCode, 0, up.stderr);
      t.match(
        up.stderr,
        /spec\.volumes\[4\]\.projected\.sources\[3\]\.serviceAccountToken: not supported by podrun yet: ignored/,
        "no token: a warning",
      );
      const container = `default_${name}_show`;
      const logs = await waitForLogs(runtime, container, "END");
      const modes = Object.fromEntries([...logs.matchAll(/^MODE (\d+) (\S+)$/gm)].map((m) => [m[2]!, m[1]!] as const));
      t.same(
        modes,
        {
          "/cfg": "777",
          "/cfg/app.properties": "644",
          "/cfg/plain": "644",
          "/items/conf": "755",
          "/items/conf/nested/app.ini": "755",
          "/items/plain.txt": "600",
          "/sec/password": "400",
          "/dn/labels": "644",
          "/dn/name": "644",
          "/proj/p1": "440",
          "/proj/pw": "400",
          "/proj/ns": "440",
          "/hd": "755",
          "/hf": "644",
          "/hdc": "755",
          "/hfc": "644",
          "/sub": "777",
          "/ed/sub1": "777",
        },
        "modes as the kubelet sets them: defaultMode, item mode, 0644 unless told",
      );
      const content = (path: string) => new RegExp(`^--- ${path}\\n([\\s\\S]*?)\\n(?=--- |PROJ )`, "m").exec(logs)?.[1];
      t.equal(content("/cfg/app.properties"), "a=1\nb=2\n");
      t.equal(content("/items/conf/nested/app.ini"), "a=1\nb=2\n", "an item at a nested path, a key with a dot");
      t.equal(content("/sec/password"), "line1\nline2\n", "a Secret value with newlines, byte for byte");
      t.equal(content("/dn/labels"), 'app="web"\ntier="back"');
      t.equal(content("/dn/name"), name);
      t.equal(content("/proj/p1"), "hello");
      t.equal(content("/proj/pw"), "line1\nline2\n");
      t.equal(content("/proj/ns"), "default");
      t.equal(content("/hf"), "from-host");
      const one = await waitForLogs(runtime, `default_${name}_one`, "ONE");
      t.match(one, /^MODE 644 \/etc\/one.txt$/m, "a subPath of a configMap key: one file");
      t.match(one, /^ONE hello$/m);
      t.match(one, /^FS tmpfs\nSIZE 4096\nEXEC ok$/m, "medium: Memory: a tmpfs of sizeLimit, where programs run");
      t.match(logs, /^PROJ ns p1 pw $/m, "projected: the three sources, no token file");
      t.match(logs, /^RO cfg$/m, "configMap volumes are read-only");
      t.match(logs, /^RO hf$/m, "readOnly: true on a hostPath");
      t.match(logs, /^WRITE hd$/m);
      t.match(logs, /^SUBPATH shared$/m, "a subPathExpr of an emptyDir is a directory of the same volume");
      t.equal(
        await readFile(join(hostDir, "dir/written"), "utf8"),
        "from-container\n",
        "the hostPath is the host's directory",
      );
      t.ok((await stat(join(hostDir, "made-dir"))).isDirectory(), "DirectoryOrCreate made it");
      t.equal((await stat(join(hostDir, "made-file"))).size, 0, "FileOrCreate made an empty file");

      // The Secret's files on the host: some directory above them shuts out every other user.
      const podDir = join(env.stateDir, "pods", runtime, `default_${name}`);
      const secretFile = join(podDir, "volumes", "sec", "password");
      t.equal((await stat(secretFile)).mode & 0o777, 0o400);
      const guards: string[] = [];
      for (let dir = dirname(secretFile); dir !== env.stateDir; dir = dirname(dir)) {
        if (((await stat(dir)).mode & 0o007) === 0) guards.push(dir);
      }
      t.ok(guards.includes(podDir), `the pod directory is closed to others (${guards.join(", ")})`);
      t.equal((await stat(podDir)).mode & 0o777, 0o700);

      // Re-up with a changed ConfigMap: a container mounting the whole volume is kept and sees the
      // new files in place; one with a subPath of it (which would keep the old file) is recreated.
      const idOf = async (container: string) =>
        (await runCommand(runtime, ["inspect", "--format", "{{.Id}}", container])).stdout.trim();
      const [showId, oneId] = [await idOf(container), await idOf(`default_${name}_one`)];
      const again = await env.run(["up", "--json"], manifest(name, hostDir, "changed"));
      t.equal(again.exitCode, 0, again.stderr);
      t.equal(await idOf(container), showId, "the container mounting the whole volume is kept");
      t.equal(
        (await runCommand(runtime, ["exec", container, "cat", "/cfg/plain"])).stdout,
        "changed",
        "and sees the new content",
      );
      t.not(await idOf(`default_${name}_one`), oneId, "the container with the subPath mount is recreated");
      t.match(await waitForLogs(runtime, `default_${name}_one`, "ONE"), /^ONE changed$/m, "and sees the new content");

      const down = await env.run(["down", name]);
      t.equal(down.exitCode, 0, down.stderr);
      t.notOk(existsSync(podDir), "down removes the pod directory");
      t.same(await volumesOf(runtime, name), [], "and the emptyDir volume");
    },
  );

  t.test(
    `${runtime}: a hostPath type check that fails is the kubelet's FailedMount, refused before anything is made`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = unique("volfail");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const yaml = `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}}
data: {k: v}
---
apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: ${BUSYBOX}
    command: [sleep, "60"]
    volumeMounts: [{name: cfg, mountPath: /cfg}, {name: ed, mountPath: /ed}, {name: dev, mountPath: /dev-null}]
  volumes:
  - {name: cfg, configMap: {name: ${name}}}
  - {name: ed, emptyDir: {}}
  - {name: dev, hostPath: {path: /dev/null, type: Directory}}
`;
      const r = await env.run(["up", "--json"], yaml);
      t.equal(r.exitCode, 2, "refused as the manifest's error");
      const message = `MountVolume.SetUp failed for volume "dev" : hostPath type check failed: /dev/null is not a directory, it's a CharDevice`;
      t.equal(r.stdout, "", "no event: nothing was begun");
      t.match(
        r.stderr,
        `spec.volumes[2].hostPath.path: Invalid value: "/dev/null": ${message} (the kubelet's FailedMount)`,
      );
      t.same(
        (await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${name}`])).stdout.trim(),
        "",
        "no container",
      );
      t.same(await volumesOf(runtime, name), [], "no volume");
      t.notOk(existsSync(join(env.stateDir, "pods", runtime, `default_${name}`)), "no pod directory");
    },
  );

  t.test(
    `${runtime}: down finds a pod directory a killed run left, by name and with --all`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const namespace = unique("ns");
      const leftover = (pod: string) => join(env.stateDir, "pods", runtime, `${namespace}_${pod}`);
      for (const pod of ["a", "b"]) await mkdir(join(leftover(pod), "volumes", "conf"), { recursive: true });
      const byName = await env.run(["down", "-n", namespace, "a"]);
      t.equal(byName.exitCode, 0, byName.stderr);
      t.match(byName.stdout, `pod/a (namespace ${namespace}) deleted`);
      t.notOk(existsSync(leftover("a")));
      const all = await env.run(["down", "--all", "-n", namespace]);
      t.equal(all.exitCode, 0, all.stderr);
      t.match(all.stdout, `pod/b (namespace ${namespace}) deleted`);
      t.notOk(existsSync(leftover("b")));
    },
  );
}
