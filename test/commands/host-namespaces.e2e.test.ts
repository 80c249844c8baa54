import { readFileSync } from "node:fs";
import { readlink } from "node:fs/promises";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, setupEnginePod, uniqueName, testPodHeader } from "../harness/engine-pod.js";

// hostPID, hostIPC and pod-level sysctls seen from inside an app container, on docker and
// podman. The host's namespaces are the test process's own (it runs on the engine's host).
// hostPID and hostIPC on a hostNetwork pod (no sandbox to join) are checked on the hostNetwork
// pod of pod-settings.e2e.test.ts.

async function setup(t: Test, runtime: RuntimeName) {
  const env = await setupEnginePod(t, runtime);
  if (!env) return undefined;
  return {
    up: env.up,
    exec: async (pod: string, container: string, command: string[]) => (await env.exec(pod, container, command)).trim(),
  };
}

const podYaml = (name: string, spec: string) => `${testPodHeader(name)}${spec}`;

// Each case has its own state directory and uniquely named pod (setupEnginePod): two run at once.
t.jobs = 2;
for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: hostPID and hostIPC: the containers are in the host's PID and IPC namespaces`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = uniqueName("hostns");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const spec = `  hostPID: true
  hostIPC: true
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
      t.notMatch(r.stderr, /Warning/, "both fields acted on");
      const hostPid = await readlink("/proc/self/ns/pid");
      const hostIpc = await readlink("/proc/self/ns/ipc");
      for (const container of ["app", "other"]) {
        t.equal(
          await env.exec(name, container, ["readlink", "/proc/self/ns/pid"]),
          hostPid,
          `${container}: the host's PID namespace`,
        );
        t.equal(
          await env.exec(name, container, ["readlink", "/proc/self/ns/ipc"]),
          hostIpc,
          `${container}: the host's IPC namespace`,
        );
        t.equal(
          await env.exec(name, container, ["cat", `/proc/${process.pid}/comm`]),
          // As this machine names it ("node"; Node 24 names its main thread "MainThread").
          readFileSync(`/proc/${process.pid}/comm`, "utf8").trim(),
          `${container}: sees the test's own process`,
        );
      }
    },
  );

  t.test(
    `${runtime}: pod sysctls are set in the pod's namespaces; without hostPID/hostIPC those are the pod's own`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const name = uniqueName("sysctl");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const spec = `  securityContext:
    sysctls:
      - name: net.core.somaxconn
        value: "1000"
      - name: net.ipv4.ip_unprivileged_port_start
        value: "80"
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ["sleep", "600"]
`;
      const r = await env.up(name, podYaml(name, spec));
      t.equal(r.exitCode, 0, r.stderr);
      t.match(
        r.stderr,
        /Warning: spec\.securityContext\.sysctls\[0\]: "net\.core\.somaxconn" is not in the kubelet's safe set/,
        "set, and named as outside the kubelet's safe set",
      );
      t.notMatch(r.stderr, /sysctls\[1\]/, "a safe sysctl is acted on without a warning");
      t.equal(await env.exec(name, "app", ["cat", "/proc/sys/net/core/somaxconn"]), "1000");
      t.equal(await env.exec(name, "app", ["cat", "/proc/sys/net/ipv4/ip_unprivileged_port_start"]), "80");
      t.not(await env.exec(name, "app", ["readlink", "/proc/self/ns/pid"]), await readlink("/proc/self/ns/pid"));
      t.not(await env.exec(name, "app", ["readlink", "/proc/self/ns/ipc"]), await readlink("/proc/self/ns/ipc"));
    },
  );
}
