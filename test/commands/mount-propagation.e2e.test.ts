import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, setupEnginePod, uniqueName, testPodHeader } from "../harness/engine-pod.js";

// volumeMounts[].mountPropagation seen from both sides, on docker and podman: a mount made on the
// host under a HostToContainer hostPath appears in the container (and not under None); a mount
// made by a privileged container under a Bidirectional one appears on the host. Propagation needs
// a host mount that is itself shared (docker refuses a slave of a private one, as containerd
// does): the test makes its own, a directory bind-mounted onto itself and made rshared.

const podYaml = (name: string, spec: string) => `${testPodHeader(name)}${spec}`;

async function mount(args: string[]): Promise<void> {
  const result = await runCommand("mount", args, { reject: false });
  if (result.exitCode !== 0) throw new Error(`mount ${args.join(" ")}: ${result.stderr.trim()}`);
}

/** A fresh rshared mount point, unmounted (with what is under it) and removed at teardown. */
async function sharedDirectory(t: Test): Promise<string | undefined> {
  if (process.getuid?.() !== 0) {
    t.plan(0, "making a shared mount needs root");
    return undefined;
  }
  const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-propagation-"));
  t.teardown(async () => {
    await runCommand("umount", ["-R", dir], { reject: false });
    await rm(dir, { recursive: true, force: true });
  });
  await mount(["--bind", dir, dir]);
  await mount(["--make-rshared", dir]);
  return dir;
}

async function waitFor(read: () => Promise<string>, want: RegExp): Promise<string> {
  let seen = "";
  for (let i = 0; i < 50 && !want.test(seen); i++) {
    seen = await read().catch((error: Error) => error.message);
    if (!want.test(seen)) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return seen;
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: HostToContainer: a host mount made after start appears inside; under None it does not`,
    async (t) => {
      const env = await setupEnginePod(t, runtime);
      if (!env) return;
      const shared = await sharedDirectory(t);
      if (!shared) return;
      const name = uniqueName("propagation");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const r = await env.up(
        name,
        podYaml(
          name,
          `  volumes:
    - name: host
      hostPath:
        path: ${shared}
  containers:
    - name: slave
      image: ${BUSYBOX}
      command: ["sleep", "600"]
      volumeMounts:
        - name: host
          mountPath: /host
          mountPropagation: HostToContainer
    - name: private
      image: ${BUSYBOX}
      command: ["sleep", "600"]
      volumeMounts:
        - name: host
          mountPath: /host
`,
        ),
      );
      t.equal(r.exitCode, 0, r.stderr);
      t.notMatch(r.stderr, /Warning/, "mountPropagation acted on");
      const sub = join(shared, "late");
      await mkdir(sub);
      await mount(["-t", "tmpfs", "podrun-e2e", sub]);
      await writeFile(join(sub, "hello"), "from the host\n");
      const read = (container: string) => () => env.exec(name, container, ["cat", "/host/late/hello"]);
      t.equal(
        (await waitFor(read("slave"), /from the host/)).trim(),
        "from the host",
        "the host's new mount reached the HostToContainer mount",
      );
      const privateView = await env.exec(name, "private", ["ls", "-A", "/host/late"]);
      t.equal(privateView.trim(), "", "the None mount still sees the empty directory under it");
    },
  );

  t.test(`${runtime}: Bidirectional: a mount made by a privileged container appears on the host`, async (t) => {
    const env = await setupEnginePod(t, runtime);
    if (!env) return;
    const shared = await sharedDirectory(t);
    if (!shared) return;
    const name = uniqueName("propagation-bi");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
    await mkdir(join(shared, "inner"));
    const r = await env.up(
      name,
      podYaml(
        name,
        `  volumes:
    - name: host
      hostPath:
        path: ${shared}
  containers:
    - name: mounter
      image: ${BUSYBOX}
      command: ["sh", "-c", "mount -t tmpfs podrun-e2e /host/inner && echo from-the-container > /host/inner/hello && sleep 600"]
      securityContext:
        privileged: true
      volumeMounts:
        - name: host
          mountPath: /host
          mountPropagation: Bidirectional
`,
      ),
    );
    // An engine that itself runs without every capability (docker in a container) cannot grant them.
    if (r.exitCode !== 0 && /unable to apply caps: operation not permitted/.test(r.stderr)) {
      t.plan(0, `${runtime} cannot run a privileged container here: ${r.stderr.trim().split("\n").at(-1)}`);
      return;
    }
    t.equal(r.exitCode, 0, r.stderr);
    const seen = await waitFor(() => readFile(join(shared, "inner", "hello"), "utf8"), /from-the-container/);
    t.equal(seen.trim(), "from-the-container", "the container's mount propagated to the host");
  });
}
