import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, setupEnginePod, uniqueName, testPodHeader } from "../harness/engine-pod.js";

// seccompProfile end to end: the mode the container process itself sees in /proc/self/status
// (0 none, 2 filter), and a Localhost profile that denies mkdir.

const REPORT =
  "grep '^Seccomp:' /proc/self/status; if mkdir /tmp/d 2>/tmp/err; then echo mkdir=ok; else echo mkdir=$(cat /tmp/err); fi; echo done; exec sleep 600";
// Everything allowed but mkdir, which fails with EPERM (errno 1).
const DENY_MKDIR = JSON.stringify({
  defaultAction: "SCMP_ACT_ALLOW",
  syscalls: [{ names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO", errnoRet: 1 }],
});

const container = (name: string, seccompProfile: string) => `    - name: ${name}
      image: ${BUSYBOX}
      command: ["sh", "-c", ${JSON.stringify(REPORT)}]
${seccompProfile ? `      securityContext:\n        seccompProfile: ${seccompProfile}\n` : ""}`;

const podYaml = (name: string, containers: string) => `${testPodHeader(name)}  securityContext:
    seccompProfile: {type: Unconfined}
  containers:
${containers}`;

async function setup(t: Test, runtime: RuntimeName) {
  const profiles = await mkdtemp(join(tmpdir(), "podrun-seccomp-profiles-"));
  t.teardown(() => rm(profiles, { recursive: true, force: true }));
  const env = await setupEnginePod(t, runtime, { env: { PODRUN_SECCOMP_PROFILE_ROOT: profiles } });
  if (!env) return undefined;
  await writeFile(join(profiles, "deny-mkdir.json"), DENY_MKDIR);
  return { up: env.up, report: env.reportOf };
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: Unconfined (pod), RuntimeDefault and Localhost (container over pod)`, async (t) => {
    const env = await setup(t, runtime);
    if (!env) return;
    const name = uniqueName("seccomp");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const result = await env.up(
      name,
      podYaml(
        name,
        [
          container("pod-level", ""),
          container("default", "{type: RuntimeDefault}"),
          container("local", "{type: Localhost, localhostProfile: deny-mkdir.json}"),
        ].join(""),
      ),
    );
    t.equal(result.exitCode, 0, result.stderr);
    const podLevel = await env.report(name, "pod-level");
    t.match(podLevel, /^Seccomp:\s+0$/m, "the pod's Unconfined: no filter");
    t.match(podLevel, /mkdir=ok/);
    t.match(await env.report(name, "default"), /^Seccomp:\s+2$/m, "RuntimeDefault: the engine's default filter");
    const local = await env.report(name, "local");
    t.match(local, /^Seccomp:\s+2$/m, "Localhost: a filter");
    t.match(local, /mkdir=.*Operation not permitted/, "the profile denies mkdir with EPERM");
  });

  t.test(`${runtime}: a Localhost profile that is not there fails before the container is created`, async (t) => {
    const env = await setup(t, runtime);
    if (!env) return;
    const name = uniqueName("seccomp-missing");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const result = await env.up(
      name,
      podYaml(name, container("app", "{type: Localhost, localhostProfile: nope.json}")),
    );
    t.equal(result.exitCode, 1, result.stderr);
    t.match(result.stderr, /CreateContainerConfigError/);
    t.match(result.stderr, /seccomp profile "nope\.json" not found: no file .*nope\.json/);
    const made = await runCommand(runtime, ["ps", "-a", "-q", "--filter", `name=default_${name}_app`]);
    t.equal(made.stdout.trim(), "", "no app container");
  });
}
