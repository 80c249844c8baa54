import type { Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { PodrunError } from "../../../lib/errors.js";
import type { EnsureImageRequest } from "../../../lib/images/manager.js";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import type { PodIdentity } from "../../../lib/pod/identity.js";
import { startPod, StartPodError } from "../../../lib/pod/start/start-pod.js";
import { undoStart } from "../../../lib/pod/undo-pod.js";
import { CommandError } from "../../../lib/runtime/exec.js";
import { RequestTimeoutError } from "../../../lib/runtime/request-timeout.js";
import { up } from "../../../lib/commands/up.js";
import { createCommandWorld } from "../../harness/command-io.js";
import { FakeRuntime, explainedAsDocker } from "../../harness/fake-runtime.js";

// What a failed start leaves for undoing when the failure is not the pod's own: an engine
// command that did not answer in time (the engine may carry it out later), and a bug in podrun.
// The real engines behind a proxy that never answers are test/state/robustness/engine-hang.e2e.test.ts.

const identity: PodIdentity = { name: "web", namespace: "default", uid: "00000000-0000-0000-0000-000000000001" };
const pod = (containers: { name: string; image: string }[]): Pod =>
  defaultPod({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers } });

function harness() {
  const runtime = new FakeRuntime({ images: ["pause:3.10", "busybox:1"] });
  const recorder = { event: () => undefined as never };
  const images = { ensureImageExists: (request: EnsureImageRequest) => Promise.resolve(request.image) };
  return { runtime, deps: { runtime, recorder, images } };
}

const timedOut = (step: string) =>
  explainedAsDocker(
    new RequestTimeoutError(
      step,
      2000,
      new CommandError({
        shortMessage: "Command timed out",
        binary: "docker",
        args: [],
        exitCode: undefined,
        stdout: "",
        stderr: "",
        timedOut: true,
      }),
    ),
  );
const start = (h: ReturnType<typeof harness>, containers = [{ name: "a", image: "busybox:1" }]) =>
  startPod(h.deps, { pod: pod(containers), identity, infraImage: "pause:3.10", publishAll: false }).catch(
    (e: unknown) => e,
  );

t.test(
  "a create that did not answer: the container is undone by its name, as the engine may make it yet",
  async (t) => {
    const h = harness();
    h.runtime.failOn("createContainer", timedOut("docker create"), { subject: "a" });
    const error = (await start(h, [
      { name: "a", image: "busybox:1" },
      { name: "b", image: "busybox:1" },
    ])) as StartPodError;
    t.type(error, StartPodError);
    t.equal(error.reason, "CreateContainerError");
    t.equal(error.message, "container a: docker create did not answer within 2s");
    t.same(error.created.containerIds, ["id-1", "default_web_a"], "b by its ID, a by the name it was being made under");
    await undoStart(h.runtime, error.created);
    t.same(h.runtime.listAll(), [], "nothing left");
  },
);

t.test("a sandbox create that did not answer: the sandbox is undone by its name", async (t) => {
  const h = harness();
  h.runtime.failOn("createSandbox", timedOut("docker create"));
  const error = (await start(h)) as StartPodError;
  t.equal(error.reason, "FailedCreatePodSandBox");
  t.equal(error.message, "Failed to create pod sandbox: docker create did not answer within 2s");
  t.same(error.created, { sandbox: "default_web", containerIds: [] });
});

t.test("a create the engine refused is not undone by name: the name may be another's", async (t) => {
  const h = harness();
  h.runtime.failOn("createContainer", new Error("Conflict. The container name is already in use"), { subject: "a" });
  const error = (await start(h)) as StartPodError;
  t.equal(error.reason, "CreateContainerError");
  t.same(error.created, { sandbox: "default_web", containerIds: [] });
});

t.test(
  "a bug is not the pod's failure: what was made is removed and the bug itself goes on, for the CLI to report as one",
  async (t) => {
    for (const where of ["createContainer", "startContainer", "image manager"] as const) {
      const h = harness();
      const bug = new TypeError("Cannot read properties of undefined (reading 'name')");
      if (where === "image manager") {
        h.deps.images.ensureImageExists = (request) =>
          request.image === "busybox:1" ? Promise.reject(bug) : Promise.resolve(request.image);
      } else h.runtime.failOn(where, bug, { subject: "a" });
      const error = await start(h, [
        { name: "a", image: "busybox:1" },
        { name: "b", image: "pause:3.10" },
      ]);
      t.equal(error, bug, `${where}: the TypeError itself, with its stack`);
      t.notOk(error instanceof PodrunError);
      t.same(h.runtime.listAll(), [], `${where}: the sandbox and the containers are gone`);
    }
  },
);

t.test(
  "through `podrun up`: the bug itself reaches lib/cli.ts (reported there as a bug, with its stack), not a pod failure",
  async (t) => {
    const world = await createCommandWorld(t);
    world.runtime.images.set("busybox:1.36", { id: "sha256:b", size: 1 });
    const bug = new TypeError("Cannot read properties of null (reading 'length')");
    world.runtime.failOn("createContainer", bug, { subject: "app" });
    const file = await world.manifest(
      "pod.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n    - name: app\n      image: busybox:1.36\n",
    );
    const error = await up({
      files: [file],
      publishAll: false,
      parallelPulls: 1,
      keepOnFailure: false,
      dryRun: false,
      json: false,
      ...world.io,
    }).catch((e: unknown) => e);
    t.equal(error, bug);
    t.notMatch(world.stderr.text, /RunContainerError|CreateContainerError/);
    t.same(world.runtime.listAll(), [], "the sandbox is gone");
  },
);

t.test(
  "the cluster network removed or made twice by other runs, four times: found or made anew each time, the sandbox made; a fifth time fails",
  async (t) => {
    const { CLUSTER_NETWORK_RETRIES, ensureClusterNetwork } = await import("../../../lib/pod/cluster-network.js");
    const { engineError } = await import("../../harness/fake-runtime.js");
    t.equal(CLUSTER_NETWORK_RETRIES, 4);
    // docker's words for a network gone, and for two networks of the one name.
    const failures = ["network network-podrun not found", "network podrun is ambiguous (2 matches found on name)"].map(
      (message) => engineError(message, ["create"]),
    );
    const failing = (times: number) => {
      const h = harness();
      let calls = 0;
      h.runtime.failOn("createSandbox", () => failures[calls++ % 2]!, { times });
      return h;
    };
    const startOn = async (h: ReturnType<typeof harness>) => {
      const cluster = await ensureClusterNetwork(h.runtime);
      return startPod(h.deps, {
        pod: pod([{ name: "a", image: "busybox:1" }]),
        identity,
        infraImage: "pause:3.10",
        publishAll: false,
        cluster,
      }).catch((e: unknown) => e);
    };
    const four = failing(4);
    t.notOk((await startOn(four)) instanceof Error, "made on the fifth try");
    t.equal(
      four.runtime.calls.filter((c) => c.startsWith("ensureNetwork")).length,
      5,
      "the network ensured before each try",
    );
    const five = failing(5);
    const error = (await startOn(five)) as StartPodError;
    t.equal(error.reason, "FailedCreatePodSandBox", "at most four tries more");
    t.match(error.message, /ambiguous|not found/);
  },
);
