import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { requireEngine, requireImage, requirePodEngine } from "../harness/engine.js";
import { BUSYBOX, uniqueName } from "../harness/engine-pod.js";

// PersistentVolumeClaims on docker and podman: one engine volume per claim, shared by the two pods
// of one file (one writes, the other reads through a read-only mount and a subPath), kept by
// `down` so that the next `up` finds the data, removed by `down --volumes`; a claim no file
// defines fails `up` with FailedMount and leaves nothing behind.

function manifest(claim: string, writer: string, reader: string): string {
  const pod = (name: string, command: string, mounts: string) => `---
apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 0
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: ${claim}}
  containers:
  - name: c
    image: ${BUSYBOX}
    command: [sh, -c, ${JSON.stringify(command)}]
    volumeMounts:
${mounts}
`;
  return `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${claim}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
${pod(writer, "mkdir -p /data/sub && echo run >> /data/sub/log && exec sleep 600", "    - {name: data, mountPath: /data}")}${pod(
    reader,
    "exec sleep 600",
    "    - {name: data, mountPath: /ro, readOnly: true}\n    - {name: data, mountPath: /sub, subPath: sub}",
  )}`;
}

async function volumeLabels(runtime: RuntimeName, name: string): Promise<Record<string, string> | undefined> {
  const result = await runCommand(runtime, ["volume", "inspect", "--format", "{{json .Labels}}", name], {
    reject: false,
  });
  return result.exitCode === 0 ? (JSON.parse(result.stdout) as Record<string, string>) : undefined;
}

/** The reader's view of the writer's log: through the subPath mount, once the writer wrote this run's line. */
async function readLog(runtime: RuntimeName, reader: string, lines: number): Promise<string> {
  let log = "";
  for (let i = 0; i < 50; i++) {
    log = (await runCommand(runtime, ["exec", `default_${reader}_c`, "cat", "/sub/log"], { reject: false })).stdout;
    if (log.split("\n").filter(Boolean).length >= lines) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return log;
}

async function claimTest(t: Test, runtime: RuntimeName): Promise<void> {
  if (!(await requirePodEngine(t, runtime))) return;
  const claim = uniqueName("pvc");
  const writer = uniqueName("pvcw");
  const reader = uniqueName("pvcr");
  const volume = `default_${claim}`;
  const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-pvc-"));
  const env = { PODRUN_STATE_DIR: join(dir, "state") };
  const file = join(dir, "app.yaml");
  await writeFile(file, manifest(claim, writer, reader));
  t.teardown(async () => {
    for (const pod of [writer, reader]) await removeManagedContainers(runtime, { "io.kubernetes.pod.name": pod });
    await runCommand(runtime, ["volume", "rm", "-f", volume], { reject: false });
    await rm(dir, { recursive: true, force: true });
  });
  const cli = (...args: string[]) => runCli([...args, "--runtime", runtime], { env });

  const up = await cli("up", file);
  t.equal(up.exitCode, 0, "up starts both pods");
  t.match(up.stderr, /Warning: spec\.resources\.requests\.storage: .*no size/, "the size is warned about");
  t.same(
    await volumeLabels(runtime, volume),
    { "io.podrun.managed": "true", "io.kubernetes.pod.namespace": "default", "io.podrun.claim": claim },
    "the claim's volume, with the claim's labels only",
  );
  t.equal(await readLog(runtime, reader, 1), "run", "the other pod sees what the writer wrote, through its subPath");
  const readOnly = await runCommand(runtime, ["exec", `default_${reader}_c`, "touch", "/ro/x"], { reject: false });
  t.not(readOnly.exitCode, 0, "a readOnly mount of the claim cannot be written");

  const down = await cli("down", file);
  t.equal(down.exitCode, 0, "down");
  t.ok(await volumeLabels(runtime, volume), "down keeps the claim's volume");
  const again = await cli("up", file);
  t.equal(again.exitCode, 0, "up again");
  t.equal(await readLog(runtime, reader, 2), "run\nrun", "the data of the first run is still there");

  const gone = await cli("down", "--volumes", file);
  t.equal(gone.exitCode, 0, "down --volumes");
  t.match(gone.stdout, `persistentvolumeclaim/${claim} deleted (volume ${volume})`);
  t.equal(await volumeLabels(runtime, volume), undefined, "down --volumes removes it");
}

async function missingClaimTest(t: Test, runtime: RuntimeName): Promise<void> {
  if (!(await requireEngine(t, runtime)) || !(await requireImage(t, runtime, BUSYBOX))) return;
  const pod = uniqueName("pvcm");
  const claim = uniqueName("nope");
  const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-pvc-"));
  t.teardown(async () => {
    await removeManagedContainers(runtime, { "io.kubernetes.pod.name": pod });
    await runCommand(runtime, ["volume", "rm", "-f", `default_${claim}`], { reject: false });
    await rm(dir, { recursive: true, force: true });
  });
  const file = join(dir, "pod.yaml");
  const text = manifest(claim, pod, uniqueName("unused")).split("---\n")[1]!;
  await writeFile(file, text);
  const up = await runCli(["up", "--runtime", runtime, file], { env: { PODRUN_STATE_DIR: join(dir, "state") } });
  t.equal(up.exitCode, 2, "refused before anything is made, as the manifest's error");
  t.match(up.stderr, `${file}:`, "the line names the file");
  t.match(
    up.stderr,
    `spec.volumes[0].persistentVolumeClaim.claimName: Not found: "${claim}": no PersistentVolumeClaim "${claim}" in namespace "default" in the files read (the kubelet's FailedMount)`,
  );
  t.notMatch(up.stderr, "Error: FailedMount", "no pod was begun");
  const left = await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${pod}`]);
  t.equal(left.stdout.trim(), "", "no container left");
  t.equal(await volumeLabels(runtime, `default_${claim}`), undefined, "no volume made");
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: a claim's volume is shared, kept by down, removed by down --volumes`, (t) =>
    claimTest(t, runtime),
  );
  t.test(`${runtime}: a claim no manifest defines fails up`, (t) => missingClaimTest(t, runtime));
}
