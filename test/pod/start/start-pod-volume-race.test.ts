import t from "tap";
import { PodrunError } from "../../../lib/errors.js";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import type { PodIdentity } from "../../../lib/pod/identity.js";
import { startPod, StartPodError } from "../../../lib/pod/start/start-pod.js";
import { undoStart } from "../../../lib/pod/undo-pod.js";
import { FakeRuntime } from "../../harness/fake-runtime.js";

// A start that fails while the pod's emptyDir volumes are still being made (a pull in back-off
// fails at once, and a pod without a sandbox reaches its pull first): the failure waits for them,
// so that undoing it removes them instead of running before they exist.

const identity: PodIdentity = { name: "web", namespace: "default", uid: "00000000-0000-0000-0000-000000000001" };

t.test("a failure before the volumes are made: undo leaves no volume", async (t) => {
  const runtime = new FakeRuntime();
  runtime.delay("createVolume", 100);
  const images = {
    ensureImageExists: () => Promise.reject(new PodrunError("ImagePullBackOff", 'Back-off pulling image "x:1"')),
  };
  const recorder = { event: () => undefined as never };
  const pod = defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: {
      hostNetwork: true,
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [{ name: "a", image: "x:1", volumeMounts: [{ name: "data", mountPath: "/d" }] }],
    },
  });
  const error = await startPod(
    { runtime, recorder, images },
    { pod, identity, infraImage: "p:1", publishAll: false },
  ).catch((e: unknown) => e);
  t.ok(error instanceof StartPodError);
  t.equal((error as StartPodError).reason, "ImagePullBackOff");
  t.ok(runtime.volumes.has("default_web_data"), "the volume was made before the failure was reported");
  await undoStart(runtime, (error as StartPodError).created);
  await new Promise((resolve) => setTimeout(resolve, 200)); // longer than the create takes
  t.same([...runtime.volumes.keys()], [], "undo removed it, and nothing made it again");
});
