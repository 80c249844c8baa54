import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli, type CliResult } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { requirePodEngine } from "../harness/engine.js";
import { BUSYBOX, uniqueName } from "../harness/engine-pod.js";

// Deployments and StatefulSets run by `podrun up` on a real engine (workloads.{docker,podman}.e2e):
// the cases are shared, each engine's file runs them, so tap runs the two engines side by side.
// Every case works in a namespace of its own: `ps -n` sees only its pods, and cleanup by
// namespace cannot touch another test's.

interface Env {
  runtime: RuntimeName;
  namespace: string;
  dir: string;
  podrun: (...args: string[]) => Promise<CliResult>;
  /** `podrun events -n <namespace> --json` (events reads the log, no engine). */
  events: () => Promise<CliResult>;
  /** The IDs of the namespace's containers of a workload (`Deployment/web`), sorted. */
  idsOf: (owner: string) => Promise<string[]>;
  pods: () => Promise<{ name: string; podIP?: string; ready: boolean }[]>;
}

async function setup(t: Test, runtime: RuntimeName): Promise<Env | undefined> {
  if (!(await requirePodEngine(t, runtime))) return undefined;
  const namespace = uniqueName("wl");
  const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-workloads-"));
  const env = { PODRUN_STATE_DIR: join(dir, "state") };
  t.teardown(async () => {
    await removeManagedContainers(runtime, { "io.kubernetes.pod.namespace": namespace });
    await removeManagedContainers(runtime, { "io.podrun.service.namespace": namespace });
    const volumes = (await runCommand(runtime, ["volume", "ls", "-q"])).stdout
      .split("\n")
      .filter((v) => v.startsWith(`${namespace}_`));
    if (volumes.length > 0) await runCommand(runtime, ["volume", "rm", "-f", ...volumes], { reject: false });
    await rm(dir, { recursive: true, force: true });
  });
  const podrun = (...args: string[]) => runCli([...args, "--runtime", runtime], { env });
  return {
    runtime,
    namespace,
    dir,
    podrun,
    events: () => runCli(["events", "-n", namespace, "--json"], { env }),
    idsOf: async (owner) => {
      const listed = await runCommand(runtime, [
        "ps",
        "-q",
        "--no-trunc",
        "--filter",
        `label=io.podrun.owner=${owner}`,
        "--filter",
        `label=io.kubernetes.pod.namespace=${namespace}`,
      ]);
      return listed.stdout.split("\n").filter(Boolean).sort();
    },
    pods: async () => {
      const ps = await podrun("ps", "-n", namespace, "--json");
      const list = JSON.parse(ps.stdout) as {
        items: { metadata: { name: string }; status: { podIP?: string; containerStatuses?: { ready: boolean }[] } }[];
      };
      return list.items.map((pod) => ({
        name: pod.metadata.name,
        ...(pod.status.podIP ? { podIP: pod.status.podIP } : {}),
        ready: (pod.status.containerStatuses ?? []).every((c) => c.ready),
      }));
    },
  };
}

/** The body of http://ip:port/, tried for 10 s (the server may still be starting). */
async function fetchFrom(ip: string, port: number): Promise<string> {
  let last: unknown;
  for (let i = 0; i < 50; i++) {
    try {
      return await new Promise<string>((resolve, reject) => {
        const request = get({ host: ip, port, path: "/", timeout: 2000 }, (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (body += chunk));
          response.on("end", () => resolve(body));
        });
        request.on("timeout", () => request.destroy(new Error("timed out")));
        request.on("error", reject);
      });
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw last;
}

const deployment = (namespace: string, greeting: string, extra = "") => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${namespace}}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: httpd
        image: ${BUSYBOX}
        env:
        - {name: GREETING, value: ${greeting}}
        - name: FROM_CONFIG
          valueFrom: {configMapKeyRef: {name: web-config, key: colour}}
        command: [sh, -c, 'mkdir -p /www && echo "$GREETING $FROM_CONFIG $(hostname)" > /www/index.html && exec httpd -f -p 8080 -h /www']
        ports:
        - containerPort: 8080${extra}
`;

/**
 * A directory with a Deployment of 2 replicas, a Service and a ConfigMap: the Service is warned
 * about, both pods run and answer on their own pod IPs; an unchanged re-up keeps their
 * containers; a template change replaces both pods with pods of a new template hash.
 */
export async function deploymentCase(t: Test, runtime: RuntimeName): Promise<void> {
  const env = await setup(t, runtime);
  if (!env) return;
  const { namespace } = env;
  const app = join(env.dir, "app");
  await mkdir(app);
  await writeFile(join(app, "deployment.yaml"), deployment(namespace, "hello"));
  await writeFile(
    join(app, "service.yaml"),
    `apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: ${namespace}}\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n`,
  );
  await writeFile(
    join(app, "agent.yaml"),
    `apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: ${namespace}}\nspec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec:\n      terminationGracePeriodSeconds: 0\n      containers: [{name: agent, image: ${BUSYBOX}, command: [sleep, "600"]}]\n`,
  );
  await writeFile(
    join(app, "config.yaml"),
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config, namespace: ${namespace}}\ndata: {colour: blue}\n`,
  );

  const up = await env.podrun("up", "--wait", app);
  t.equal(up.exitCode, 0, up.stderr);
  t.match(up.stdout, /service\/web created \(ClusterIP /, "the Service is made, before the pods");
  const all = await env.pods();
  const agents = all.filter((pod) => pod.name.startsWith("agent-"));
  t.equal(agents.length, 1, "the DaemonSet: one pod, on the one node");
  t.match(agents[0]?.name, /^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  const pods = all.filter((pod) => pod.name.startsWith("web-"));
  t.equal(pods.length, 2, "two pods");
  const [first, second] = pods;
  t.match(
    first?.name,
    /^web-[bcdfghjklmnpqrstvwxz2456789]{1,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/,
    "named <deployment>-<template hash>-<5 characters>",
  );
  t.equal(first?.name.split("-")[1], second?.name.split("-")[1], "one template hash");
  t.ok(
    pods.every((pod) => pod.ready),
    "both ready",
  );
  t.not(first?.podIP, second?.podIP, "each pod its own IP");
  for (const pod of pods)
    t.equal((await fetchFrom(pod.podIP!, 8080)).trim(), `hello blue ${pod.name}`, `${pod.name} answers on its pod IP`);
  const ids = await env.idsOf("Deployment/web");
  t.equal(ids.length, 4, "two sandboxes and two app containers, all labelled with their owner");

  const again = await env.podrun("up", app);
  t.equal(again.exitCode, 0, again.stderr);
  t.same(await env.idsOf("Deployment/web"), ids, "an unchanged re-up keeps every container");

  await writeFile(join(app, "deployment.yaml"), deployment(namespace, "bonjour"));
  const changed = await env.podrun("up", "--wait", app);
  t.equal(changed.exitCode, 0, changed.stderr);
  for (const pod of pods) t.match(changed.stdout, `pod/${pod.name} deleted (deployment/web no longer has it)`);
  const replaced = (await env.pods()).filter((pod) => pod.name.startsWith("web-"));
  t.equal(replaced.length, 2, "still two pods");
  t.ok(
    replaced.every((pod) => !pods.some((old) => old.name === pod.name)),
    "both replaced",
  );
  t.not(replaced[0]?.name.split("-")[1], first?.name.split("-")[1], "a new template hash");
  for (const pod of replaced)
    t.equal(
      (await fetchFrom(pod.podIP!, 8080)).trim(),
      `bonjour blue ${pod.name}`,
      `${pod.name} runs the new template`,
    );
  const newIds = await env.idsOf("Deployment/web");
  t.equal(newIds.length, 4);
  t.ok(
    newIds.every((id) => !ids.includes(id)),
    "no container of the old pods is left",
  );

  await writeFile(join(app, "deployment.yaml"), deployment(namespace, "bonjour").replace("replicas: 2", "replicas: 0"));
  const scaled = await env.podrun("up", app);
  t.equal(scaled.exitCode, 0, scaled.stderr);
  t.same(
    (await env.pods()).map((pod) => pod.name),
    agents.map((pod) => pod.name),
    "replicas: 0 removes every pod of the Deployment",
  );
}

/** replicas: 2 with a hostPort on one machine: the second pod stays Pending (FailedScheduling); --wait fails. */
export async function hostPortCase(t: Test, runtime: RuntimeName): Promise<void> {
  const env = await setup(t, runtime);
  if (!env) return;
  const file = join(env.dir, "web.yaml");
  const port = 20000 + Math.floor(Math.random() * 20000);
  await writeFile(
    join(env.dir, "config.yaml"),
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config, namespace: ${env.namespace}}\ndata: {colour: red}\n`,
  );
  await writeFile(file, deployment(env.namespace, "hi", `\n          hostPort: ${port}`));
  const up = await env.podrun("up", "--wait", "--timeout", "60s", file, join(env.dir, "config.yaml"));
  t.equal(up.exitCode, 1, "--wait: a pod that cannot be scheduled fails the run");
  const pending =
    /pod\/(web-\S+) Pending: hostPort 0\.0\.0\.0:(\d+)\/TCP is taken by an earlier pod of the set \(FailedScheduling\)/.exec(
      up.stderr,
    );
  t.ok(pending, up.stderr);
  t.equal(Number(pending?.[2]), port);
  t.match(
    up.stdout,
    /Warning\s+FailedScheduling\s+pod\/web-\S+\s+0\/1 nodes are available: 1 node\(s\) didn't have free ports for the requested pod ports\./,
  );
  const pods = await env.pods();
  t.notOk(
    pods.some((pod) => pod.name === pending?.[1]),
    "the Pending pod has no container",
  );
  t.equal(pods.length, 1, "the first replica runs");
  t.equal((await fetchFrom("127.0.0.1", port)).trim(), `hi red ${pods[0]?.name}`, "and holds the host port");
  const events = await env.events();
  t.match(events.stdout, /"reason": ?"FailedScheduling"/, "the event is in the log");
}

const statefulSet = (namespace: string) => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: ${namespace}}
spec:
  serviceName: db
  replicas: 2
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      terminationGracePeriodSeconds: 0
      containers:
      - name: db
        image: ${BUSYBOX}
        command: [sh, -c, '[ -f /data/first ] || echo "$(hostname) $RANDOM$RANDOM" > /data/first; exec sleep 600']
        volumeMounts:
        - {name: data, mountPath: /data}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`;

/**
 * A StatefulSet of 2 with volumeClaimTemplates: db-0 is Ready before db-1 is created; each pod its
 * own claim volume (`<template>-<set>-<i>`), whose data outlives down and up.
 */
export async function statefulSetCase(t: Test, runtime: RuntimeName): Promise<void> {
  const env = await setup(t, runtime);
  if (!env) return;
  const { namespace } = env;
  const file = join(env.dir, "db.yaml");
  await writeFile(file, statefulSet(namespace));
  const up = await env.podrun("up", "--wait", file);
  t.equal(up.exitCode, 0, up.stderr);
  const at = (text: string) => up.stdout.indexOf(text);
  t.ok(
    at("pod/db-0: ready") >= 0 && at("pod/db-0: ready") < at("pod/db-1[db]  Created"),
    "db-1 is created once db-0 is ready",
  );
  const read = async (pod: string) =>
    (await runCommand(runtime, ["exec", `${namespace}_${pod}_db`, "cat", "/data/first"])).stdout.trim();
  const zero = await read("db-0");
  t.match(zero, /^db-0 \d+$/, "db-0 wrote to its claim, with its stable hostname");
  t.match(await read("db-1"), /^db-1 /, "db-1 has a claim of its own");
  const volumes = (await runCommand(runtime, ["volume", "ls", "-q"])).stdout
    .split("\n")
    .filter((v) => v.startsWith(`${namespace}_`))
    .sort();
  t.same(
    volumes,
    [`${namespace}_data-db-0`, `${namespace}_data-db-1`],
    "one volume per claim, named as the controller names claims",
  );

  const down = await env.podrun("down", "-n", namespace, "db-0", "db-1");
  t.equal(down.exitCode, 0, down.stderr);
  t.same(await env.pods(), [], "down removed both pods");
  const again = await env.podrun("up", "--wait", file);
  t.equal(again.exitCode, 0, again.stderr);
  t.equal(await read("db-0"), zero, "what db-0 wrote is still there after down and up");
}

/** A ReplicaSet of 2: pods `<name>-<5 characters>`, kept by an unchanged re-up, removed by `down rs/NAME`. */
export async function replicaSetCase(t: Test, runtime: RuntimeName): Promise<void> {
  const env = await setup(t, runtime);
  if (!env) return;
  const file = join(env.dir, "cache.yaml");
  await writeFile(
    file,
    `apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: cache, namespace: ${env.namespace}}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: cache}}\n  template:\n    metadata: {labels: {app: cache}}\n    spec:\n      terminationGracePeriodSeconds: 0\n      containers: [{name: cache, image: ${BUSYBOX}, command: [sleep, "600"]}]\n`,
  );
  const up = await env.podrun("up", "--wait", file);
  t.equal(up.exitCode, 0, up.stderr);
  const pods = await env.pods();
  t.equal(pods.length, 2);
  for (const pod of pods)
    t.match(pod.name, /^cache-[bcdfghjklmnpqrstvwxz2456789]{5}$/, "named <replicaset>-<5 characters>");
  const ids = await env.idsOf("ReplicaSet/cache");
  t.equal(ids.length, 4, "two sandboxes and two containers, labelled with their owner");
  const again = await env.podrun("up", file);
  t.equal(again.exitCode, 0, again.stderr);
  t.same(await env.idsOf("ReplicaSet/cache"), ids, "an unchanged re-up keeps every container");
  const down = await env.podrun("down", "-n", env.namespace, "rs/cache");
  t.equal(down.exitCode, 0, down.stderr);
  t.same(await env.pods(), [], "down rs/cache removed both pods");
}
