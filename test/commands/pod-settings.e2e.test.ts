import { readFileSync } from "node:fs";
import { readlink } from "node:fs/promises";
import { hostname as hostName } from "node:os";
import t, { type Test } from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, setupEnginePod, uniqueName, testPodHeader } from "../harness/engine-pod.js";

// Pod-level settings seen from inside the containers, on docker and podman: /etc/hosts as the
// kubelet writes it (hostname, subdomain, hostAliases; a hostNetwork pod's too, with hostPID and
// hostIPC: the host's namespaces are the test process's own), resolv.conf with
// dnsConfig merged as the kubelet merges it, the hostname, shareProcessNamespace. Settings that
// cannot disturb one another share a pod (dnsPolicy Default with the hosts file, None with
// shareProcessNamespace): each pod brought up costs seconds of engine time.

async function setup(t: Test, runtime: RuntimeName) {
  const env = await setupEnginePod(t, runtime);
  if (!env) return undefined;
  const ids = async (pod: string) =>
    (
      await runCommand(runtime, ["ps", "-a", "-q", "--no-trunc", "--filter", `label=io.kubernetes.pod.name=${pod}`])
    ).stdout
      .split("\n")
      .filter(Boolean)
      .sort();
  // The pod's address as the container's interface has it, not as /etc/hosts says.
  const ipOf = async (pod: string, container: string) =>
    /\binet (\d+\.\d+\.\d+\.\d+)\//.exec(
      await env.exec(pod, container, ["ip", "-4", "-o", "addr", "show", "dev", "eth0"]),
    )?.[1];
  // The file as it is, its last line break included (the command's output loses its own).
  const cat = async (pod: string, container: string, path: string) =>
    (await env.exec(pod, container, ["sh", "-c", `cat ${path}; echo .`])).replace(/\.$/, "");
  const logsOf = async (pod: string, container: string) =>
    `${(await runCommand(runtime, ["logs", `default_${pod}_${container}`])).stdout}\n`;
  return { up: env.up, exec: env.exec, cat, ids, ipOf, logsOf };
}

const podYaml = (name: string, spec: string) => `${testPodHeader(name)}${spec}`;

const LOCALHOST =
  "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n";

// The host's resolv.conf as the kubelet parses it: every nameserver, the last search and options lines.
/** Where aardvark-dns answers on podman's cluster network: its gateway. */
async function podrunNetworkGateway(): Promise<string> {
  const inspected = await runCommand("podman", [
    "network",
    "inspect",
    "podrun",
    "--format",
    "{{range .Subnets}}{{.Gateway}}{{end}}",
  ]);
  return inspected.stdout.trim();
}

function hostResolvConf(): { servers: string[]; searches: string[]; options: string[] } {
  const lines = readFileSync("/etc/resolv.conf", "utf8")
    .split("\n")
    .map((line) => line.trim().split(/\s+/));
  const last = (keyword: string) =>
    lines
      .filter(([word]) => word === keyword)
      .pop()
      ?.slice(1) ?? [];
  return {
    servers: lines.filter(([word, value]) => word === "nameserver" && value).map(([, value]) => value!),
    searches: last("search").map((s) => s.replace(/\.$/, "")),
    options: last("options"),
  };
}

// Each case has its own state directory and uniquely named pod (setupEnginePod): two run at once.
t.jobs = 2;
for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: hostname, subdomain and hostAliases: /etc/hosts as the kubelet writes it, in every container; dnsConfig under Default: merged into the host's resolv.conf`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = uniqueName("hosts");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const host = hostResolvConf();
      // The host's first nameserver again: written once. ndots replaces the host's own, if it has one.
      const spec = `  hostname: shop
  subdomain: sub
  hostAliases:
    - ip: 10.1.2.3
      hostnames: [foo.local, bar.local]
    - ip: 10.1.2.4
      hostnames: [baz.local]
  enableServiceLinks: false
  dnsPolicy: Default
  dnsConfig:
    nameservers: [${[...host.servers.slice(0, 1), "10.9.8.7"].join(", ")}]
    searches: [ns1.svc.example]
    options:
      - name: ndots
        value: "2"
      - name: edns0
  initContainers:
    - name: init
      image: ${BUSYBOX}
      command: ["cat", "/etc/hosts"]
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
      t.notMatch(r.stderr, /Warning/, "every field written is acted on, subdomain and dnsConfig included");
      const ip = await env.ipOf(name, "app");
      t.ok(ip, "the pod has an address");
      const expected = `# Kubernetes-managed hosts file.\n${LOCALHOST}${ip}\tshop.sub.default.svc.cluster.local\tshop\n\n# Entries added by HostAliases.\n10.1.2.3\tfoo.local\tbar.local\n10.1.2.4\tbaz.local\n`;
      for (const container of ["app", "other"]) {
        t.equal(await env.cat(name, container, "/etc/hosts"), expected, `${container}: /etc/hosts`);
        t.equal((await env.exec(name, container, ["hostname"])).trim(), "shop", `${container}: hostname`);
        t.equal(
          (await env.exec(name, container, ["hostname", "-f"])).trim(),
          "shop.sub.default.svc.cluster.local",
          `${container}: the FQDN resolves through /etc/hosts`,
        );
      }
      t.equal(
        await env.logsOf(name, "init"),
        expected,
        "the init container saw the same file, the pod's IP already in it",
      );
      const servers = [...new Set([...host.servers, "10.9.8.7"])];
      const searches = [...new Set([...host.searches, "ns1.svc.example"])];
      const options = new Map(host.options.map((option) => [option.split(":")[0]!, option] as const));
      options.set("ndots", "ndots:2").set("edns0", "edns0");
      const resolv = await env.cat(name, "app", "/etc/resolv.conf");
      t.same(
        resolv.match(/^nameserver .*$/gm),
        servers.slice(0, 3).map((server) => `nameserver ${server}`),
        "the host's nameservers, then the pod's, once each",
      );
      t.match(
        resolv,
        new RegExp(`^search ${searches.join(" ").replace(/\./g, "\\.")}$`, "m"),
        "the host's search list, then the pod's",
      );
      t.same(
        resolv
          .match(/^options (.*)$/m)?.[1]
          ?.split(" ")
          .sort(),
        [...options.values()].sort(),
        "the host's options, the pod's over them",
      );
      // The settings hash the same on every run: `up` again keeps the pod, and its file.
      const before = await env.ids(name);
      const again = await env.up(name, podYaml(name, spec));
      t.equal(again.exitCode, 0, again.stderr);
      t.same(await env.ids(name), before, "nothing recreated");
      t.equal(await env.cat(name, "app", "/etc/hosts"), expected, "the kept pod's file is unchanged");
    },
  );

  t.test(
    `${runtime}: fields whose feature gate is off in v1.36 are dropped with a Warning naming the gate; the pod runs`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = uniqueName("gated");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const spec = `  schedulingGroup: {podGroupName: g}\n  containers:\n    - name: app\n      image: ${BUSYBOX}\n      command: ["sleep", "600"]\n      lifecycle: {stopSignal: SIGUSR1}\n`;
      const r = await env.up(name, podYaml(name, spec));
      t.equal(r.exitCode, 0, r.stderr);
      for (const [field, gate] of [
        ["spec.schedulingGroup", "GenericWorkload (alpha)"],
        ["spec.containers[0].lifecycle.stopSignal", "ContainerStopSignals (alpha)"],
      ])
        t.match(
          r.stderr,
          `Warning: ${field}: dropped, as a v1.36 API server drops it: its feature gate ${gate} is off by default`,
        );
      const signal = await runCommand(runtime, ["inspect", "-f", "{{.Config.StopSignal}}", `default_${name}_app`]);
      t.notMatch(signal.stdout, "SIGUSR1", "the container does not get the dropped stop signal");
      t.equal((await env.exec(name, "app", ["echo", "up"])).trim(), "up");
    },
  );

  t.test(
    `${runtime}: hostnameOverride: the hostname the containers see, alone in /etc/hosts (no domain)`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = uniqueName("override");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const spec = `  hostname: shop\n  subdomain: sub\n  hostnameOverride: my-app.example.internal\n  containers:\n    - name: app\n      image: ${BUSYBOX}\n      command: ["sleep", "600"]\n`;
      const r = await env.up(name, podYaml(name, spec));
      t.equal(r.exitCode, 0, r.stderr);
      t.notMatch(r.stderr, /Warning/, "acted on, not warned of");
      t.equal((await env.exec(name, "app", ["hostname"])).trim(), "my-app.example.internal");
      const ip = await env.ipOf(name, "app");
      t.equal(
        await env.cat(name, "app", "/etc/hosts"),
        `# Kubernetes-managed hosts file.\n${LOCALHOST}${ip}\tmy-app.example.internal\n`,
      );
    },
  );

  t.test(
    `${runtime}: a hostNetwork pod: the host's /etc/hosts with the hostAliases, dnsConfig merged; hostPID and hostIPC; up again changes nothing`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = uniqueName("hostnet");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const spec = `  hostNetwork: true
  hostPID: true
  hostIPC: true
  hostAliases:
    - ip: 10.1.2.3
      hostnames: [foo.local, bar.local]
  dnsConfig:
    searches: [ns1.svc.example]
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sleep", "600"]
`;
      const r = await env.up(name, podYaml(name, spec));
      t.equal(r.exitCode, 0, r.stderr);
      t.notMatch(r.stderr, /Warning/, "hostAliases and dnsConfig are acted on for a hostNetwork pod too");
      const hosts = `# Kubernetes-managed hosts file (host network).\n${readFileSync("/etc/hosts", "utf8")}\n# Entries added by HostAliases.\n10.1.2.3\tfoo.local\tbar.local\n`;
      t.equal(await env.cat(name, "app", "/etc/hosts"), hosts);
      t.equal((await env.exec(name, "app", ["hostname"])).trim(), hostName(), "the host's name");
      const host = hostResolvConf();
      const resolv = await env.cat(name, "app", "/etc/resolv.conf");
      t.match(
        resolv,
        new RegExp(
          `^search ${[...new Set([...host.searches, "ns1.svc.example"])].join(" ").replace(/\./g, "\\.")}$`,
          "m",
        ),
      );
      t.same(
        resolv.match(/^nameserver .*$/gm) ?? [],
        host.servers.slice(0, 3).map((server) => `nameserver ${server}`),
        "the host's nameservers",
      );
      // No sandbox to join: the container itself is put in the host's PID and IPC namespaces.
      t.equal(await env.exec(name, "app", ["readlink", "/proc/self/ns/pid"]), await readlink("/proc/self/ns/pid"));
      t.equal(await env.exec(name, "app", ["readlink", "/proc/self/ns/ipc"]), await readlink("/proc/self/ns/ipc"));
      const again = await env.up(name, podYaml(name, spec));
      t.equal(again.exitCode, 0, again.stderr);
      t.match(again.stdout + again.stderr, /1 container unchanged/);
    },
  );

  t.test(
    `${runtime}: a pod without these fields: named after itself, the kubelet's /etc/hosts; ClusterFirst: the engine's DNS on the cluster network, the kubelet's search list, ndots:5`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = uniqueName("plain");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const spec = `  dnsPolicy: ClusterFirst
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sleep", "600"]
`;
      const r = await env.up(name, podYaml(name, spec));
      t.equal(r.exitCode, 0, r.stderr);
      t.notMatch(r.stderr, /Warning/, "ClusterFirst is made as written: no Warning");
      t.equal((await env.exec(name, "app", ["hostname"])).trim(), name);
      t.equal(
        await env.cat(name, "app", "/etc/hosts"),
        `# Kubernetes-managed hosts file.\n${LOCALHOST}${await env.ipOf(name, "app")}\t${name}\n`,
      );
      const resolv = await env.cat(name, "app", "/etc/resolv.conf");
      const dns = runtime === "docker" ? "127.0.0.11" : await podrunNetworkGateway();
      const lines = resolv.split("\n").filter((line) => line && !line.startsWith("#"));
      t.same(
        lines.filter((l) => l.startsWith("nameserver")),
        [`nameserver ${dns}`],
        "the engine's DNS, alone",
      );
      t.same(
        lines
          .find((l) => l.startsWith("search"))
          ?.split(/\s+/)
          .slice(1),
        ["default.svc.cluster.local", "svc.cluster.local", "cluster.local", ...hostResolvConf().searches],
        "the cluster's domains, then the host's",
      );
      t.same(
        lines.filter((l) => l.startsWith("options")),
        ["options ndots:5"],
        "ndots:5 alone",
      );
      const ps = await env.exec(name, "app", ["ps"]);
      t.notMatch(ps, /pause/, "without shareProcessNamespace the container sees only its own processes");
    },
  );

  t.test(
    `${runtime}: shareProcessNamespace: one container sees another's processes; dnsPolicy None: dnsConfig alone`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = uniqueName("pid");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      // The nameserver answers nothing: the test only reads the file, it looks nothing up.
      const spec = `  shareProcessNamespace: true
  dnsPolicy: None
  dnsConfig:
    nameservers: [10.9.8.7]
    searches: [ns1.svc.example, example]
    options:
      - name: ndots
        value: "2"
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
      t.notMatch(r.stderr, /Warning/);
      for (const container of ["sleeper", "looker"]) {
        t.equal(
          await env.cat(name, container, "/etc/resolv.conf"),
          "search ns1.svc.example example\nnameserver 10.9.8.7\noptions ndots:2\n",
          `${container}: nothing of the host's`,
        );
      }
    },
  );
}
