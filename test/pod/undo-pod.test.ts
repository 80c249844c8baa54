import type { Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { identifyPod } from "../../lib/pod/identity.js";
import { removeInterruptedPod, undoFailedStart, undoInterruptedStart } from "../../lib/pod/undo-pod.js";
import type { ContainerRuntime } from "../../lib/runtime/types.js";

// What `up` takes back when a pod does not come up, and the one line that says so. A small
// engine stub records the removals (the shared fake engine drives the whole flow elsewhere).

function stubRuntime(options: { failRemove?: string } = {}) {
  const calls: string[] = [];
  const remove = (what: string) => async (names: string | string[]) => {
    calls.push(`${what} ${[names].flat().join(",")}`);
    if (options.failRemove === what) throw new Error(`cannot remove ${what}\nsecond line`);
  };
  const runtime = {
    name: "docker",
    removeContainers: remove("containers"),
    removeSandbox: remove("sandbox"),
    removeVolumes: remove("volumes"),
  };
  return { calls, runtime: runtime as unknown as ContainerRuntime };
}

const label = "pod/web";

t.test("a failed start: what this run created goes, said when there were containers", async (t) => {
  const { calls, runtime } = stubRuntime();
  const lines = await undoFailedStart(
    runtime,
    { sandbox: "default_web", containerIds: ["c1", "c2"], volumes: ["v1"] },
    { label, keep: false },
  );
  t.same(lines, ["podrun: removed the 3 containers this run created for pod/web (--keep-on-failure keeps them)"]);
  t.same(
    calls,
    ["containers c2,c1", "sandbox default_web", "volumes v1"],
    "containers in reverse creation order, then the sandbox and volumes",
  );
});

t.test("a failed start with only volumes: removed without a line", async (t) => {
  const { calls, runtime } = stubRuntime();
  t.same(await undoFailedStart(runtime, { containerIds: [], volumes: ["v1"] }, { label, keep: false }), []);
  t.same(calls, ["volumes v1"]);
});

t.test("--keep-on-failure, or nothing created: nothing removed", async (t) => {
  const { calls, runtime } = stubRuntime();
  t.same(await undoFailedStart(runtime, { containerIds: ["c1"] }, { label, keep: true }), []);
  t.same(await undoFailedStart(runtime, { containerIds: [] }, { label, keep: false }), []);
  t.same(calls, []);
});

t.test("a removal that fails is told on one line, not thrown", async (t) => {
  const { runtime } = stubRuntime({ failRemove: "containers" });
  t.same(await undoFailedStart(runtime, { containerIds: ["c1"] }, { label, keep: false }), [
    "podrun: could not remove everything this run created for pod/web: cannot remove containers",
  ]);
  t.equal(
    await undoInterruptedStart(runtime, { containerIds: ["c1"] }),
    "podrun: interrupted; could not remove everything this run created: cannot remove containers",
  );
});

t.test("Ctrl-C while starting: removed whatever the flags say, and said", async (t) => {
  const { calls, runtime } = stubRuntime();
  t.equal(
    await undoInterruptedStart(runtime, { containerIds: [] }),
    "podrun: interrupted; this run had created no container",
  );
  t.equal(
    await undoInterruptedStart(runtime, { sandbox: "default_web", containerIds: ["c1"] }),
    "podrun: interrupted; removed the 2 containers this run created",
  );
  t.same(calls, ["containers c1", "sandbox default_web"]);
});

t.test("Ctrl-C during --wait with --rm-on-interrupt: the whole pod, kept containers included", async (t) => {
  const { calls, runtime } = stubRuntime();
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "default", uid: "u1" },
    spec: {
      containers: [{ name: "app", image: "busybox", volumeMounts: [{ name: "cache", mountPath: "/cache" }] }],
      volumes: [{ name: "cache", emptyDir: {} }],
    },
  };
  const started = {
    sandboxId: "s1",
    containerIds: ["c2"],
    containers: [
      { name: "init", id: "c1", kind: "init" as const },
      { name: "app", id: "c2", kind: "app" as const },
    ],
    initContainers: 0,
    appContainers: 1,
  };
  const line = await removeInterruptedPod(runtime, { pod, identity: identifyPod(pod), started, stateDir: t.testdir() });
  t.equal(line, "podrun: interrupted; removed pod/web (--rm-on-interrupt)");
  t.equal(calls[0], "containers c1,c2");
  t.equal(calls[1], "sandbox default_web");
  t.match(calls[2], /^volumes \S*cache/);
});
