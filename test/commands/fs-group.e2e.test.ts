import t from "tap";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, setupEnginePod, uniqueName, testPodHeader } from "../harness/engine-pod.js";

// fsGroup and emptyDir permissions end to end, seen from inside a container running as user 1000:
// the emptyDir is 0777 (writable by anyone, as the kubelet makes it), and with fsGroup 2000 every
// volume the kubelet gives to the group (emptyDir on disk or in memory, configMap, secret) has
// group 2000, group permissions and setgid directories; a 0400 secret becomes group-readable.

// `stat -c '%a %g %n'`: mode in octal with its special bits, group, path.
const REPORT = [
  "id",
  "if touch /data/new 2>/dev/null; then echo data=rw; else echo data=ro; fi",
  "if touch /mem/new 2>/dev/null; then echo mem=rw; else echo mem=ro; fi",
  "mkdir -p /data/sub",
  "stat -c '%a %g %n' /data /data/new /data/sub /mem /mem/new /config /config/..data/ /config/..data/app.properties /creds/..data/ /creds/..data/token",
  "if cat /creds/token >/dev/null 2>&1; then echo secret=readable; else echo secret=unreadable; fi",
  "echo done",
  "exec sleep 600",
].join("; ");

const manifest = (name: string, securityContext: string) => `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}-cfg}
data:
  app.properties: "a=1\\n"
---
apiVersion: v1
kind: Secret
metadata: {name: ${name}-sec}
stringData:
  token: s3cr3t
---
${testPodHeader(name)}  securityContext:
${securityContext}
  volumes:
    - name: data
      emptyDir: {}
    - name: mem
      emptyDir: {medium: Memory}
    - name: config
      configMap: {name: ${name}-cfg}
    - name: creds
      secret: {secretName: ${name}-sec, defaultMode: 0400}
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sh", "-c", ${JSON.stringify(REPORT)}]
      volumeMounts:
        - {name: data, mountPath: /data}
        - {name: mem, mountPath: /mem}
        - {name: config, mountPath: /config}
        - {name: creds, mountPath: /creds}
`;

/** `path → "mode gid"` from the stat lines of the report. */
function statsOf(report: string): Map<string, string> {
  return new Map(
    [...report.matchAll(/^(\d+) (\d+) (\/\S*)$/gm)].map((m) => [m[3]!.replace(/\/$/, ""), `${m[1]} ${m[2]}`]),
  );
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: fsGroup 2000 gives emptyDir, configMap and secret volumes to the group, setgid`, async (t) => {
    const env = await setupEnginePod(t, runtime);
    if (!env) return;
    const name = uniqueName("on");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const result = await env.up(
      name,
      manifest(name, "    runAsUser: 1000\n    fsGroup: 2000\n    fsGroupChangePolicy: OnRootMismatch"),
    );
    t.equal(result.exitCode, 0, result.stderr);
    t.notMatch(
      result.stderr,
      /fsGroupChangePolicy|not supported by podrun/,
      "fsGroup and fsGroupChangePolicy are acted on",
    );
    const report = await env.reportOf(name, "app");
    t.match(report, /^uid=1000\S* gid=0\S* groups=\S*2000/m);
    t.match(report, /^data=rw$/m);
    t.match(report, /^mem=rw$/m);
    t.match(report, /^secret=readable$/m, "a 0400 secret is readable through the group");
    const stats = statsOf(report);
    t.equal(stats.get("/data"), "2777 2000", "emptyDir root: 0777, setgid, group fsGroup");
    t.equal(stats.get("/data/new")?.split(" ")[1], "2000", "a new file inherits the group (setgid)");
    t.equal(stats.get("/data/sub"), "2755 2000", "a new directory inherits group and setgid");
    t.equal(stats.get("/config"), "2777 2000");
    t.equal(stats.get("/config/..data"), "2755 2000");
    t.equal(stats.get("/config/..data/app.properties"), "644 2000");
    t.equal(stats.get("/creds/..data/token"), "440 2000", "0400 | the kubelet's read-only mask 0440");
    if (runtime === "docker") {
      t.equal(stats.get("/mem"), "3777 2000", "the tmpfs: sticky as the kernel makes it, setgid, group fsGroup");
      t.equal(stats.get("/mem/new")?.split(" ")[1], "2000");
      t.notMatch(result.stderr, /FailedVolumeOwnership/);
    } else {
      t.equal(stats.get("/mem"), "1777 0", "podman's --tmpfs takes no gid: the kernel's 1777, group root");
      t.match(
        result.stdout + result.stderr,
        /FailedVolumeOwnership.*spec\.securityContext\.fsGroup: volume "mem" not given to group 2000 as a kubelet would: podman's --tmpfs takes no gid option/,
      );
    }
  });

  t.test(
    `${runtime}: without fsGroup the emptyDir is 0777: a non-root user writes to it; a 0400 secret stays root's`,
    async (t) => {
      const env = await setupEnginePod(t, runtime);
      if (!env) return;
      const name = uniqueName("off");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const result = await env.up(name, manifest(name, "    runAsUser: 1000"));
      t.equal(result.exitCode, 0, result.stderr);
      t.notMatch(result.stdout + result.stderr, /FailedVolumeOwnership/);
      const report = await env.reportOf(name, "app");
      t.match(report, /^uid=1000\S* gid=0\S*/m);
      t.notMatch(report, /groups=\S*2000/, "no fsGroup among the groups");
      t.match(report, /^data=rw$/m, "the emptyDir is writable by a non-root user");
      t.match(report, /^mem=rw$/m);
      t.match(report, /^secret=unreadable$/m, "0400 root-owned, as on a node without fsGroup");
      const stats = statsOf(report);
      t.equal(stats.get("/data"), "777 0");
      t.equal(stats.get("/mem"), "1777 0");
      t.equal(stats.get("/creds/..data/token"), "400 0");
      t.equal(stats.get("/config"), "777 0");
    },
  );
}
