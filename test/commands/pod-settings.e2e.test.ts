import { randomBytes } from "node:crypto";
import t, { type Test } from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, setupEnginePod } from "../harness/engine-pod.js";

// Pod-level settings (hostAliases, hostname, dnsConfig, shareProcessNamespace) seen from inside an
// app container, on docker and podman: the sandbox carries them, the containers see them.

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;

async function setup(t: Test, runtime: RuntimeName) {
  const env = await setupEnginePod(t, runtime);
  if (!env) return undefined;
  const ids = async (pod: string) =>
    (await runCommand(runtime, ["ps", "-a", "-q", "--no-trunc", "--filter", `label=io.kubernetes.pod.name=${pod}`])).stdout.split("\n").filter(Boolean).sort();
  return { up: env.up, exec: env.exec, ids };
}

const podYaml = (name: string, spec: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 1\n${spec}`;

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: hostAliases, hostname and dnsConfig reach the app containers`, async (t) => {
    const env = await setup(t, runtime);
    if (!env) return;
    const name = unique("settings");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    // The nameserver answers nothing: the test only reads the files, it looks nothing up.
    const spec = `  hostname: shop
  hostAliases:
    - ip: 10.1.2.3
      hostnames: [foo.local, bar.local]
  dnsPolicy: None
  dnsConfig:
    nameservers: [10.9.8.7]
    searches: [ns1.svc.example, example]
    options:
      - name: ndots
        value: "2"
  enableServiceLinks: false
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sleep", "600"]
    - name: other
      image: ${BUSYBOX}
      command: ["sleep", "600"]
`;
    const r = await env.up(name, podYaml(name, spec));
    t.equal(r.exitCode, 0, r.stderr);
    t.notMatch(r.stderr, /Warning/, "every field written is acted on");
    for (const container of ["app", "other"]) {
      const hosts = await env.exec(name, container, ["cat", "/etc/hosts"]);
      for (const host of ["foo.local", "bar.local"]) t.match(hosts, new RegExp(`^10\\.1\\.2\\.3\\s+(?:\\S+\\s+)*${host.replace(".", "\\.")}(?:\\s|$)`, "m"), `${container}: ${host}`);
      t.equal((await env.exec(name, container, ["hostname"])).trim(), "shop", `${container}: hostname`);
      const resolv = await env.exec(name, container, ["cat", "/etc/resolv.conf"]);
      t.match(resolv, /^nameserver 10\.9\.8\.7$/m, `${container}: nameserver`);
      t.equal(resolv.match(/^nameserver /gm)?.length, 1, `${container}: dnsPolicy None: that nameserver alone`);
      t.match(resolv, /^search ns1\.svc\.example example$/m, `${container}: search`);
      t.match(resolv, /^options ndots:2$/m, `${container}: options`);
    }
    // The settings hash the same on every run: `up` again keeps the pod as it is.
    const before = await env.ids(name);
    const again = await env.up(name, podYaml(name, spec));
    t.equal(again.exitCode, 0, again.stderr);
    t.same(await env.ids(name), before, "nothing recreated");
  });

  t.test(`${runtime}: a pod without hostname is named after itself; ClusterFirst written is a Warning`, async (t) => {
    const env = await setup(t, runtime);
    if (!env) return;
    const name = unique("plain");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const spec = `  dnsPolicy: ClusterFirst
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sleep", "600"]
`;
    const r = await env.up(name, podYaml(name, spec));
    t.equal(r.exitCode, 0, r.stderr);
    t.match(r.stderr, "Warning: spec.dnsPolicy: no cluster DNS on this machine: ClusterFirst acts as Default");
    t.equal(r.stderr.match(/Warning/g)?.length, 1, "said once");
    t.equal((await env.exec(name, "app", ["hostname"])).trim(), name);
    const ps = await env.exec(name, "app", ["ps"]);
    t.notMatch(ps, /pause/, "without shareProcessNamespace the container sees only its own processes");
  });

  t.test(`${runtime}: shareProcessNamespace: one container sees another's processes`, async (t) => {
    const env = await setup(t, runtime);
    if (!env) return;
    const name = unique("pid");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const spec = `  shareProcessNamespace: true
  containers:
    - name: sleeper
      image: ${BUSYBOX}
      command: ["sleep", "601"]
    - name: looker
      image: ${BUSYBOX}
      command: ["sleep", "600"]
`;
    const r = await env.up(name, podYaml(name, spec));
    t.equal(r.exitCode, 0, r.stderr);
    const ps = await env.exec(name, "looker", ["ps", "-o", "pid,args"]);
    t.match(ps, /^\s*1 \/pause$/m, "PID 1 is the sandbox's pause, as on a node");
    t.match(ps, /sleep 601/, "the sleeper's process is seen from the looker");
  });
}
