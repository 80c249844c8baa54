import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { runCli } from "../harness/cli.js";
import { PAUSE, requireEngine, requireImage, requireRegistry } from "../harness/engine.js";
import { loadTestEnv } from "../harness/env.js";
import { uniqueName } from "../harness/engine-pod.js";
import { copyImage, startFaultRegistry, type FaultRegistry, type RegistryFault } from "../harness/fault-registry.js";

// Registry faults on the real engines, through the fault registry (test/harness/fault-registry.ts):
// for each fault, `podrun up` fails with the kubelet's reason and one line, exit 1; the next `up`
// right after is in back-off (ImagePullBackOff) without a single request to the registry; and
// nothing of the pod is left. A registry that never answers is cut by the pull progress deadline
// (2 s here), and the engine's pull with it. Every case has a repository of its own, so two run
// at once.

interface Expected {
  /** The kubelet's reason, and the message after `<reason>: pod/<name>: container app: `. */
  reason: string;
  message: RegExp;
  /** `--image-pull-progress-deadline`; absent: the default. */
  deadline?: string;
}

const canceled = (deadline: string): Expected => ({
  reason: "ErrImagePull",
  message: new RegExp(
    `pull of .* canceled because of no progress for ${deadline} \\(--image-pull-progress-deadline\\)`,
  ),
  deadline,
});

const CASES: { fault: RegistryFault; expected: Record<"docker" | "podman", Expected> }[] = [
  { fault: "manifest-404", expected: both({ reason: "ErrImagePull", message: /.*manifest unknown$/ }) },
  {
    fault: "unauthorized",
    expected: both({
      reason: "ErrImagePull",
      message: /.*unauthorized \(no credentials for this registry: add an imagePullSecret, /,
    }),
  },
  {
    fault: "server-error",
    expected: both({
      reason: "RegistryUnavailable",
      message: /image pull failed for .* because the registry is unavailable: .*500 Internal Server Error$/,
    }),
  },
  {
    fault: "cut-blob",
    expected: {
      // docker waits 5 s before its first retry of the layer (and retries for 75 s in all): the
      // deadline ends it in that wait.
      docker: canceled("2s"),
      // podman retries three times, 1 s apart, and gives up.
      podman: {
        reason: "RegistryUnavailable",
        message: /image pull failed for .* because the registry is unavailable: .*connection reset by peer$/,
      },
    },
  },
  { fault: "hang", expected: both(canceled("2s")) },
];

function both(expected: Expected): Record<"docker" | "podman", Expected> {
  return { docker: expected, podman: expected };
}

const podYaml = (name: string, image: string, hostNetwork = false) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 1\n  hostNetwork: ${hostNetwork}\n` +
  `  volumes:\n    - name: scratch\n      emptyDir: {}\n` +
  `  containers:\n    - name: app\n      image: ${image}\n      imagePullPolicy: Always\n      command: ["sleep", "60"]\n      volumeMounts:\n        - name: scratch\n          mountPath: /scratch\n`;

/**
 * The one error line of a failed `up`'s stderr; the only other line allowed is the note that what
 * the run created (the sandbox, made while the image was pulled) was removed.
 */
function errorLine(t: Test, stderr: string): string {
  const all = lines(stderr);
  t.same(
    all.filter(
      (line) =>
        !line.startsWith("Error: ") && !/^podrun: removed the \d+ containers? this run created for pod\//.test(line),
    ),
    [],
    `nothing else on stderr: ${stderr}`,
  );
  const errors = all.filter((line) => line.startsWith("Error: "));
  t.equal(errors.length, 1, "one error line");
  return errors[0] ?? "";
}

const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");

/** What of pod `name` the engine still has: containers, pods (podman) and volumes, by label. */
async function leftovers(runtime: RuntimeName, name: string): Promise<string[]> {
  const label = `label=io.kubernetes.pod.name=${name}`;
  const found = lines((await runCommand(runtime, ["ps", "-a", "-q", "--filter", label])).stdout).map(
    (id) => `container ${id}`,
  );
  if (runtime === "podman")
    found.push(
      ...lines((await runCommand(runtime, ["pod", "ps", "-q", "--filter", label])).stdout).map((id) => `pod ${id}`),
    );
  found.push(
    ...lines((await runCommand(runtime, ["volume", "ls", "-q", "--filter", label])).stdout).map((id) => `volume ${id}`),
  );
  return found;
}

/** The pull processes of `ref` still running (`docker pull …`, `podman pull …`). */
async function pullProcesses(ref: string): Promise<string[]> {
  return lines((await runCommand("ps", ["-eo", "args"])).stdout).filter(
    (args) => /\bpull\b/.test(args) && args.includes(ref),
  );
}

// Started once the open registry answers (the image is copied from it); each case's guard says
// when it does not.
let registry: FaultRegistry | undefined;
t.before(async () => {
  const open = loadTestEnv()?.registries.open;
  const image = open ? await copyImage(open, "podrun-test/busybox", "1.36").catch(() => undefined) : undefined;
  if (image) registry = await startFaultRegistry(image);
});
t.teardown(() => registry?.close());
t.jobs = 2;

for (const runtime of ["docker", "podman"] as const) {
  for (const { fault, expected } of CASES) {
    const { reason, message, deadline } = expected[runtime];
    t.test(`${runtime}: ${fault}`, async (t) => {
      if (
        !(await requireRegistry(t, "open")) ||
        !(await requireEngine(t, runtime)) ||
        !(await requireImage(t, runtime, PAUSE))
      )
        return;
      const reg = registry;
      if (!reg)
        return void t.fail("the fault registry did not start: the image could not be copied from the open registry");
      const name = uniqueName(`fault-${fault}`);
      const repo = `podrun-test/${name}`;
      const image = `${reg.address}/${repo}:1`;
      reg.setFault(repo, fault);
      const dir = await mkdtemp(join(tmpdir(), "podrun-registry-faults-"));
      t.teardown(async () => {
        await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
        await runCommand(runtime, ["rmi", "-f", image], { reject: false });
        await rm(dir, { recursive: true, force: true });
      });
      // The second run's pod has no sandbox, so that its pull comes soon after it starts: the
      // back-off (10 s from the first failure, keyed by pod and image) must still be running on a
      // loaded machine.
      const [withSandbox, withoutSandbox] = [join(dir, "pod.yaml"), join(dir, "pod-host-network.yaml")];
      await writeFile(withSandbox, podYaml(name, image));
      await writeFile(withoutSandbox, podYaml(name, image, true));
      const up = (file: string) =>
        runCli(["up", "--runtime", runtime, ...(deadline ? ["--image-pull-progress-deadline", deadline] : []), file], {
          env: { PODRUN_STATE_DIR: join(dir, "state") },
          timeoutMs: 150_000,
        });

      // 1. The pull fails: the kubelet's reason in one error line, exit 1, and the registry was asked.
      let started = Date.now();
      const failed = await up(withSandbox);
      t.comment(`first up: ${Date.now() - started} ms`);
      t.equal(failed.exitCode, 1, "exit 1");
      t.match(
        errorLine(t, failed.stderr),
        new RegExp(`^Error: ${reason}: pod/${name}: container app: ${message.source}`),
        "the kubelet's reason and the fault's message",
      );
      t.ok(reg.countRequests(repo) >= 1, "the registry was asked");

      // 2. Right after: back-off, without a request to the registry.
      const mark = reg.requests.length;
      started = Date.now();
      const backedOff = await up(withoutSandbox);
      t.comment(`second up: ${Date.now() - started} ms`);
      t.equal(backedOff.exitCode, 1, "exit 1 in back-off");
      t.match(
        errorLine(t, backedOff.stderr),
        `Error: ImagePullBackOff: pod/${name}: container app: Back-off pulling image "${image}": ${reason}: `,
      );
      t.equal(reg.countRequests(repo, mark), 0, "no request during back-off");

      if (fault === "hang") {
        t.same(await pullProcesses(image), [], "no pull process left");
        // podman's pull is its own process: gone, it lets go of the request. dockerd's pull of a
        // manifest does not stop with the client (docs/up.md).
        if (runtime === "podman")
          t.same(
            reg.requests.filter((r) => r.repo === repo && r.outcome === "hung" && !r.closed),
            [],
            "the connection the pull waited on is closed",
          );
      }

      // 3. Nothing of the pod is left.
      t.same(await leftovers(runtime, name), [], "no container, pod or volume left");
    });
  }
}
