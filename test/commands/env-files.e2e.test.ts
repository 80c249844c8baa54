import t from "tap";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, setupEnginePod, uniqueName } from "../harness/engine-pod.js";

// Env files (`env[].valueFrom.fileKeyRef`, the EnvFiles feature, on by default since v1.35), as
// the Kubernetes documentation's example uses them, on docker and podman: an init container writes
// `config.env` into an emptyDir, and the app reads DB_ADDRESS from it, then builds on it with
// `$(DB_ADDRESS)`. A missing key fails the container as the kubelet's does; an optional one is left out.

const pod = (name: string, extra = "") => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  initContainers:
    - name: setup-envfile
      image: ${BUSYBOX}
      command: ['sh', '-c', "echo \\"DB_ADDRESS='address'\\nREST_ENDPOINT='endpoint' # comment\\" > /data/config.env"]
      volumeMounts:
        - name: config
          mountPath: /data
  containers:
    - name: use-envfile
      image: ${BUSYBOX}
      command: ["/bin/sh", "-c", "env; echo done"]
      env:
        - name: DB_ADDRESS
          valueFrom:
            fileKeyRef:
              path: config.env
              volumeName: config
              key: DB_ADDRESS
              optional: false
        - name: DB_URL
          value: "db://$(DB_ADDRESS)/app"
        - name: NOT_THERE
          valueFrom:
            fileKeyRef: {path: config.env, volumeName: config, key: NOT_THERE, optional: true}
${extra}  volumes:
    - name: config
      emptyDir: {}
`;

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: the documentation's env file example`, async (t) => {
    const env = await setupEnginePod(t, runtime);
    if (!env) return;
    const name = uniqueName("envfile");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const up = await env.up(name, pod(name));
    t.equal(up.exitCode, 0, up.stderr);
    const report = await env.reportOf(name, "use-envfile");
    t.match(report, /^DB_ADDRESS=address$/m, "read from the file the init container wrote");
    t.match(report, /^DB_URL=db:\/\/address\/app$/m, "and $(DB_ADDRESS) sees it, in order");
    t.notMatch(report, /^NOT_THERE=/m, "an optional key that is not there is left out");
  });

  t.test(`${runtime}: a key the file does not have fails the container, as the kubelet's`, async (t) => {
    const env = await setupEnginePod(t, runtime);
    if (!env) return;
    const name = uniqueName("envfile-missing");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    const missing = `        - name: REQUIRED\n          valueFrom:\n            fileKeyRef: {path: config.env, volumeName: config, key: REQUIRED}\n`;
    const up = await env.up(name, pod(name, "").replace("  volumes:", `${missing}  volumes:`));
    t.equal(up.exitCode, 1);
    t.match(
      up.stderr,
      /CreateContainerConfigError: .*environment variable key "REQUIRED" not found in file "config\/config\.env"/,
    );
  });
}
