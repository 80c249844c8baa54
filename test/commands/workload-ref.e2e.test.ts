import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { engineBlind, requirePodEngine } from "../harness/engine.js";
import { BUSYBOX, uniqueName } from "../harness/engine-pod.js";

// ps, logs, events and down by workload on docker and podman: a Deployment of two pods sharing a
// claim, and a hostNetwork DaemonSet (no sandbox: its owner is on its container alone), in a
// namespace of the test's own, all through the CLI. Each pod prints its hostname, the pod's name,
// from inside.

function manifest(ns: string, web: string, agent: string, claim: string, job: string): string {
  const template = (name: string, extra: string) => `  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 0
${extra}      containers:
      - name: app
        image: ${BUSYBOX}
        command: [sh, -c, 'echo "hello from $(hostname)"; exec sleep 600']
`;
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${web}, namespace: ${ns}}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${web}}}
${template(web, `      volumes: [{name: data, persistentVolumeClaim: {claimName: ${claim}}}]\n`).replace("        command:", "        volumeMounts: [{name: data, mountPath: /data}]\n        command:")}---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ${agent}, namespace: ${ns}}
spec:
  selector: {matchLabels: {app: ${agent}}}
${template(agent, "      hostNetwork: true\n")}---
apiVersion: batch/v1
kind: Job
metadata: {name: ${job}, namespace: ${ns}}
spec:
${template(job, "      restartPolicy: Never\n")}---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${claim}, namespace: ${ns}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
`;
}

/** A pod's container log, once it printed its line (tried for 10 s). */
async function started(runtime: RuntimeName, container: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if ((await runCommand(runtime, ["logs", container], { reject: false })).stdout.includes("hello")) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function workloadTest(t: Test, runtime: RuntimeName): Promise<void> {
  if (!(await requirePodEngine(t, runtime))) return;
  const ns = uniqueName("wr");
  const web = uniqueName("web");
  const agent = uniqueName("agent");
  const claim = uniqueName("data");
  const job = uniqueName("mig");
  const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-workload-"));
  const stateDir = join(dir, "state");
  const file = join(dir, "app.yaml");
  await writeFile(file, manifest(ns, web, agent, claim, job));
  const pods: string[] = [];
  const cli = (...args: string[]) => runCli([...args, "--runtime", runtime], { env: { PODRUN_STATE_DIR: stateDir } });
  t.teardown(async () => {
    await cli("down", "--all", "-n", ns, "--grace-period", "0");
    for (const pod of pods) await removeManagedContainers(runtime, { "io.kubernetes.pod.name": pod });
    await runCommand(runtime, ["volume", "rm", "-f", `${ns}_${claim}`], { reject: false });
    await rm(dir, { recursive: true, force: true });
  });

  const up = await cli("up", file);
  t.equal(up.exitCode, 0, "up runs the Deployment, the DaemonSet and the Job's first pod");
  const listed = await cli("ps", "-n", ns);
  pods.push(
    ...listed.stdout
      .split("\n")
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split(/\s+/)[0]!),
  );
  const webPods = pods.filter((p) => p.startsWith(`${web}-`)).sort();
  const [agentPod] = pods.filter((p) => p.startsWith(`${agent}-`)) as [string];
  t.equal(webPods.length, 2, "two Deployment pods");
  t.ok(agentPod, "the DaemonSet's");
  const [jobPod] = pods.filter((p) => p.startsWith(`${job}-`)) as [string];
  t.ok(jobPod, "the Job's");
  for (const pod of pods) await started(runtime, `${ns}_${pod}_app`);

  const ps = await cli("ps", "-n", ns, `deploy/${web}`);
  t.equal(ps.exitCode, 0, "ps deploy/NAME");
  t.same(
    ps.stdout
      .split("\n")
      .slice(1, -1)
      .map((line) => line.split(/\s+/).slice(0, 3)),
    webPods.map((p) => [p, "1/1", "Running"]),
    "its two pods, running",
  );
  const wide = await cli("ps", "-n", ns, "-o", "wide");
  t.same(
    wide.stdout
      .split("\n")
      .slice(1, -1)
      .map((line) => [line.split(/\s+/)[0], line.split(/\s+/).at(-1)]),
    [[agentPod, `DaemonSet/${agent}`], [jobPod, `Job/${job}`], ...webPods.map((p) => [p, `Deployment/${web}`])].sort(),
    "-o wide: OWNER, the hostNetwork pod's too",
  );
  const json = await cli("ps", "-n", ns, "--json", `ds/${agent}`);
  const items = (
    JSON.parse(json.stdout) as {
      items: { metadata: { name: string; ownerReferences: { kind: string; name: string }[] } }[];
    }
  ).items;
  t.same(
    items.map((i) => [i.metadata.name, i.metadata.ownerReferences[0]!.kind, i.metadata.ownerReferences[0]!.name]),
    [[agentPod, "DaemonSet", agent]],
    "--json: ownerReferences",
  );

  const logs = await cli("logs", "-n", ns, `deployment/${web}`);
  t.equal(logs.exitCode, 0, "logs deployment/NAME");
  t.same(
    logs.stdout.split("\n").filter(Boolean),
    webPods.map((p) => `[pod/${p}/app] hello from ${p}`),
    "each pod's line, prefixed with its pod: written inside each",
  );
  const agentLogs = await cli("logs", "-n", ns, `daemonsets/${agent}`);
  t.equal(agentLogs.stdout.split("\n")[0]!.startsWith(`hello from `), true, "one pod: no prefix, as logs POD");

  const jobLogs = await cli("logs", "-n", ns, `jobs/${job}`);
  t.equal(jobLogs.stdout, `hello from ${jobPod}\n`, "logs jobs/NAME");
  const jobEvents = await runCli(["events", "-n", ns, `job/${job}`, "--json"], { env: { PODRUN_STATE_DIR: stateDir } });
  const involved = (line: string) =>
    (JSON.parse(line) as { involvedObject: { kind: string; name: string } }).involvedObject;
  const jobObjects = new Set(
    jobEvents.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => `${involved(line).kind}/${involved(line).name}`),
  );
  t.same(
    [...jobObjects].sort(),
    [`Job/${job}`, `Pod/${jobPod}`],
    "events job/NAME: the Job's own (SuccessfulCreate) and its pod's",
  );
  const downJob = await cli("down", "-n", ns, `job/${job}`);
  t.match(downJob.stdout, `pod/${jobPod} (namespace ${ns}) deleted`, "down job/NAME");

  const events = await runCli(["events", "-n", ns, `deploy/${web}`, "--json"], { env: { PODRUN_STATE_DIR: stateDir } });
  const objects = new Set(
    events.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { involvedObject: { name: string } }).involvedObject.name),
  );
  t.same([...objects].sort(), webPods, "events deploy/NAME: its pods' events, not the DaemonSet's");

  const volumes = await cli("ps", "-n", ns, "--volumes");
  t.same(
    volumes.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split(/ {3,}/)),
    [
      ["NAME", "VOLUME", "USED BY"],
      [claim, `${ns}_${claim}`, webPods.join(",")],
    ],
    "ps --volumes: the claim, its volume, the two pods mounting it",
  );

  const down = await cli("down", "-n", ns, `deploy/${web}`);
  t.equal(down.exitCode, 0, "down deploy/NAME");
  t.same(
    down.stdout
      .split("\n")
      .filter((line) => line.includes(" deleted "))
      .map((line) => line.split(" ")[0])
      .sort(),
    webPods.map((p) => `pod/${p}`),
  );
  const left = await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.namespace=${ns}`]);
  t.equal(
    left.stdout.trim().split("\n").filter(Boolean).length,
    1,
    "the DaemonSet's pod alone is left (one container: no sandbox), the Job's went with down job/NAME",
  );
  const gone = await cli("ps", "-n", ns, `deploy/${web}`);
  t.equal(gone.exitCode, 1, "ps of a workload with no pod: exit 1");
  t.equal(gone.stderr, `Error from server (NotFound): deployments.apps "${web}" not found\n`);
  const unknown = await cli("ps", `ingress/${web}`);
  t.equal(unknown.exitCode, 2, "an unknown type: exit 2");

  const downFile = await cli("down", "--volumes", file);
  t.equal(downFile.exitCode, 0, "down --volumes FILE");
  t.match(downFile.stdout, `pod/${agentPod} (namespace ${ns}) deleted`, "the file's DaemonSet's pod");
  t.match(downFile.stdout, `deployment/${web} (namespace ${ns}) not found`, "the Deployment's pods were gone already");
  t.match(downFile.stdout, `persistentvolumeclaim/${claim} (namespace ${ns}) deleted (volume ${ns}_${claim})`);
  const none = await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.namespace=${ns}`]);
  t.equal(none.stdout.trim(), "", "nothing of the namespace left");
}

// The two engines at once: each has its own names, state and namespace.
t.jobs = 2;
for (const runtime of engineBlind("docker")) {
  t.test(`${runtime}: workloads by name in ps, logs, events, down; ps --volumes`, { buffered: true }, (t) =>
    workloadTest(t, runtime),
  );
}
