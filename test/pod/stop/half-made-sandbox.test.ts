import t from "tap";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import { reconcilePod } from "../../../lib/pod/reconcile/apply-plan.js";
import { isHalfMadeSandbox, removeHalfMadeSandboxOf } from "../../../lib/pod/stop/half-made-sandbox.js";
import type { FindNamedRequest, NamedObject } from "../../../lib/runtime/find-named.js";
import { FakeRuntime } from "../../harness/fake-runtime.js";

// A podman pod that a killed `up` left without its infra container (its `pod create` killed
// midway): `up` and `down` take it as the pod's own by its labels and remove it, with whatever
// holds the infra container's name. The real engines: test/state/robustness/kill-points.podman.e2e.test.ts.

const ours = { "io.podrun.managed": "true", "io.kubernetes.pod.name": "web", "io.kubernetes.pod.namespace": "default", "io.kubernetes.pod.uid": "old-uid" };
const halfMade: NamedObject = { kind: "pod", id: "p1", name: "default_web", labels: ours };

/** A fake podman whose findNamed also answers with `extra` (the fake models no podman pods). */
function podmanWith(extra: NamedObject[]): FakeRuntime {
  const fake = new FakeRuntime({ name: "podman", images: ["busybox:1.36", "registry.k8s.io/pause:3.10"] });
  const findContainers = fake.findNamed.bind(fake);
  fake.findNamed = async (request: FindNamedRequest) => [...(await findContainers(request)), ...extra.filter((o) => o.kind === "container" ? request.containers.includes(o.name) : o.name === request.sandbox)];
  return fake;
}

t.test("a half-made sandbox: a podman pod with this pod's podrun labels and no infra container", async (t) => {
  const pod = { name: "web", namespace: "default" };
  t.ok(isHalfMadeSandbox(halfMade, pod));
  t.notOk(isHalfMadeSandbox({ ...halfMade, infraId: "i1" }, pod), "one with an infra container is a whole pod");
  t.notOk(isHalfMadeSandbox({ ...halfMade, labels: { ...ours, "io.podrun.managed": "false" } }, pod), "not podrun's");
  t.notOk(isHalfMadeSandbox({ kind: "pod", id: "p1", name: "default_web" }, pod), "no labels: someone else's");
  t.notOk(isHalfMadeSandbox({ ...halfMade, labels: { ...ours, "io.kubernetes.pod.namespace": "ci" } }, pod), "another namespace's");
  t.notOk(isHalfMadeSandbox({ ...halfMade, labels: { ...ours, "io.kubernetes.pod.name": "api" } }, pod), "another pod's");
  t.notOk(isHalfMadeSandbox({ kind: "container", id: "c1", name: "default_web", labels: ours }, pod), "a container");
});

t.test("down: removes the half-made pod, then whatever holds its infra container's name", async (t) => {
  const fake = podmanWith([halfMade]);
  t.equal(await removeHalfMadeSandboxOf(fake, { name: "web", namespace: "default" }), true);
  t.same(fake.calls, ["findNamed default_web_POD", "removeSandbox default_web", "removeContainers default_web_POD"]);
});

t.test("down: a container of the infra name that the database knows is not this pod's: left alone", async (t) => {
  const fake = podmanWith([halfMade, { kind: "container", id: "c9", name: "default_web_POD" }]);
  t.equal(await removeHalfMadeSandboxOf(fake, { name: "web", namespace: "default" }), true);
  t.same(fake.calls, ["findNamed default_web_POD", "removeSandbox default_web"]);
});

t.test("down: nothing half made, or not podman: nothing removed", async (t) => {
  const whole = podmanWith([{ ...halfMade, infraId: "i1" }]);
  t.equal(await removeHalfMadeSandboxOf(whole, { name: "web", namespace: "default" }), false);
  t.same(whole.calls, ["findNamed default_web_POD"]);
  const docker = new FakeRuntime({ name: "docker" });
  t.equal(await removeHalfMadeSandboxOf(docker, { name: "web", namespace: "default" }), false);
  t.same(docker.calls, [], "docker makes its infra container in one request: not even asked");
});

const pod = defaultPod({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers: [{ name: "app", image: "busybox:1.36" }] } });
const reconcile = (fake: FakeRuntime) =>
  reconcilePod({ runtime: fake, recorder: { event: () => undefined as never } }, { pod, identity: { name: "web", namespace: "default", uid: "new-uid" }, infraImage: "registry.k8s.io/pause:3.10", publishAll: false, replace: false });

t.test("up: a half-made pod of this pod is removed before the pod is made anew, not reported as a name clash", async (t) => {
  const fake = podmanWith([halfMade]);
  const result = await reconcile(fake);
  t.equal(result.plan.action, "create");
  t.same(fake.calls.filter((c) => c.startsWith("remove")), ["removeSandbox default_web", "removeContainers default_web_POD"]);
});

t.test("up: a pod of that name without podrun's labels for this pod is still a name clash", async (t) => {
  const fake = podmanWith([{ ...halfMade, labels: { ...ours, "io.kubernetes.pod.name": "other" } }]);
  await t.rejects(reconcile(fake), { name: "PodrunError", reason: "NameConflict", message: /pod name "default_web" is taken by a podman pod podrun did not create/ });
  t.same(fake.calls.filter((c) => c.startsWith("remove")), [], "nothing removed");
});
