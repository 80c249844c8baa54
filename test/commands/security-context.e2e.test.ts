import t, { type Test } from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, setupEnginePod, uniqueName, testPodHeader } from "../harness/engine-pod.js";

// securityContext end to end: what the container process itself sees (`id`, /proc/self/status,
// a write to its root file system), on the real engines. Every container reports all of it, so
// that container-level settings share one pod: a container without a securityContext is the
// baseline of each.

// The container prints what it sees, then `done`, then stays up so that its logs can be read.
const REPORT =
  "id; grep -E '^(CapEff|NoNewPrivs):' /proc/self/status; if touch /x 2>/dev/null; then echo root=rw; else echo root=ro; fi; if touch /data/y 2>/dev/null; then echo data=rw; else echo data=ro; fi; echo done; exec sleep 600";

const capEff = (report: string) => BigInt(`0x${/^CapEff:\s+([0-9a-f]+)$/m.exec(report)?.[1] ?? "0"}`);

const podYaml = (name: string, spec: string) => `${testPodHeader(name)}  volumes:
    - name: data
      emptyDir: {}
${spec}`;

const containerYaml = (name: string, securityContext: string) => `    - name: ${name}
      image: ${BUSYBOX}
      command: ["sh", "-c", ${JSON.stringify(REPORT)}]
      volumeMounts:
        - name: data
          mountPath: /data
${securityContext ? `      securityContext:\n${securityContext}` : ""}`;

async function setup(t: Test, runtime: RuntimeName) {
  const env = await setupEnginePod(t, runtime);
  if (!env) return undefined;
  const containersOf = async (pod: string) =>
    (await runCommand(runtime, ["ps", "-a", "-q", "--filter", `label=io.kubernetes.pod.name=${pod}`])).stdout
      .split("\n")
      .filter(Boolean);
  return { up: env.up, report: env.reportOf, containersOf };
}

// Each case has its own state directory and uniquely named pod (setupEnginePod): two run at once.
t.jobs = 2;
for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: runAsUser/runAsGroup (container over pod), supplementalGroups and fsGroup; runAsNonRoot with a runAsUser runs`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = uniqueName("sec-id");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const result = await env.up(
        name,
        podYaml(
          name,
          `  securityContext:
    runAsNonRoot: true
    runAsUser: 1000
    runAsGroup: 3000
    fsGroup: 4000
    supplementalGroups: [2000]
  containers:
${containerYaml("pod-level", "")}
${containerYaml("own", "        runAsUser: 1001\n")}`,
        ),
      );
      t.equal(result.exitCode, 0, result.stderr);
      t.notMatch(result.stderr, "spec.securityContext.fsGroup", "fsGroup is acted on: no warning");
      const inherited = await env.report(name, "pod-level");
      t.match(inherited, /^uid=1000\S* gid=3000\S* groups=\S*/m);
      const groups =
        /groups=(\S+)/
          .exec(inherited)?.[1]
          ?.split(",")
          .map((group) => group.replace(/\(.*\)$/, "")) ?? [];
      t.ok(
        groups.includes("2000") && groups.includes("4000"),
        `supplementalGroups and fsGroup among ${groups.join(",")}`,
      );
      t.match(
        await env.report(name, "own"),
        /^uid=1001\S* gid=3000\S* /m,
        "the container's runAsUser wins, the pod's runAsGroup stays",
      );
    },
  );

  t.test(
    `${runtime}: capabilities drop/add (with and without CAP_), allowPrivilegeEscalation: false; readOnlyRootFilesystem: the root refuses writes, a mounted emptyDir does not`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = uniqueName("sec-cap");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const result = await env.up(
        name,
        podYaml(
          name,
          `  containers:
${containerYaml("none", "        capabilities:\n          drop: [ALL]\n        allowPrivilegeEscalation: false\n")}
${containerYaml("netadmin", "        capabilities:\n          drop: [all]\n          add: [CAP_NET_ADMIN, NET_RAW]\n")}
${containerYaml("plain", "")}
${containerYaml("ro", "        readOnlyRootFilesystem: true\n")}`,
        ),
      );
      t.equal(result.exitCode, 0, result.stderr);
      const ro = await env.report(name, "ro");
      t.match(ro, /^root=ro$/m);
      t.match(ro, /^data=rw$/m);
      const none = await env.report(name, "none");
      t.match(none, /^CapEff:\s+0000000000000000$/m, "drop ALL: no capability left");
      t.match(none, /^NoNewPrivs:\s+1$/m);
      // NET_ADMIN is bit 12, NET_RAW bit 13.
      const netadmin = await env.report(name, "netadmin");
      t.match(netadmin, /^CapEff:\s+0000000000003000$/m, "drop ALL, add NET_ADMIN and NET_RAW");
      t.match(netadmin, /^NoNewPrivs:\s+0$/m);
      // CAP_SYS_ADMIN is bit 21: never in the engines' default set.
      const report = await env.report(name, "plain");
      t.match(report, /^root=rw$/m, "without readOnlyRootFilesystem, the root is writable");
      const plain = capEff(report);
      t.not(plain, 0n, "the engine's default set otherwise");
      t.equal(plain & (1n << 21n), 0n, "no SYS_ADMIN");
    },
  );

  t.test(`${runtime}: privileged`, { buffered: true }, async (t) => {
    const env = await setup(t, runtime);
    if (!env) return;
    const name = uniqueName("sec-priv");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const result = await env.up(
      name,
      podYaml(
        name,
        `  containers:
${containerYaml("privileged", "        privileged: true\n")}`,
      ),
    );
    // An engine that itself runs without every capability (docker in a container) cannot grant them.
    if (result.exitCode !== 0 && /unable to apply caps: operation not permitted/.test(result.stderr)) {
      t.plan(0, `${runtime} cannot grant every capability here: ${result.stderr.trim().split("\n").at(-1)}`);
      return;
    }
    t.equal(result.exitCode, 0, result.stderr);
    t.not(capEff(await env.report(name, "privileged")) & (1n << 21n), 0n, "privileged: SYS_ADMIN");
  });

  t.test(
    `${runtime}: runAsNonRoot against the image's USER: CreateContainerConfigError before create, nothing left`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = uniqueName("sec-nonroot");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      // busybox has no USER: it runs as root.
      const refused = await env.up(
        name,
        podYaml(
          name,
          `  securityContext:
    runAsNonRoot: true
  containers:
${containerYaml("app", "")}`,
        ),
      );
      t.equal(refused.exitCode, 1);
      t.match(
        refused.stdout,
        new RegExp(
          `Warning +Failed +pod/${name}\\[app\\] +Error: container has runAsNonRoot and image will run as root \\(pod: "${name}_default\\(`,
        ),
      );
      t.match(refused.stderr.trimEnd().split("\n").at(-1), /CreateContainerConfigError.*container app/);
      t.same(await env.containersOf(name), [], "nothing left behind");
      // With a runAsUser it runs: the runAsUser case's pod, runAsNonRoot too.
    },
  );
}
