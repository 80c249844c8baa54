import type { Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { PodrunError } from "../../../lib/errors.js";
import type { InvolvedObject } from "../../../lib/events/types.js";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import type { PodObjects } from "../../../lib/manifest/pod-objects.js";
import { startPod, type StartPodError } from "../../../lib/pod/start/start-pod.js";
import type { ContainerSpec } from "../../../lib/runtime/types.js";
import { FakeRuntime } from "../../harness/fake-runtime.js";

// A container's environment on its way to `create`, on the shared fake engine: when the pod's IP is
// asked, what fails before create, and where a secret never goes.

const identity = { name: "web", namespace: "default", uid: "uid-1" };
const SECRET = 'hunter2-$(NOT)-"q"\nline';

function harness(script: { failCreate?: boolean } = {}) {
  const runtime = new FakeRuntime({ podIP: "10.88.0.42" });
  runtime.delay("startSandbox", 20).on("startSandbox", () => runtime.note("sandbox running"));
  if (script.failCreate) {
    runtime.failOn("createContainer", (call) => {
      const spec = call.args[0] as ContainerSpec;
      return new Error(
        `Command failed with exit code 125: docker create ${[...(spec.command ?? []), ...(spec.args ?? [])].join(" ")}`,
      );
    });
  }
  const events: string[] = [];
  const recorder = {
    event: (object: InvolvedObject, type: string, reason: string, message: string) => {
      events.push(`${object.fieldPath ?? "pod"} ${type} ${reason}: ${message}`);
      return undefined as never;
    },
  };
  // The image manager is not the engine's: a stub that "pulls" into the fake engine.
  const images = {
    ensureImageExists: async (request: { image: string }) => {
      runtime.images.set(request.image, { id: "sha256:x", size: 1 });
      return request.image;
    },
  };
  return {
    deps: { runtime, recorder, images },
    calls: runtime.calls,
    /** The specs `create` was given, in order. */
    get created() {
      return runtime.createdSpecs;
    },
    events,
  };
}

const pod = (spec: Partial<Pod["spec"]>): Pod =>
  defaultPod({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers: [], ...spec } });
const objects: PodObjects = {
  configMaps: [{ metadata: { name: "cfg" }, data: { MODE: "fast", "bad=key": "x" } }],
  secrets: [{ metadata: { name: "creds" }, stringData: { PW: SECRET } }],
};

t.test("env reaches create resolved, command and args expanded; the pod IP once the sandbox runs", async (t) => {
  const h = harness();
  await startPod(h.deps, {
    pod: pod({
      containers: [
        {
          name: "a",
          image: "x:1",
          command: ["sh", "-c", "echo $(MODE) $(IP) $(NOPE) $$(MODE)"],
          envFrom: [{ configMapRef: { name: "cfg" } }],
          env: [
            { name: "PW", valueFrom: { secretKeyRef: { name: "creds", key: "PW" } } },
            { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
          ],
        },
        { name: "b", image: "x:1", env: [{ name: "NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }] },
      ],
    }),
    objects,
    identity,
    infraImage: "p:1",
    publishAll: false,
  });
  const a = h.created.find((s) => s.labels["io.kubernetes.container.name"] === "a")!;
  t.same(a.env, [
    { name: "MODE", value: "fast" },
    { name: "PW", value: SECRET },
    { name: "IP", value: "10.88.0.42" },
  ]);
  t.same(a.command, ["sh", "-c", "echo fast 10.88.0.42 $(NOPE) $(MODE)"]);
  t.ok(
    h.calls.indexOf("createContainer a") > h.calls.indexOf("inspectContainers default_web"),
    "a's create waits for the sandbox's address",
  );
  t.ok(
    h.calls.indexOf("createContainer b") < h.calls.indexOf("sandbox running"),
    "b, which needs no address, does not wait",
  );
  t.same(
    h.events.filter((e) => e.includes("InvalidEnvironmentVariableNames")),
    [
      "pod Warning InvalidEnvironmentVariableNames: Keys [bad=key] from the EnvFrom configMap default/cfg were skipped since they are considered invalid environment variable names.",
    ],
  );
  t.notMatch(JSON.stringify(h.events) + JSON.stringify(a.labels), "hunter2");
});

t.test("hostNetwork: the pod's IP is the host's", async (t) => {
  const h = harness();
  await startPod(h.deps, {
    pod: pod({
      hostNetwork: true,
      containers: [
        {
          name: "a",
          image: "x:1",
          env: [
            { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
            { name: "HOST", valueFrom: { fieldRef: { fieldPath: "status.hostIP" } } },
          ],
        },
      ],
    }),
    objects,
    identity,
    infraImage: "p:1",
    publishAll: false,
  });
  const env = h.created[0]!.env!;
  t.equal(env[0]!.value, env[1]!.value);
  t.notOk(h.calls.some((c) => c.startsWith("inspectContainers")));
});

t.test("a missing reference: CreateContainerConfigError before create, the kubelet's event", async (t) => {
  const h = harness();
  const error = (await startPod(h.deps, {
    pod: pod({
      containers: [
        {
          name: "a",
          image: "x:1",
          env: [{ name: "PW", valueFrom: { secretKeyRef: { name: "creds", key: "OTHER" } } }],
        },
      ],
    }),
    objects,
    identity,
    infraImage: "p:1",
    publishAll: false,
  }).catch((e: unknown) => e)) as StartPodError;
  t.type(error, PodrunError);
  t.equal(error.reason, "CreateContainerConfigError");
  t.equal(error.message, "container a: couldn't find key OTHER in Secret default/creds");
  t.same(
    h.events.filter((e) => e.includes("Failed")),
    ["spec.containers{a} Warning Failed: Error: couldn't find key OTHER in Secret default/creds"],
  );
  t.notOk(h.calls.includes("createContainer a"));
});

t.test("a Secret in args: printed unexpanded, and hidden from a failed create's message", async (t) => {
  const h = harness({ failCreate: true });
  const error = (await startPod(h.deps, {
    pod: pod({
      containers: [
        {
          name: "a",
          image: "x:1",
          command: ["login", "--password=$(PW)"],
          args: ["$(MODE)"],
          env: [
            { name: "PW", valueFrom: { secretKeyRef: { name: "creds", key: "PW" } } },
            { name: "MODE", value: "m" },
          ],
        },
      ],
    }),
    objects,
    identity,
    infraImage: "p:1",
    publishAll: false,
  }).catch((e: unknown) => e)) as StartPodError;
  const spec = h.created[0]!;
  t.same(spec.command, ["login", `--password=${SECRET}`], "the engine gets the value, as the kubelet's runtime would");
  t.same(spec.printed, { command: ["login", "--password=$(PW)"], args: ["m"] });
  t.equal(error.reason, "CreateContainerError");
  t.equal(error.message, "container a: Command failed with exit code 125: docker create login --password=$(PW) m");
  t.notMatch(JSON.stringify(h.events) + error.message, "hunter2");
});

t.test("no Secret in command or args: nothing printed apart", async (t) => {
  const h = harness();
  await startPod(h.deps, {
    pod: pod({
      containers: [
        {
          name: "a",
          image: "x:1",
          args: ["$(MODE)"],
          env: [
            { name: "PW", valueFrom: { secretKeyRef: { name: "creds", key: "PW" } } },
            { name: "MODE", value: "m" },
          ],
        },
      ],
    }),
    objects,
    identity,
    infraImage: "p:1",
    publishAll: false,
  });
  t.equal(h.created[0]!.printed, undefined);
});
