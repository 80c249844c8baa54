import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { runCli } from "../harness/cli.js";
import { BUSYBOX, requireImage, requirePodEngine, requireTestEnv } from "../harness/engine.js";
import { uniqueName } from "../harness/engine-pod.js";
import { registryLogMark, registryRequests } from "../harness/registry-log.js";

// Issue 29's CI flow, on docker and podman: an image built in the test (`docker build`, `podman
// build`, from the test busybox, offline) runs in place of the released image the manifest names,
// by `--image NAME=REF`: checked inside the container. A changed override recreates the one
// container it changes; `NAME=:TAG` changes only the tag; an override that matches nothing warns.
// A local image under the Always policy (untagged: `:latest`) fails its pull with the hint that
// it is here and the three fixes; `--pull-policy IfNotPresent` then runs it, and the loopback
// registry's log shows it was not asked.

const RELEASED = "ghcr.io/podrun-ci/app";

const pod = (name: string, image: string, side = "") => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: Always
  terminationGracePeriodSeconds: 1
  containers:
    - name: app
      image: ${image}
      command: ["sleep", "3600"]
${side}`;

const SIDE = `    - name: side
      image: ${BUSYBOX}
      command: ["sleep", "3600"]
`;

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: an image built in the job, by --image; a local image under Always`, async (t) => {
    const testEnv = requireTestEnv(t);
    if (!testEnv || !(await requirePodEngine(t, runtime)) || !(await requireImage(t, runtime, BUSYBOX))) return;
    const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-image-"));
    const local = `localhost/podrun-ci/${uniqueName("app")}`;
    const unpushed = `${testEnv.registries.open}/podrun-ci/${uniqueName("app")}`;
    const pods = [uniqueName("ci"), uniqueName("ci-tag"), uniqueName("ci-latest")];
    t.teardown(async () => {
      for (const name of pods) await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
      await runCommand(runtime, ["rmi", "-f", `${local}:a`, `${local}:b`, `${unpushed}:latest`], { reject: false });
      await rm(dir, { recursive: true, force: true });
    });
    const stateDir = join(dir, "state");
    const podrun = (args: string[], env: Record<string, string> = {}) =>
      runCli(["up", "--runtime", runtime, ...args], { env: { PODRUN_STATE_DIR: stateDir, ...env } });
    const file = async (name: string, yaml: string) => {
      await writeFile(join(dir, `${name}.yaml`), yaml);
      return join(dir, `${name}.yaml`);
    };
    const built = async (container: string) =>
      (await runCommand(runtime, ["exec", container, "cat", "/built"])).stdout.trim();
    const idOf = async (container: string) =>
      (await runCommand(runtime, ["inspect", "-f", "{{.Id}}", container])).stdout.trim();

    // The job's build: two tags, each saying which it is.
    for (const tag of ["a", "b"]) {
      await writeFile(join(dir, "Dockerfile"), `FROM ${BUSYBOX}\nRUN echo built-${tag} > /built\n`);
      await runCommand(runtime, ["build", "-q", "-t", `${local}:${tag}`, dir]);
    }

    const [name, tagged, latest] = pods as [string, string, string];
    const manifest = await file(name, pod(name, `${RELEASED}:1.4.2`, SIDE));
    const dry = await podrun(["--dry-run", "--image", `${RELEASED}=${local}:a`, manifest]);
    t.equal(dry.exitCode, 0, dry.stderr);
    // (docker's create ends `--entrypoint sleep IMAGE 3600`, podman's `--entrypoint '["sleep","3600"]' IMAGE`.)
    t.match(
      dry.stdout,
      new RegExp(`--entrypoint .* ${local}:a( 3600)?$`, "m"),
      "--dry-run shows the image that will run",
    );
    t.notMatch(dry.stdout, RELEASED, "and not the one written");
    const first = await podrun([
      "--wait",
      "--image",
      `${RELEASED}=${local}:a`,
      "--image",
      "nothing/here=x:1",
      manifest,
    ]);
    t.equal(first.exitCode, 0, first.stderr);
    t.equal(await built(`default_${name}_app`), "built-a", "the built image runs in place of the released one");
    t.match(first.stderr, "Warning: --image nothing/here=x:1: no container image of the files read is nothing/here");
    const before = { app: await idOf(`default_${name}_app`), side: await idOf(`default_${name}_side`) };

    const second = await podrun(["--wait", "--image", `${RELEASED}=${local}:b`, manifest]);
    t.equal(second.exitCode, 0, second.stderr);
    t.equal(await built(`default_${name}_app`), "built-b", "the changed override runs");
    t.not(await idOf(`default_${name}_app`), before.app, "the container it changes is made anew");
    t.equal(await idOf(`default_${name}_side`), before.side, "the other is kept");

    // NAME=:TAG, from $PODRUN_IMAGES: only the tag changes.
    const onlyTag = await podrun(["--wait", await file(tagged, pod(tagged, `${local}:a`))], {
      PODRUN_IMAGES: `${local}=:b`,
    });
    t.equal(onlyTag.exitCode, 0, onlyTag.stderr);
    t.equal(await built(`default_${tagged}_app`), "built-b");

    // The same build under a name with no tag: the API server's default policy, Always, pulls it.
    await runCommand(runtime, ["tag", `${local}:a`, `${unpushed}:latest`]);
    const untagged = await file(latest, pod(latest, unpushed));
    const mark = registryLogMark(testEnv, "open");
    const pulled = await podrun([untagged]);
    t.equal(pulled.exitCode, 1, "the pull fails: the registry has no such image");
    t.match(
      pulled.stderr,
      "the image is present on this machine, but imagePullPolicy is Always (the default for an image tagged :latest or untagged): set imagePullPolicy: IfNotPresent, use a tag other than latest, or run up --pull-policy IfNotPresent",
    );
    const asked = (since: number) =>
      registryRequests(testEnv, "open", since).filter((request) =>
        request.path.includes(unpushed.split("/").slice(1).join("/")),
      );
    t.ok(asked(mark).length > 0, "the registry was asked");

    const quiet = registryLogMark(testEnv, "open");
    const kept = await podrun(["--wait", "--pull-policy", "IfNotPresent", untagged]);
    t.equal(kept.exitCode, 0, kept.stderr);
    t.match(kept.stderr, "Warning: --pull-policy IfNotPresent:");
    t.equal(await built(`default_${latest}_app`), "built-a");
    t.same(asked(quiet), [], "no request reached the registry");
    const events = await runCli(["events", "--pod", latest, "--reason", "Pulled"], {
      env: { PODRUN_STATE_DIR: stateDir },
    });
    t.match(events.stdout, "already present on machine (--pull-policy IfNotPresent)", "the override is in the events");
  });
}
