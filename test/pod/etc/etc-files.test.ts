import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1.js";
import t, { type Test } from "tap";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import {
  completeHostsFile,
  planPodEtcFiles,
  preparePodEtcFiles,
  withEtcFileMounts,
} from "../../../lib/pod/etc/etc-files.js";
import type { PodIdentity } from "../../../lib/pod/identity.js";
import type { ContainerSpec, VolumeMount } from "../../../lib/runtime/types.js";
import { buildCreateArgs } from "../../../lib/runtime/create-args.js";
import { DIALECTS } from "../../../lib/runtime/dialects.js";
import type { EventRecorder } from "../../../lib/events/recorder.js";
import type { KubeEvent } from "../../../lib/events/types.js";

const identity: PodIdentity = { name: "web", namespace: "ci", uid: "u-1" };
const pod = (spec: Partial<Pod["spec"]>): Pod =>
  defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "ci" },
    spec: { containers: [{ name: "app", image: "busybox:1.36" }], ...spec },
  });
const LOCALHOST =
  "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n";

async function stateDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-etc-files-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const recorder = () => {
  const events: string[] = [];
  const event: EventRecorder["event"] = (_object, type, reason, message) => {
    events.push(`${type} ${reason} ${message}`);
    return {} as KubeEvent;
  };
  return { events, recorder: { event } };
};

t.test("the plan in the pod hash: only what the pod sets", async (t) => {
  t.equal(planPodEtcFiles(pod({}).spec!, "ci"), undefined, "a plain pod hashes as before");
  t.equal(planPodEtcFiles(pod({ hostAliases: [], dnsConfig: {}, hostname: "shop" }).spec!, "ci"), undefined);
  t.same(
    planPodEtcFiles(pod({ subdomain: "sub", hostAliases: [{ ip: "10.1.2.3", hostnames: ["foo"] }] }).spec!, "ci"),
    {
      hostAliases: [{ ip: "10.1.2.3", hostnames: ["foo"] }],
      hostDomain: "sub.ci.svc.cluster.local",
    },
  );
  t.equal(
    planPodEtcFiles(pod({ subdomain: "sub", hostNetwork: true }).spec!, "ci"),
    undefined,
    "a hostNetwork pod's file has no line of its own",
  );
  t.same(planPodEtcFiles(pod({ dnsPolicy: "None", dnsConfig: { nameservers: ["10.9.8.7"] } }).spec!, "ci"), {
    dns: { policy: "None", nameservers: ["10.9.8.7"] },
  });
});

t.test("mounted at /etc/hosts and /etc/resolv.conf, unless the container mounts a volume there", async (t) => {
  const files = { hosts: "/state/etc-hosts", resolv: "/state/resolv.conf" };
  const hosts: VolumeMount = {
    volume: "k8s-managed-etc-hosts",
    target: "/etc/hosts",
    readOnly: false,
    source: "/state/etc-hosts",
  };
  const resolv: VolumeMount = {
    volume: "resolv-conf",
    target: "/etc/resolv.conf",
    readOnly: false,
    source: "/state/resolv.conf",
  };
  t.same(withEtcFileMounts(undefined, { hosts: files.hosts }), [hosts]);
  t.same(withEtcFileMounts(undefined, files), [hosts, resolv]);
  const data: VolumeMount = { volume: "ci_web_data", target: "/data", readOnly: false };
  t.same(withEtcFileMounts([data], files), [data, hosts, resolv], "after the container's own");
  const own: VolumeMount = {
    volume: "cfg",
    target: "/etc/hosts",
    readOnly: true,
    bind: { from: "files" },
    source: "/x",
  };
  t.same(withEtcFileMounts([own], files), [own, resolv], "the container's own /etc/hosts wins, as on a node");
  const ownResolv: VolumeMount = { ...own, target: "/etc/resolv.conf" };
  t.same(withEtcFileMounts([own, ownResolv], files), [own, ownResolv]);
});

t.test(
  "a new pod: the hosts file without the pod's line, then with it once the IP is known; resolv.conf only for a DNS of its own",
  async (t) => {
    const dir = await stateDir(t);
    const { recorder: rec } = recorder();
    const p = pod({
      hostname: "shop",
      subdomain: "sub",
      hostAliases: [{ ip: "10.1.2.3", hostnames: ["foo.local", "bar.local"] }],
    });
    const files = await preparePodEtcFiles(rec, {
      pod: p,
      identity,
      stateDir: dir,
      engine: "docker",
      kept: false,
      dryRun: false,
    });
    t.same(files, { hosts: join(dir, "pods", "docker", "ci_web", "etc-hosts") });
    const aliases = "\n# Entries added by HostAliases.\n10.1.2.3\tfoo.local\tbar.local\n";
    t.equal(await readFile(files.hosts, "utf8"), `# Kubernetes-managed hosts file.\n${LOCALHOST}${aliases}`);
    t.equal((await stat(files.hosts)).mode & 0o777, 0o644);
    const before = (await stat(files.hosts)).ino;
    await completeHostsFile(files, p, identity, "172.17.0.5");
    t.equal(
      await readFile(files.hosts, "utf8"),
      `# Kubernetes-managed hosts file.\n${LOCALHOST}172.17.0.5\tshop.sub.ci.svc.cluster.local\tshop\n${aliases}`,
    );
    t.equal(
      (await stat(files.hosts)).ino,
      before,
      "written in place: a running container's bind mount holds the inode",
    );
    // A kept pod keeps its line until the IP is asked again, and its resolv.conf as it was made.
    const kept = await preparePodEtcFiles(rec, {
      pod: p,
      identity,
      stateDir: dir,
      engine: "docker",
      kept: true,
      dryRun: false,
    });
    t.match(await readFile(kept.hosts, "utf8"), /172\.17\.0\.5\tshop/);
  },
);

t.test(
  "dnsConfig: merged into the host's resolv.conf under Default, alone under None; cuts are DNSConfigForming warnings",
  async (t) => {
    const dir = await stateDir(t);
    const { recorder: rec, events } = recorder();
    const none = pod({
      dnsPolicy: "None",
      dnsConfig: {
        nameservers: ["10.9.8.7"],
        searches: ["ns1.svc.example", "example"],
        options: [{ name: "ndots", value: "2" }],
      },
    });
    const files = await preparePodEtcFiles(rec, {
      pod: none,
      identity,
      stateDir: dir,
      engine: "podman",
      kept: false,
      dryRun: false,
    });
    t.equal(files.resolv, join(dir, "pods", "podman", "ci_web", "resolv.conf"));
    t.equal(
      await readFile(files.resolv!, "utf8"),
      "search ns1.svc.example example\nnameserver 10.9.8.7\noptions ndots:2\n",
    );
    // A kept pod's file is the one made with its sandbox.
    await writeFile(files.resolv!, "nameserver 10.0.0.1\n");
    await preparePodEtcFiles(rec, { pod: none, identity, stateDir: dir, engine: "podman", kept: true, dryRun: false });
    t.equal(await readFile(files.resolv!, "utf8"), "nameserver 10.0.0.1\n");
    t.same(events, []);
    const merged = pod({ dnsConfig: { nameservers: ["10.9.8.1", "10.9.8.2", "10.9.8.3"] } });
    const again = await preparePodEtcFiles(rec, {
      pod: merged,
      identity,
      stateDir: dir,
      engine: "podman",
      kept: false,
      dryRun: false,
    });
    const host = readFileSync("/etc/resolv.conf", "utf8");
    const hostServers = [...host.matchAll(/^\s*nameserver\s+(\S+)/gm)].map((m) => m[1]);
    const written = (await readFile(again.resolv!, "utf8"))
      .match(/^nameserver (\S+)$/gm)
      ?.map((line) => line.slice("nameserver ".length));
    t.same(
      written,
      [...hostServers, "10.9.8.1", "10.9.8.2", "10.9.8.3"].slice(0, 3),
      "the host's first, then the pod's, cut to 3",
    );
    t.same(events.length, hostServers.length > 0 ? 1 : 0, "a cut is said");
    if (hostServers.length > 0) t.match(events[0], /^Warning DNSConfigForming Nameserver limits were exceeded/);
  },
);

t.test("a hostNetwork pod: the host's /etc/hosts with the aliases; a dry run writes nothing", async (t) => {
  const dir = await stateDir(t);
  const { recorder: rec } = recorder();
  const p = pod({ hostNetwork: true, hostAliases: [{ ip: "10.1.2.3", hostnames: ["foo.local"] }] });
  const files = await preparePodEtcFiles(rec, {
    pod: p,
    identity,
    stateDir: dir,
    engine: "docker",
    kept: false,
    dryRun: false,
  });
  t.equal(
    await readFile(files.hosts, "utf8"),
    `# Kubernetes-managed hosts file (host network).\n${readFileSync("/etc/hosts", "utf8")}\n# Entries added by HostAliases.\n10.1.2.3\tfoo.local\n`,
  );
  await completeHostsFile(files, p, identity, "10.0.0.1");
  t.notMatch(await readFile(files.hosts, "utf8"), /10\.0\.0\.1/, "no pod line on the host's network");
  const dry = await preparePodEtcFiles(rec, {
    pod: p,
    identity,
    stateDir: join(dir, "dry"),
    engine: "docker",
    kept: false,
    dryRun: true,
  });
  t.equal(dry.hosts, join(dir, "dry", "pods", "docker", "ci_web", "etc-hosts"));
  await t.rejects(stat(dry.hosts), "nothing written");
});

t.test(
  "the engines' argv: a bind mount at each path, the same on docker, podman and nerdctl (nerdctl: argv only)",
  async (t) => {
    const spec: ContainerSpec = {
      name: "ci_web_app",
      image: "busybox:1.36",
      labels: {},
      sandbox: "ci_web",
      hostNetwork: false,
      restartPolicy: "no",
      mounts: withEtcFileMounts(undefined, {
        hosts: "/state/pods/nerdctl/ci_web/etc-hosts",
        resolv: "/state/pods/nerdctl/ci_web/resolv.conf",
      }),
    };
    const expected = [
      "--mount",
      "type=bind,source=/state/pods/nerdctl/ci_web/etc-hosts,target=/etc/hosts",
      "--mount",
      "type=bind,source=/state/pods/nerdctl/ci_web/resolv.conf,target=/etc/resolv.conf",
    ];
    for (const dialect of Object.values(DIALECTS)) {
      const args = buildCreateArgs(dialect, spec, { byName: [], childEnv: {} });
      const at = args.indexOf("--mount");
      t.same(args.slice(at, at + 4), expected, dialect.name);
    }
  },
);

t.test("a file that cannot be written: one line naming where, the errno in words", async (t) => {
  const dir = await stateDir(t);
  const { recorder: rec } = recorder();
  // A regular file where the pods directory would be: mkdir fails (EEXIST), and every write under it (ENOTDIR).
  await writeFile(join(dir, "pods"), "");
  const error = await preparePodEtcFiles(rec, {
    pod: pod({}),
    identity,
    stateDir: dir,
    engine: "docker",
    kept: false,
    dryRun: false,
  }).then(
    () => undefined,
    (e: unknown) => e as Error & { reason?: string },
  );
  t.equal(error?.reason, "CreateContainerConfigError");
  t.equal(
    error?.message,
    `cannot write the pod's /etc/hosts and /etc/resolv.conf in ${join(dir, "pods", "docker", "ci_web")}: it exists and is not a directory (EEXIST)`,
  );
  const hosts = join(dir, "pods", "docker", "ci_web", "etc-hosts");
  const late = await completeHostsFile({ hosts }, pod({}), identity, "10.0.0.1").then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  t.equal(
    late?.message,
    `cannot write the pod's /etc/hosts ${hosts}: a component of the path is not a directory (ENOTDIR)`,
  );
});
