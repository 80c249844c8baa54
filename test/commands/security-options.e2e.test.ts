import t from "tap";
import { detectHostSecurityModules } from "../../lib/pod/spec/security-options.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, setupEnginePod, uniqueName } from "../harness/engine-pod.js";

// procMount, hostUsers, AppArmor and SELinux options end to end: what /proc the container sees
// masked, which user namespace it runs in, and the Warnings for what this host or engine cannot do.

// Masked paths are tmpfs mounts over /proc entries; an unmasked /proc has none.
const REPORT =
  "echo masked=$(grep -cE ' /proc/(acpi|keys|timer_list|scsi|kcore) ' /proc/self/mounts); echo readonly=$(grep -cE ' /proc/sys proc ro' /proc/self/mounts); echo uid_map=$(cat /proc/self/uid_map); echo done; exec sleep 600";
const modules = detectHostSecurityModules();

const podYaml = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  annotations:
    container.apparmor.security.beta.kubernetes.io/masked: unconfined
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  hostUsers: false
  securityContext:
    supplementalGroupsPolicy: Strict
    seLinuxOptions: {level: "s0:c123,c456"}
  containers:
  - name: masked
    image: ${BUSYBOX}
    command: ["sh", "-c", ${JSON.stringify(REPORT)}]
  - name: unmasked
    image: ${BUSYBOX}
    command: ["sh", "-c", ${JSON.stringify(REPORT)}]
    securityContext:
      procMount: Unmasked
      appArmorProfile: {type: RuntimeDefault}
  - name: user
    image: ${BUSYBOX}
    command: ["sh", "-c", ${JSON.stringify(`echo id=$(id -u); ${REPORT}`)}]
    securityContext:
      runAsUser: 2000
${modules.appArmor ? "" : "      appArmorProfile: {type: Localhost, localhostProfile: podrun-test-not-loaded}\n"}`;

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: procMount Unmasked, hostUsers: false, AppArmor and SELinux options`, async (t) => {
    const env = await setupEnginePod(t, runtime);
    if (!env) return;
    const name = uniqueName(runtime);
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const result = await env.up(name, podYaml(name));
    t.equal(result.exitCode, 0, result.stderr);

    const masked = await env.reportOf(name, "masked");
    const unmasked = await env.reportOf(name, "unmasked");
    t.match(masked, /^masked=[1-9]/m, "the default /proc has masked entries");
    t.match(masked, /^readonly=1$/m, "and a read-only /proc/sys");
    t.match(unmasked, /^masked=0$/m, "Unmasked: no masked entry");
    t.match(unmasked, /^readonly=0$/m, "Unmasked: /proc/sys not remounted read-only");

    t.match(
      result.stderr,
      /spec\.securityContext\.supplementalGroupsPolicy: docker, podman and nerdctl always add the groups/,
      "Strict is warned about on every engine",
    );
    if (runtime === "podman") {
      // --userns=auto: container root is a high host id, not 0, and the range is not the whole space.
      t.match(masked, /^uid_map=\s*0 [1-9]\d* \d+$/m, "a user namespace of the pod's own");
      t.notMatch(masked, /^uid_map=\s*0 0 4294967295$/m);
      const user = await env.reportOf(name, "user");
      t.equal(
        masked.match(/^uid_map=.*$/m)?.[0],
        unmasked.match(/^uid_map=.*$/m)?.[0],
        "the containers in the pod's one user namespace",
      );
      t.equal(masked.match(/^uid_map=.*$/m)?.[0], user.match(/^uid_map=.*$/m)?.[0]);
      t.match(masked, /^uid_map=\s*0 \d+ 65536$/m, "the kubelet's 65536 ids");
      t.match(user, /^id=2000$/m, "a runAsUser above the pause image's users is mapped");
      t.notMatch(result.stderr, /spec\.hostUsers/, "no hostUsers warning on podman");
    } else {
      t.match(masked, /^uid_map=\s*0 0 4294967295$/m, "docker: the host's user namespace");
      t.match(
        result.stderr,
        /:\d+:\d+: Warning: spec\.hostUsers: docker has no user namespace per container/,
        "the hostUsers Warning names docker",
      );
    }
    if (!modules.appArmor) {
      t.match(
        result.stderr,
        /Warning: spec\.containers\[1\]\.securityContext\.appArmorProfile: AppArmor is not enabled on this host/,
        "RuntimeDefault without AppArmor is warned about",
      );
      t.notMatch(result.stderr, /metadata\.annotations/, "unconfined (the annotation) needs no AppArmor: no warning");
      t.match(
        result.stderr,
        /Warning: spec\.containers\[2\]\.securityContext\.appArmorProfile: AppArmor is not enabled on this host/,
        "a Localhost profile: warned, and the container runs",
      );
      t.match(await env.reportOf(name, "user"), /^id=2000$/m);
    }
    if (!modules.seLinux)
      t.match(result.stderr, /Warning: spec\.securityContext\.seLinuxOptions: SELinux is not enabled on this host/);
  });
}

t.test("a net.* sysctl on a hostNetwork pod is the API server's validation error: exit 2 at its line", async (t) => {
  const env = await setupEnginePod(t, "docker");
  if (!env) return;
  const name = uniqueName("hostnet");
  t.teardown(() => removeManagedContainers("docker", { "io.kubernetes.pod.name": name }));
  const result = await env.up(
    name,
    `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  hostNetwork: true
  securityContext:
    sysctls:
    - name: net.ipv4.tcp_syncookies
      value: "1"
  containers:
  - name: app
    image: ${BUSYBOX}
`,
  );
  t.equal(result.exitCode, 2, result.stderr);
  t.match(
    result.stderr,
    /:9:13: spec\.securityContext\.sysctls\[0\]\.name: Invalid value: "net\.ipv4\.tcp_syncookies": may not be specified when 'hostNetwork' is true/,
  );
});
