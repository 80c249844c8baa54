import t from "tap";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import { isHalfMadeSandbox, removeHalfMadeSandbox } from "../../../lib/pod/stop/half-made-sandbox.js";
import { startPod } from "../../../lib/pod/start/start-pod.js";
import type { EnsureImageRequest } from "../../../lib/images/manager.js";
import type { PodInfo } from "../../../lib/runtime/types.js";
import { FakeRuntime } from "../../harness/fake-runtime.js";

// A podman pod that a killed `up` left without its infra container (its `pod create` killed
// midway): `up` and `down` take it as the pod's own by its labels and remove it, with whatever
// holds the infra container's name. The real engines: test/state/robustness/kill-points.podman.e2e.test.ts.

const ours = {
  "io.podrun.managed": "true",
  "io.kubernetes.pod.name": "web",
  "io.kubernetes.pod.namespace": "default",
  "io.kubernetes.pod.uid": "old-uid",
};
const halfMade: PodInfo = { id: "p1", name: "default_web", labels: ours };
const web = { name: "web", namespace: "default" };

function podmanWith(pod?: PodInfo): FakeRuntime {
  const fake = new FakeRuntime({ name: "podman", images: ["busybox:1.36", "registry.k8s.io/pause:3.10"] });
  if (pod) fake.pods.set(pod.name, pod);
  return fake;
}

t.test("a half-made sandbox: a podman pod with this pod's podrun labels and no infra container", async (t) => {
  t.ok(isHalfMadeSandbox(halfMade, web));
  t.notOk(isHalfMadeSandbox({ ...halfMade, infraId: "i1" }, web), "one with an infra container is a whole pod");
  t.notOk(isHalfMadeSandbox({ ...halfMade, labels: { ...ours, "io.podrun.managed": "false" } }, web), "not podrun's");
  t.notOk(isHalfMadeSandbox({ ...halfMade, labels: {} }, web), "no labels: someone else's");
  t.notOk(
    isHalfMadeSandbox({ ...halfMade, labels: { ...ours, "io.kubernetes.pod.namespace": "ci" } }, web),
    "another namespace's",
  );
  t.notOk(
    isHalfMadeSandbox({ ...halfMade, labels: { ...ours, "io.kubernetes.pod.name": "api" } }, web),
    "another pod's",
  );
});

t.test("down: removes the half-made pod, then whatever holds its infra container's name", async (t) => {
  const fake = podmanWith(halfMade);
  t.equal(await removeHalfMadeSandbox(fake, web), true);
  t.same(fake.calls, [
    "findPod default_web",
    "listContainersNamed default_web_POD",
    "removeSandbox default_web",
    "removeContainers default_web_POD",
  ]);
});

t.test("down: a container of the infra name that the database knows is not this pod's: left alone", async (t) => {
  const fake = podmanWith(halfMade);
  const stranger = fake.addContainer({ name: "default_web_POD" });
  t.equal(await removeHalfMadeSandbox(fake, web), true);
  t.notOk(fake.calls.some((c) => c.startsWith("removeContainers")));
  t.ok(fake.container(stranger.id), "the other container stays");
});

t.test("down: nothing half made, or not podman: nothing removed", async (t) => {
  const whole = podmanWith({ ...halfMade, infraId: "i1" });
  t.equal(await removeHalfMadeSandbox(whole, web), false);
  t.same(whole.calls, ["findPod default_web"]);
  const docker = new FakeRuntime({ name: "docker" });
  t.equal(await removeHalfMadeSandbox(docker, web), false);
  t.same(docker.calls, [], "docker makes its infra container in one request: not even asked");
});

const pod = defaultPod({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web" },
  spec: { containers: [{ name: "app", image: "busybox:1.36" }] },
});
const start = (fake: FakeRuntime) =>
  startPod(
    // Images are present: the manager only answers with the defaulted reference.
    {
      runtime: fake,
      recorder: { event: () => undefined as never },
      images: {
        ensureImageExists: async (request: EnsureImageRequest) =>
          request.image.includes(":") ? request.image : `${request.image}:latest`,
      },
    },
    {
      pod,
      identity: { name: "web", namespace: "default", uid: "new-uid" },
      infraImage: "registry.k8s.io/pause:3.10",
      publishAll: false,
    },
  );

t.test("up: pod create finds this pod's half-made pod: removed, and the pod made anew", async (t) => {
  const fake = podmanWith(halfMade);
  await start(fake);
  t.same(
    fake.calls.filter((c) => /^(createSandbox|removeSandbox|findPod)/.test(c)),
    ["createSandbox default_web", "findPod default_web", "removeSandbox default_web", "createSandbox default_web"],
  );
  t.equal(fake.container("app")?.status, "running");
});

t.test("up: a pod of that name without podrun's labels for this pod is still a name clash", async (t) => {
  const fake = podmanWith({ ...halfMade, labels: { ...ours, "io.kubernetes.pod.name": "other" } });
  await t.rejects(start(fake), {
    reason: "NameConflict",
    message: /pod name "default_web" is taken by a podman pod podrun did not create/,
  });
  t.notOk(
    fake.calls.some((c) => c.startsWith("removeSandbox")),
    "nothing of it removed",
  );
});
