import type { Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import type { EnsureImageRequest } from "../../../lib/images/manager.js";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import { computePodHash } from "../../../lib/pod/spec/container-spec.js";
import type { PodIdentity } from "../../../lib/pod/identity.js";
import { LABEL_POD_HASH, LABEL_SPEC_HASH } from "../../../lib/pod/spec/spec-hash.js";
import { isAbortError } from "../../../lib/process/abort.js";
import { startPod } from "../../../lib/pod/start/start-pod.js";
import { planStart } from "../../../lib/pod/start/start-plan.js";
import { UndoLog } from "../../../lib/pod/start/undo-log.js";
import { undoStart } from "../../../lib/pod/undo-pod.js";
import { FakeRuntime } from "../../harness/fake-runtime.js";

// startPod for a kept pod (reconcile) and under Ctrl-C, on the shared fake engine: pure logic only.
// The real engines run both in test/commands/up-reconcile.e2e.test.ts.

const identity: PodIdentity = { name: "web", namespace: "default", uid: "uid-kept" };

function fake(options: { blockWait?: boolean; keptSandbox?: boolean } = {}) {
  const runtime = new FakeRuntime();
  // A kept pod's sandbox runs already: its new containers join it.
  if (options.keptSandbox) runtime.addSandbox("default_web");
  // An init container that runs until stopped: its wait blocks (until Ctrl-C aborts it).
  if (options.blockWait) runtime.script("init", { runs: true });
  // The image manager is not the engine's: a stub that "pulls" into the fake engine.
  const images = {
    ensureImageExists: async (request: EnsureImageRequest) => {
      runtime.images.set(request.image, { id: "sha256:x", size: 1 });
      return request.image;
    },
  };
  const recorder = { event: () => undefined as never };
  // What startPod asks the engine, without the one image inspect that every run begins with.
  const engineCalls = () => runtime.calls.filter((c) => !c.startsWith("inspectImages"));
  return {
    deps: { runtime, images, recorder },
    runtime,
    calls: runtime.calls,
    engineCalls,
    specs: () => runtime.createdSpecs,
  };
}

const pod = (spec: Partial<Pod["spec"]>): Pod =>
  defaultPod({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers: [], ...spec } });

const manifest = pod({
  volumes: [{ name: "data", emptyDir: {} }],
  initContainers: [{ name: "init", image: "x:1" }],
  containers: [
    { name: "a", image: "x:1", volumeMounts: [{ name: "data", mountPath: "/d" }] },
    { name: "b", image: "x:1" },
  ],
});

t.test(
  "a kept pod: only the named app containers, in the running sandbox; no sandbox, volume or init step",
  async (t) => {
    const f = fake({ keptSandbox: true });
    const started = await startPod(f.deps, {
      pod: manifest,
      identity,
      infraImage: "p:1",
      publishAll: false,
      plan: planStart({ pod: manifest, kept: { sandboxId: "infra-id", create: ["b"] } }),
    });
    t.same(f.engineCalls(), ["createContainer b", "startContainer b"]);
    t.same(started.containers, [{ name: "b", id: "id-1", kind: "app" }]);
    t.equal(started.sandboxId, "infra-id");
    t.equal(started.appContainers, 1);
    t.equal(started.initContainers, 0);
    const [spec] = f.specs();
    t.equal(spec!.labels["io.kubernetes.pod.uid"], "uid-kept", "the kept pod's UID");
    t.equal(spec!.sandbox, "default_web", "joins the pod's sandbox");
    t.equal(
      spec!.labels[LABEL_POD_HASH],
      computePodHash({ pod: manifest, identity, infraImage: "p:1", publishAll: false }),
      "carries the pod hash",
    );
    t.match(spec!.labels[LABEL_SPEC_HASH], /^[0-9a-f]{16}$/);
  },
);

t.test("a new pod: the sandbox and every container carry the pod hash", async (t) => {
  const f = fake();
  await startPod(f.deps, { pod: manifest, identity, infraImage: "p:1", publishAll: false });
  const hashes = new Set(f.specs().map((s) => s.labels[LABEL_POD_HASH]));
  t.equal(hashes.size, 1);
  t.same(
    f.specs().map((s) => s.labels["io.kubernetes.container.name"]),
    ["init", "a", "b"],
  );
});

t.test("Ctrl-C during an init container: the wait is aborted, and what was made is returned for undoing", async (t) => {
  const f = fake({ blockWait: true });
  const controller = new AbortController();
  const undo = new UndoLog();
  const run = startPod(f.deps, {
    pod: manifest,
    identity,
    infraImage: "p:1",
    publishAll: false,
    signal: controller.signal,
    undo,
  });
  while (!f.calls.some((c) => c.startsWith("waitContainer"))) await new Promise((resolve) => setImmediate(resolve));
  controller.abort("SIGINT");
  const error = await run.catch((e: unknown) => e);
  t.ok(isAbortError(error), "the start ends in an AbortError");
  const created = undo.created();
  t.same(created, { containerIds: ["id-1"], sandbox: "default_web", volumes: ["default_web_data"] });
  t.notOk(
    f.calls.some((c) => c.startsWith("createContainer a") || c.startsWith("createContainer b")),
    "no app container after Ctrl-C",
  );
  await undoStart(f.deps.runtime, created);
  t.same(f.calls.slice(-3), ["removeContainers init", "removeSandbox default_web", "removeVolumes default_web_data"]);
});

t.test("Ctrl-C while a create is under way: the container is undone by its name", async (t) => {
  // The terminal's Ctrl-C reaches the engine CLI too: `create` dies, maybe after the engine made it.
  let killCreate!: () => void;
  const f = fake({ keptSandbox: true });
  f.runtime.on("createContainer", (call) => {
    if (call.subject !== "b") return;
    return new Promise<void>((_, reject) => (killCreate = () => reject(new Error("Command was killed with SIGINT"))));
  });
  const controller = new AbortController();
  const undo = new UndoLog();
  const run = startPod(f.deps, {
    pod: manifest,
    identity,
    infraImage: "p:1",
    publishAll: false,
    signal: controller.signal,
    plan: planStart({ pod: manifest, kept: { create: ["a", "b"] } }),
    undo,
  });
  while (!f.calls.includes("createContainer b") || !f.calls.some((c) => c.startsWith("startContainer ")))
    await new Promise((resolve) => setImmediate(resolve));
  controller.abort("SIGINT");
  killCreate();
  const error = await run.catch((e: unknown) => e);
  t.ok(isAbortError(error), "the start ends in an AbortError");
  t.same(undo.created().containerIds, ["id-1", "default_web_b"], "the made one by ID, the one under way by name");
  t.equal(undo.created().sandbox, undefined, "a kept sandbox is not this run's to remove");
  t.equal(undo.created().volumes, undefined, "nor are its volumes");
});
