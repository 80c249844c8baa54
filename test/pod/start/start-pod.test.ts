import { CommandError } from "../../../lib/runtime/exec.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { readAuthFile } from "../../../lib/pod/pull-credentials.js";
import { PodrunError } from "../../../lib/errors.js";
import type { InvolvedObject } from "../../../lib/events/types.js";
import type { EnsureImageRequest } from "../../../lib/images/manager.js";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import type { PodIdentity } from "../../../lib/pod/identity.js";
import { startPod, StartPodError } from "../../../lib/pod/start/start-pod.js";
import { planStart } from "../../../lib/pod/start/start-plan.js";
import { undoStart } from "../../../lib/pod/undo-pod.js";
import type { ContainerSpec } from "../../../lib/runtime/types.js";
import { FakeRuntime, explainedAsDocker } from "../../harness/fake-runtime.js";

// The order of SyncPod's steps and what a failure leaves for undoing, on the shared fake engine
// (test/harness/fake-runtime.ts): pure logic only. The real engines are driven by test/commands/up.e2e.test.ts.

const identity: PodIdentity = { name: "web", namespace: "default", uid: "00000000-0000-0000-0000-000000000001" };

interface Script {
  failCreate?: string;
  failStart?: string;
  exitCodes?: Record<string, number>;
  execExit?: number;
  failVolume?: string;
  exited?: string;
  volumeRoot?: string;
}

function harness(script: Script = {}, failImage?: string) {
  const runtime = new FakeRuntime(script.volumeRoot !== undefined ? { volumeRoot: script.volumeRoot } : {});
  // The sandbox takes a while to start: containers are created meanwhile, none starts before it runs.
  runtime.delay("startSandbox", 20).on("startSandbox", () => runtime.note("sandbox running"));
  runtime.on("createContainer", (call) => {
    for (const mount of (call.args[0] as ContainerSpec).mounts ?? [])
      if (mount.source !== undefined)
        runtime.note(`bind ${mount.source} ${mount.target}${mount.readOnly ? " ro" : ""}`);
  });
  if (script.failCreate)
    runtime.failOn("createContainer", new Error("Conflict. The container name is already in use"), {
      subject: script.failCreate,
    });
  if (script.failStart)
    runtime.failOn("startContainer", new Error("OCI runtime create failed"), { subject: script.failStart });
  if (script.failVolume)
    runtime.failOn("createVolume", new Error("volume create failed: disk full"), { subject: script.failVolume });
  for (const [name, exitCode] of Object.entries(script.exitCodes ?? {}))
    runtime.script(name, { exitCode, logs: ["line 1", "boom"] });
  // A sidecar that exits at once: before its startup probe can pass.
  if (script.exited) runtime.script(script.exited, { exitCode: 1 });
  for (const name of ["a", "s"])
    runtime.script(name, { exec: () => ({ exitCode: script.execExit ?? 0, stdout: "", stderr: "token=hunter2" }) });
  const calls = runtime.calls;
  const events: string[] = [];
  const recorder = {
    event: (object: InvolvedObject, type: string, reason: string, message: string) => {
      events.push(`${object.fieldPath ?? "pod"} ${type} ${reason}: ${message}`);
      return undefined as never;
    },
  };
  // The image manager is not the engine's: a stub that "pulls" into the fake engine, or fails.
  const images = {
    ensureImageExists: async (request: EnsureImageRequest) => {
      runtime.note(`ensure ${request.image}`);
      if (request.image === failImage) {
        recorder.event(request.object, "Warning", "Failed", `Failed to pull image "${request.image}": not found`);
        throw new PodrunError("ErrImagePull", `Failed to pull image "${request.image}": not found`);
      }
      const ref = request.image.includes(":") ? request.image : `${request.image}:latest`;
      runtime.images.set(ref, { id: "sha256:x", size: 1 });
      return ref;
    },
  };
  const spec = (name: string) => runtime.specOf(name) as ContainerSpec;
  return { deps: { runtime, recorder, images }, runtime, calls, events, spec };
}

const pod = (spec: Partial<Pod["spec"]>): Pod =>
  defaultPod({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers: [], ...spec } });

t.test("sandbox, then init containers one at a time to completion, then app containers", async (t) => {
  // The sandbox starts while the first container is created; a start waits for it.
  const h = harness();
  const started = await startPod(h.deps, {
    pod: pod({
      initContainers: [
        { name: "i1", image: "busybox:1" },
        { name: "i2", image: "busybox:1" },
      ],
      containers: [
        { name: "a", image: "busybox" },
        { name: "b", image: "busybox:1" },
      ],
    }),
    identity,
    infraImage: "pause:3.10",
    publishAll: false,
  });
  t.ok(
    h.calls.indexOf("sandbox running") < h.calls.indexOf("startContainer i1"),
    "no container starts before its sandbox runs",
  );
  h.calls.splice(h.calls.indexOf("sandbox running"), 1);
  t.same(h.calls.slice(0, 13), [
    "inspectImages pause:3.10,busybox:1,busybox:latest",
    "ensure pause:3.10",
    "createSandbox default_web",
    "startSandbox default_web",
    "ensure busybox:1",
    "createContainer i1",
    "startContainer i1",
    "waitContainer i1",
    "ensure busybox:1",
    "createContainer i2",
    "startContainer i2",
    "waitContainer i2",
    "ensure busybox",
  ]);
  const { restartContainer, ...data } = started;
  t.type(restartContainer, "function", "a liveness failure's way to make a container anew");
  t.strictSame(data, {
    sandboxId: "sandbox-1",
    containerIds: ["id-1", "id-2", "id-3", "id-4"],
    containers: [
      { name: "i1", id: "id-1", kind: "init" },
      { name: "i2", id: "id-2", kind: "init" },
      { name: "a", id: "id-3", kind: "app" },
      { name: "b", id: "id-4", kind: "app" },
    ],
    initContainers: 2,
    appContainers: 2,
  });
  t.same(
    h.events.filter((e) => e.startsWith("spec.containers{a}")),
    [
      "spec.containers{a} Normal Created: Created container: a",
      "spec.containers{a} Normal Started: Started container a",
    ],
  );
});

t.test("a failing init container stops the pod before any app container, with its log", async (t) => {
  const h = harness({ exitCodes: { i1: 3 } });
  const error = await startPod(h.deps, {
    pod: pod({ initContainers: [{ name: "i1", image: "x:1" }], containers: [{ name: "a", image: "x:1" }] }),
    identity,
    infraImage: "pause:3.10",
    publishAll: false,
  }).catch((e: unknown) => e);
  t.type(error, StartPodError);
  const failure = error as StartPodError;
  t.equal(failure.reason, "InitContainerFailed");
  t.equal(failure.message, "init container i1 exited with code 3");
  t.match(failure.details, /boom/);
  t.same(failure.created, { sandbox: "default_web", containerIds: ["id-1"] });
  t.notOk(h.calls.some((c) => c === "createContainer a"));
});

t.test("app containers are independent: all are attempted, the first failure is reported", async (t) => {
  const h = harness({}, "broken:1");
  const error = (await startPod(h.deps, {
    pod: pod({
      containers: [
        { name: "a", image: "broken:1" },
        { name: "b", image: "ok:1" },
      ],
    }),
    identity,
    infraImage: "pause:3.10",
    publishAll: false,
  }).catch((e: unknown) => e)) as StartPodError;
  t.equal(error.reason, "ErrImagePull");
  t.equal(error.message, 'container a: Failed to pull image "broken:1": not found');
  t.ok(h.calls.includes("startContainer b"), "b still started");
  t.same(error.created.containerIds, ["id-1"], "b's container is recorded for undoing");
  t.same(
    h.events.filter((e) => e.startsWith("spec.containers{a}")),
    [
      'spec.containers{a} Warning Failed: Failed to pull image "broken:1": not found',
      "spec.containers{a} Warning Failed: Error: ErrImagePull",
    ],
  );
  await undoStart(h.deps.runtime, error.created);
  t.same(h.calls.slice(-2), ["removeContainers b", "removeSandbox default_web"]);
});

t.test("create and start failures carry the kubelet's reasons", async (t) => {
  for (const [script, reason] of [
    [{ failCreate: "a" }, "CreateContainerError"],
    [{ failStart: "a" }, "RunContainerError"],
  ] as const) {
    const h = harness(script);
    const error = (await startPod(h.deps, {
      pod: pod({ containers: [{ name: "a", image: "x:1" }] }),
      identity,
      infraImage: "p:1",
      publishAll: false,
    }).catch((e: unknown) => e)) as StartPodError;
    t.equal(error.reason, reason);
    t.match(h.events.at(-1), /Warning Failed: Error: /);
  }
});

t.test("a failing postStart hook: FailedPostStartHook, Killing, no hook output anywhere", async (t) => {
  const h = harness({ execExit: 2 });
  const error = (await startPod(h.deps, {
    pod: pod({ containers: [{ name: "a", image: "x:1", lifecycle: { postStart: { exec: { command: ["false"] } } } }] }),
    identity,
    infraImage: "p:1",
    publishAll: false,
  }).catch((e: unknown) => e)) as StartPodError;
  t.equal(error.reason, "PostStartHookError");
  t.same(h.events.filter((e) => e.startsWith("spec.containers{a}")).slice(-2), [
    "spec.containers{a} Warning FailedPostStartHook: PostStartHook failed",
    "spec.containers{a} Normal Killing: FailedPostStartHook",
  ]);
  t.ok(h.calls.includes("stopContainer a 0"));
  t.notMatch(JSON.stringify(h.events) + error.message, "hunter2");
});

t.test(
  "a postStart hook whose exec the engine ends in an error after the hook ran: its output still goes nowhere",
  async (t) => {
    const h = harness();
    // podman may print the hook's own stderr, then an error of its own, and exit 125.
    const cliFailure = explainedAsDocker(
      new CommandError({
        shortMessage: "Command failed with exit code 125: podman exec a sh",
        binary: "podman",
        args: ["exec"],
        exitCode: 125,
        stdout: "",
        stderr: "token=hunter2\nError: exec session exited with an error",
      }),
    );
    h.runtime.script("a", { exec: () => Promise.reject(cliFailure) });
    const error = (await startPod(h.deps, {
      pod: pod({ containers: [{ name: "a", image: "x:1", lifecycle: { postStart: { exec: { command: ["sh"] } } } }] }),
      identity,
      infraImage: "p:1",
      publishAll: false,
    }).catch((e: unknown) => e)) as StartPodError;
    t.equal(error.reason, "PostStartHookError");
    t.match(error.message, /postStart hook failed: exec hook failed in the engine: docker exec exited with code 125/);
    t.notMatch(JSON.stringify(h.events) + error.message, "hunter2");
  },
);

t.test(
  "a postStart hook gets at least 30 s, whatever a short grace period says; one that runs out is told as such",
  async (t) => {
    const h = harness();
    let given: number | undefined;
    // A timed-out podman exec may itself exit 0 once signalled: the timeout, not the code, is the story.
    const timedOut = explainedAsDocker(
      new CommandError({
        shortMessage: "Command timed out",
        binary: "podman",
        args: ["exec"],
        exitCode: 0,
        stdout: "",
        stderr: "",
        timedOut: true,
      }),
    );
    h.runtime.script("a", { exec: () => Promise.reject(timedOut) });
    const exec = h.runtime.execInContainer.bind(h.runtime);
    h.runtime.execInContainer = (id, command, options) => ((given = options?.timeoutMs), exec(id, command, options));
    const error = (await startPod(h.deps, {
      pod: pod({
        terminationGracePeriodSeconds: 1,
        containers: [{ name: "a", image: "x:1", lifecycle: { postStart: { exec: { command: ["sh"] } } } }],
      }),
      identity,
      infraImage: "p:1",
      publishAll: false,
    }).catch((e: unknown) => e)) as StartPodError;
    t.equal(given, 30_000);
    t.match(error.message, /postStart hook failed: exec hook did not finish within 30s$/);
  },
);

t.test("hostNetwork: no sandbox, no infra image", async (t) => {
  const h = harness();
  const started = await startPod(h.deps, {
    pod: pod({ hostNetwork: true, containers: [{ name: "a", image: "x:1" }] }),
    identity,
    infraImage: "p:1",
    publishAll: false,
  });
  t.equal(started.sandboxId, undefined);
  t.notOk(h.calls.some((c) => c.startsWith("createSandbox") || c === "ensure p:1"));
});

t.test("emptyDir volumes: made empty before any container is created, removed by undo", async (t) => {
  const h = harness({ exitCodes: { i1: 1 } });
  const error = (await startPod(h.deps, {
    pod: pod({
      volumes: [
        { name: "data", emptyDir: {} },
        { name: "unused", emptyDir: {} },
        { name: "mem", emptyDir: { medium: "Memory" } },
      ],
      initContainers: [{ name: "i1", image: "x:1", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
      containers: [
        {
          name: "a",
          image: "x:1",
          volumeMounts: [
            { name: "data", mountPath: "/data" },
            { name: "mem", mountPath: "/mem" },
          ],
        },
      ],
    }),
    identity,
    infraImage: "p:1",
    publishAll: false,
  }).catch((e: unknown) => e)) as StartPodError;
  // A mounted disk emptyDir only: an unmounted one is not made, a single-mount Memory one is a tmpfs.
  t.ok(
    h.calls.indexOf("removeVolumes default_web_data") < h.calls.indexOf("createVolume default_web_data"),
    "a leftover is removed first",
  );
  t.ok(
    h.calls.indexOf("createVolume default_web_data") < h.calls.indexOf("createContainer i1"),
    "the volume exists before the first create",
  );
  t.notOk(h.calls.some((c) => c.includes("unused") || c.includes("default_web_mem")));
  t.same(error.created.volumes, ["default_web_data"]);
  await undoStart(h.deps.runtime, error.created);
  t.same(
    h.calls.slice(-3),
    ["removeContainers i1", "removeSandbox default_web", "removeVolumes default_web_data"],
    "volumes last, once nothing uses them",
  );
});

t.test("a volume that cannot be made: FailedMount, no container created", async (t) => {
  const h = harness({ failVolume: "default_web_data" });
  const error = (await startPod(h.deps, {
    pod: pod({
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [{ name: "a", image: "x:1", volumeMounts: [{ name: "data", mountPath: "/d" }] }],
    }),
    identity,
    infraImage: "p:1",
    publishAll: false,
  }).catch((e: unknown) => e)) as StartPodError;
  t.equal(error.reason, "FailedMount");
  t.match(error.message, 'MountVolume.SetUp failed for volume "data" : volume create failed: disk full');
  t.ok(
    h.events.includes(
      'pod Warning FailedMount: MountVolume.SetUp failed for volume "data" : volume create failed: disk full',
    ),
  );
  t.notOk(h.calls.includes("createContainer a"));
  t.same(error.created.volumes, ["default_web_data"], "undo removes what may have been made");
});

t.test("a sidecar is started in init order and not waited for; it runs under restart policy always", async (t) => {
  const h = harness();
  const started = await startPod(h.deps, {
    pod: pod({
      restartPolicy: "Never",
      initContainers: [
        { name: "i1", image: "x:1" },
        { name: "s", image: "x:1", restartPolicy: "Always" },
        { name: "i2", image: "x:1" },
      ],
      containers: [{ name: "a", image: "x:1" }],
    }),
    identity,
    infraImage: "p:1",
    publishAll: false,
  });
  const steps = h.calls.filter((c) => /^(createContainer|startContainer|waitContainer) /.test(c));
  t.same(steps, [
    "createContainer i1",
    "startContainer i1",
    "waitContainer i1",
    "createContainer s",
    "startContainer s",
    "createContainer i2",
    "startContainer i2",
    "waitContainer i2",
    "createContainer a",
    "startContainer a",
  ]);
  t.same(
    started.containers.map((c) => `${c.name}:${c.kind}`),
    ["i1:init", "s:sidecar", "i2:init", "a:app"],
  );
  t.equal(started.initContainers, 2);
  t.equal(started.sidecars, 1);
  t.equal(h.spec("s").restartPolicy, "always", "sidecars always restart, whatever the pod's policy");
  t.equal(h.spec("s").labels["io.podrun.container.kind"], "sidecar");
  t.equal(h.spec("a").restartPolicy, "no");
  t.same(
    h.events.filter((e) => e.includes("{s}")),
    [
      "spec.initContainers{s} Normal Created: Created container: s",
      "spec.initContainers{s} Normal Started: Started container s",
    ],
  );
});

t.test("the next init container waits for the sidecar's startup probe", async (t) => {
  const h = harness();
  const probe = { exec: { command: ["true"] }, periodSeconds: 1, failureThreshold: 1 };
  await startPod(h.deps, {
    pod: pod({
      initContainers: [
        { name: "s", image: "x:1", restartPolicy: "Always", startupProbe: probe },
        { name: "i2", image: "x:1" },
      ],
      containers: [{ name: "a", image: "x:1" }],
    }),
    identity,
    infraImage: "p:1",
    publishAll: false,
  });
  const steps = h.calls.filter((c) => /^(createContainer|startContainer|execInContainer) /.test(c));
  t.same(
    steps.slice(0, 4),
    ["createContainer s", "startContainer s", "execInContainer s true", "createContainer i2"],
    "probed before the next init container is created",
  );
});

t.test("a sidecar that fails its startup probe fails the pod like a failing init container", async (t) => {
  const h = harness({ execExit: 1 });
  const probe = { exec: { command: ["false"] }, periodSeconds: 1, failureThreshold: 1 };
  const error = (await startPod(h.deps, {
    pod: pod({
      initContainers: [
        { name: "s", image: "x:1", restartPolicy: "Always", startupProbe: probe },
        { name: "i2", image: "x:1" },
      ],
      containers: [{ name: "a", image: "x:1" }],
    }),
    identity,
    infraImage: "p:1",
    publishAll: false,
  }).catch((e: unknown) => e)) as StartPodError;
  t.type(error, StartPodError);
  t.equal(error.reason, "StartupProbeFailed");
  t.match(error.message, /container s failed its startup probe 1 times/);
  t.same(error.created.containerIds, ["id-1"], "the sidecar is undone with the rest");
  t.notOk(h.calls.includes("createContainer i2"));
  t.ok(
    h.events.some((e) => e.startsWith("spec.initContainers{s} Warning Unhealthy: Startup probe failed")),
    "the probe's event names the init container",
  );
});

t.test("a sidecar that exits before its startup probe passed fails the pod", async (t) => {
  const h = harness({ exited: "s" });
  const probe = { exec: { command: ["true"] }, initialDelaySeconds: 5, periodSeconds: 1 };
  const error = (await startPod(h.deps, {
    pod: pod({
      initContainers: [{ name: "s", image: "x:1", restartPolicy: "Always", startupProbe: probe }],
      containers: [{ name: "a", image: "x:1" }],
    }),
    identity,
    infraImage: "p:1",
    publishAll: false,
  }).catch((e: unknown) => e)) as StartPodError;
  t.equal(error.reason, "ContainerTerminated");
  t.equal(error.message, "container s exited with code 1 before its startup probe passed");
  t.notOk(h.calls.includes("createContainer a"));
});

t.test("dry run: a sidecar's startup probe is not run", async (t) => {
  const h = harness();
  const probe = { exec: { command: ["true"] }, periodSeconds: 1 };
  const manifest = pod({
    initContainers: [{ name: "s", image: "x:1", restartPolicy: "Always", startupProbe: probe }],
    containers: [{ name: "a", image: "x:1" }],
  });
  await startPod(h.deps, {
    pod: manifest,
    identity,
    infraImage: "p:1",
    publishAll: false,
    plan: planStart({ pod: manifest, runHooks: false }),
  });
  t.notOk(h.calls.some((c) => c.startsWith("execInContainer s")));
});

t.test(
  "file volumes: written in the pod directory before anything is created, bound read-only; undo removes the directory",
  async (t) => {
    const stateDir = await mkdtemp(join(tmpdir(), "podrun-state-"));
    t.teardown(() => rm(stateDir, { recursive: true, force: true }));
    const engineDir = join(stateDir, "engine");
    const h = harness({ failStart: "a", volumeRoot: engineDir });
    const error = (await startPod(h.deps, {
      pod: pod({
        volumes: [
          { name: "conf", configMap: { name: "cfg" } },
          { name: "data", emptyDir: {} },
        ],
        containers: [
          {
            name: "a",
            image: "x:1",
            env: [{ name: "DIR", value: "logs" }],
            volumeMounts: [
              { name: "conf", mountPath: "/etc/conf" },
              { name: "conf", mountPath: "/etc/one.txt", subPath: "one" },
              { name: "data", mountPath: "/logs", subPathExpr: "$(DIR)" },
            ],
          },
        ],
      }),
      objects: { configMaps: [{ metadata: { name: "cfg" }, data: { one: "1" } }], secrets: [] },
      identity,
      infraImage: "p:1",
      publishAll: false,
      stateDir,
    }).catch((e: unknown) => e)) as StartPodError;
    const podDir = join(stateDir, "pods", "docker", "default_web");
    t.equal(error.created.podDir, podDir);
    t.equal(await readFile(join(podDir, "volumes/conf/one"), "utf8"), "1");
    t.equal((await stat(podDir)).mode & 0o777, 0o700, "the pod directory is private");
    t.equal((await stat(join(stateDir, "pods"))).mode & 0o777, 0o700);
    t.same(
      h.calls.filter((c) => c.startsWith("bind") || c.startsWith("inspectVolume")),
      [
        "inspectVolumeMountpoint default_web_data",
        `bind ${podDir}/volumes/conf /etc/conf ro`,
        `bind ${podDir}/volumes/conf/one /etc/one.txt ro`,
        `bind ${engineDir}/default_web_data/logs /logs`,
        // Every container's termination message file (lib/pod/volumes/termination-log.ts).
        `bind ${podDir}/containers/a/termination-log /dev/termination-log`,
        `bind ${podDir}/etc-hosts /etc/hosts`,
      ],
    );
    await undoStart(h.deps.runtime, error.created);
    t.notOk(existsSync(podDir), "undo removes the pod directory");
  },
);

t.test("a hostPath type check or a missing ConfigMap fails the pod before anything is made: FailedMount", async (t) => {
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-state-"));
  t.teardown(() => rm(stateDir, { recursive: true, force: true }));
  for (const [volume, message] of [
    [
      { name: "h", hostPath: { path: "/dev/null", type: "Directory" } },
      'MountVolume.SetUp failed for volume "h" : hostPath type check failed: /dev/null is not a directory, it\'s a CharDevice',
    ],
    [
      { name: "c", configMap: { name: "absent" } },
      'MountVolume.SetUp failed for volume "c" : configmap "absent" not found',
    ],
  ] as const) {
    const h = harness();
    const error = (await startPod(h.deps, {
      pod: pod({
        volumes: [{ name: "conf", configMap: { name: "cfg" } }, volume],
        containers: [{ name: "a", image: "x:1" }],
      }),
      objects: { configMaps: [{ metadata: { name: "cfg" }, data: { one: "1" } }], secrets: [] },
      identity,
      infraImage: "p:1",
      publishAll: false,
      stateDir,
    }).catch((e: unknown) => e)) as StartPodError;
    t.equal(error.reason, "FailedMount");
    t.equal(error.message, message);
    t.same(h.events, [`pod Warning FailedMount: ${message}`]);
    t.same(
      h.calls.filter((c) => !c.startsWith("inspectImages")),
      [],
      "no engine call but the image inspect",
    );
    t.same(error.created, { containerIds: [] });
    t.notOk(existsSync(join(stateDir, "pods", "docker", "default_web")), "no pod directory left");
  }
});

t.test(
  "pull credentials: a container's image gets the pod's secrets then the auth file; the sandbox image only the auth file",
  async (t) => {
    const h = harness();
    const asked = new Map<string, string[]>();
    const ensure = h.deps.images.ensureImageExists;
    h.deps.images.ensureImageExists = async (request: EnsureImageRequest) => {
      asked.set(
        request.image,
        (request.pullCredentials?.() ?? []).map((c) => `${c.username} from ${c.source}`),
      );
      return ensure(request);
    };
    const dir = await mkdtemp(join(tmpdir(), "podrun-test-authfile-"));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, "auth.json");
    const b64 = (text: string) => Buffer.from(text).toString("base64");
    await writeFile(file, JSON.stringify({ auths: { "registry.example.com": { auth: b64("fromfile:p1") } } }), {
      mode: 0o600,
    });
    const secret = {
      metadata: { name: "regcred", namespace: "default" },
      type: "kubernetes.io/dockerconfigjson",
      stringData: {
        ".dockerconfigjson": JSON.stringify({ auths: { "registry.example.com": { auth: b64("fromsecret:p2") } } }),
      },
    };
    await startPod(h.deps, {
      pod: pod({
        imagePullSecrets: [{ name: "regcred" }],
        containers: [{ name: "a", image: "registry.example.com/app:1" }],
      }),
      objects: { configMaps: [], secrets: [secret] },
      authFile: await readAuthFile(file),
      identity,
      infraImage: "registry.example.com/pause:3.10",
      publishAll: false,
    });
    t.same(asked.get("registry.example.com/app:1"), [
      'fromsecret from secret "regcred"',
      `fromfile from --authfile ${file}`,
    ]);
    t.same(asked.get("registry.example.com/pause:3.10"), [`fromfile from --authfile ${file}`]);
  },
);

t.test(
  "the pod's /etc/hosts: mounted into every container, its IP line written once the sandbox runs and before any container starts",
  async (t) => {
    const stateDir = await mkdtemp(join(tmpdir(), "podrun-state-"));
    t.teardown(() => rm(stateDir, { recursive: true, force: true }));
    const h = harness();
    const hostsFile = join(stateDir, "pods", "docker", "default_web", "etc-hosts");
    const seen: string[] = [];
    h.runtime.on(
      "startContainer",
      async () =>
        void seen.push(
          (await readFile(hostsFile, "utf8"))
            .split("\n")
            .filter((line) => line.includes("shop"))
            .join(),
        ),
    );
    const started = await startPod(h.deps, {
      pod: pod({
        hostname: "shop",
        subdomain: "sub",
        initContainers: [{ name: "i", image: "x:1" }],
        containers: [{ name: "a", image: "x:1" }],
      }),
      identity,
      infraImage: "p:1",
      publishAll: false,
      stateDir,
    });
    const ip = (await h.runtime.inspectContainers([started.sandboxId!]))[0]!.ip;
    t.match(ip, /^10\.88\./);
    t.same(
      seen,
      [`${ip}\tshop.sub.default.svc.cluster.local\tshop`, `${ip}\tshop.sub.default.svc.cluster.local\tshop`],
      "init and app containers start with the pod's line there",
    );
    t.same(
      h.calls.filter((c) => c.startsWith("bind") && c.endsWith(" /etc/hosts")),
      [`bind ${hostsFile} /etc/hosts`, `bind ${hostsFile} /etc/hosts`],
      "one mount per container",
    );
  },
);

t.test(
  "restartContainer (a liveness failure): the container made anew in the pod, as a start, labelled with its restart count",
  async (t) => {
    const h = harness();
    const hook = { postStart: { exec: { command: ["warm-up"] } } };
    const started = await startPod(h.deps, {
      pod: pod({
        initContainers: [{ name: "s", image: "busybox", restartPolicy: "Always" }],
        containers: [{ name: "a", image: "busybox", lifecycle: hook }],
      }),
      identity,
      infraImage: "pause",
      publishAll: false,
    });
    const first = h.spec("a");
    await h.runtime.removeContainers([started.containers.find((c) => c.name === "a")!.id]);
    const before = h.events.length;
    const id = await started.restartContainer!("a", 2);
    const spec = h.runtime.specOf(id) as ContainerSpec;
    t.equal(spec.labels["io.kubernetes.container.restartCount"], "2");
    t.same(
      { ...spec, labels: { ...spec.labels, "io.kubernetes.container.restartCount": undefined } },
      { ...first, labels: { ...first.labels, "io.kubernetes.container.restartCount": undefined } },
      "the same spec, hashes included: `up` again keeps it",
    );
    t.equal(spec.sandbox, first.sandbox);
    t.same(h.events.slice(before), [
      "spec.containers{a} Normal Created: Created container: a",
      "spec.containers{a} Normal Started: Started container a",
    ]);
    t.ok(h.calls.includes("execInContainer a warm-up"), "postStart runs as on a start");
    await h.runtime.removeContainers([started.containers.find((c) => c.name === "s")!.id]);
    const sidecar = await started.restartContainer!("s", 1);
    t.equal((h.runtime.specOf(sidecar) as ContainerSpec).labels["io.podrun.container.kind"], "sidecar");
  },
);
