import type { Pod } from "kubernetes-types/core/v1.js";
import { join } from "node:path";
import t from "tap";
import type { InvolvedObject } from "../../../lib/events/types.js";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import type { PodRecord } from "../../../lib/pod/status/find-pods.js";
import { planStop, resolveGracePeriod, stopPod } from "../../../lib/pod/stop/stop-pod.js";
import { CommandError } from "../../../lib/runtime/exec.js";
import type { ContainerState } from "../../../lib/runtime/types.js";
import { FakeRuntime, explainedAsDocker } from "../../harness/fake-runtime.js";

// The order and the failure handling of `down` for one pod, on the shared fake engine with a fake clock:
// pure logic only. test/commands/down.e2e.test.ts drives the real engines.

const state = (
  name: string,
  kind: "init" | "sidecar" | "app" | "infra",
  options: { running?: boolean; createdAt?: string; labels?: Record<string, string>; ip?: string } = {},
): ContainerState => ({
  id: `id-${name}`,
  name: `default_web_${name}`,
  status: options.running === false ? "exited" : "running",
  running: options.running !== false,
  exitCode: 0,
  startedAt: "",
  finishedAt: "",
  createdAt: options.createdAt ?? "",
  restartCount: 0,
  ...(options.ip ? { ip: options.ip } : {}),
  labels: { "io.kubernetes.container.name": name, "io.podrun.container.kind": kind, ...options.labels },
  image: "busybox:1",
});

const record = (overrides: Partial<PodRecord> = {}): PodRecord => ({
  name: "web",
  namespace: "default",
  uid: "uid-1",
  infra: state("POD", "infra", { ip: "10.0.0.2" }),
  initContainers: [state("i1", "init", { running: false }), state("i2", "init", { running: false })],
  appContainers: [state("a", "app"), state("b", "app")],
  ...overrides,
});

const manifest = (spec: Partial<Pod["spec"]>): Pod =>
  defaultPod({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers: [], ...spec } });

function harness(
  script: {
    failStop?: string;
    failRemove?: string;
    failBulkVolumes?: boolean;
    failVolume?: string;
    execExit?: number;
    execMs?: number;
  } = {},
) {
  const events: string[] = [];
  let now = 1_000_000;
  const runtime = new FakeRuntime();
  const fail = (message: string) =>
    explainedAsDocker(
      new CommandError({
        shortMessage: "failed",
        binary: "docker",
        args: [],
        exitCode: 1,
        stdout: "",
        stderr: `Error response from daemon: ${message}`,
      }),
    );
  // A preStop hook takes execMs of the fake clock, and answers with execExit.
  runtime.on("execInContainer", () => void (now += script.execMs ?? 0));
  if (script.failStop)
    runtime.failOn("stopContainer", fail("cannot stop container: permission denied"), { subject: script.failStop });
  if (script.failRemove)
    runtime.failOn("removeContainers", fail(`removal of container ${script.failRemove} is already in progress`), {
      subject: script.failRemove,
    });
  if (script.failBulkVolumes)
    runtime.on("removeVolumes", (call) => {
      if ((call.args[0] as string[]).length > 1) throw fail("volume is in use");
    });
  if (script.failVolume)
    runtime.failOn("removeVolumes", fail(`remove ${script.failVolume}: volume is in use`), {
      subject: script.failVolume,
    });
  const recorder = {
    event: (object: InvolvedObject, type: string, reason: string, message: string) => {
      events.push(`${object.fieldPath ?? "pod"} ${type} ${reason}: ${message}`);
      runtime.note(`event ${reason} ${object.fieldPath ?? "pod"}`);
      return undefined as never;
    },
  };
  const deps = { runtime, recorder, clock: () => now };
  /** stopPod on the fake engine, which holds the pod's containers first, as `down` finds them. */
  const stop = (options: Parameters<typeof stopPod>[1], extra: Partial<typeof deps> = {}) => {
    for (const state of [options.pod.infra, ...options.pod.initContainers, ...options.pod.appContainers]) {
      if (!state) continue;
      const name = state.labels["io.kubernetes.container.name"]!;
      runtime.script(name, { exec: () => ({ exitCode: script.execExit ?? 0, stdout: "", stderr: "token=hunter2" }) });
      runtime.addContainer({
        id: state.id,
        name: state.name,
        labels: state.labels,
        running: state.running,
        createdAt: state.createdAt,
        ...(state.ip ? { ip: state.ip } : {}),
      });
    }
    return stopPod({ ...deps, ...extra }, options);
  };
  return { deps, stop, calls: runtime.calls, events };
}

const volumes = [
  { name: "default_web_data", labels: {} },
  { name: "default_web_cache", labels: {} },
];

t.test("plan: app containers before init containers, each newest first; only running ones are stopped", async (t) => {
  const pod = record({
    initContainers: [state("i1", "init", { running: false }), state("i2", "init")],
    appContainers: [state("a", "app"), state("b", "app", { running: false }), state("c", "app")],
  });
  const plan = planStop(pod);
  t.same(
    plan.apps.map((c) => c.id),
    ["id-c", "id-a"],
  );
  t.same(
    plan.inits.map((c) => c.id),
    ["id-i2"],
  );
  t.same(
    plan.removal.map((c) => c.id),
    ["id-c", "id-b", "id-a", "id-i2", "id-i1"],
  );
});

t.test("grace period: --grace-period, else the manifest, else the label, else 30 s", async (t) => {
  const labelled = record({
    appContainers: [state("a", "app", { labels: { "io.kubernetes.pod.terminationGracePeriod": "7" } })],
  });
  t.equal(resolveGracePeriod(labelled, manifest({ terminationGracePeriodSeconds: 4 }), 0), 0);
  t.equal(resolveGracePeriod(labelled, manifest({ terminationGracePeriodSeconds: 4 }), undefined), 4);
  t.equal(resolveGracePeriod(labelled, undefined, undefined), 7);
  t.equal(resolveGracePeriod(record(), undefined, undefined), 30);
});

t.test("one pod: Killing, every preStop hook, every stop, then removal of containers, sandbox, volumes", async (t) => {
  const h = harness();
  const pod = record({
    appContainers: [
      state("a", "app", {
        labels: {
          "io.kubernetes.pod.terminationGracePeriod": "5",
          "io.kubernetes.container.preStopHandler": '{"exec":{"command":["sh","-c","drain a"]}}',
        },
      }),
      state("b", "app", { labels: { "io.kubernetes.container.preStopHandler": '{"exec":{"command":["drain","b"]}}' } }),
    ],
  });
  const result = await h.stop({ pod, volumes });
  t.same(result, { containers: 4, volumes: 2, failures: [], hookFailures: [] });
  const hooks = h.calls.filter((c) => c.startsWith("exec")).sort();
  t.same(
    hooks,
    ["execInContainer a sh -c drain a", "execInContainer b drain b"],
    "each hook from its container's label",
  );
  const last = (prefix: string) => Math.max(...h.calls.map((c, i) => (c.startsWith(prefix) ? i : -1)));
  const first = (prefix: string) => h.calls.findIndex((c) => c.startsWith(prefix));
  t.ok(last("event Killing") < first("exec"), "Killing first, as the kubelet records it before the hook");
  t.ok(last("exec") < first("stop"), "no container is stopped before every hook has run");
  t.same(
    h.calls.filter((c) => c.startsWith("stop")).sort(),
    ["stopContainer a 5", "stopContainer b 5"],
    "the pod's grace period, from the label",
  );
  t.same(h.calls.slice(-3), [
    "removeContainers b,a,i2,i1",
    "removeSandbox default_web",
    "removeVolumes default_web_data,default_web_cache",
  ]);
  t.same(h.events.filter((e) => e.includes("Killing")).sort(), [
    "spec.containers{a} Normal Killing: Stopping container a",
    "spec.containers{b} Normal Killing: Stopping container b",
  ]);
  t.notOk(
    h.calls.some((c) => c.startsWith("stopContainer i")),
    "exited init containers are only removed",
  );
});

t.test(
  "the manifest's hook and grace period come first; the grace period is one deadline for hooks and stops",
  async (t) => {
    const h = harness({ execMs: 4_000 });
    const pod = record({
      appContainers: [
        state("a", "app", {
          labels: { "io.kubernetes.container.preStopHandler": '{"exec":{"command":["from-label"]}}' },
        }),
      ],
    });
    await h.stop({
      pod,
      volumes: [],
      manifest: manifest({
        terminationGracePeriodSeconds: 10,
        containers: [{ name: "a", image: "x:1", lifecycle: { preStop: { exec: { command: ["from-manifest"] } } } }],
      }),
    });
    t.ok(h.calls.includes("execInContainer a from-manifest"));
    t.ok(h.calls.includes("stopContainer a 6"), "10 s less the 4 s the hook took");

    const slow = harness({ execMs: 9_000 });
    await slow.stop({
      pod: record(),
      volumes: [],
      manifest: manifest({
        terminationGracePeriodSeconds: 10,
        containers: [{ name: "a", image: "x:1", lifecycle: { preStop: { exec: { command: ["x"] } } } }],
      }),
    });
    t.ok(slow.calls.includes("stopContainer a 2"), "never less than the kubelet's 2 s minimum");
    t.ok(slow.calls.includes("stopContainer b 2"), "b shares the pod's deadline");
  },
);

t.test("--grace-period 0: no preStop hook, killed at once by the removal itself (no stop)", async (t) => {
  const h = harness();
  const pod = record({
    appContainers: [
      state("a", "app", { labels: { "io.kubernetes.container.preStopHandler": '{"exec":{"command":["x"]}}' } }),
    ],
  });
  await h.stop({ pod, volumes: [], gracePeriodOverride: 0 });
  t.notOk(h.calls.some((c) => c.startsWith("exec")));
  t.notOk(
    h.calls.some((c) => c.startsWith("stopContainer")),
    "rm -f kills: no stop first",
  );
  t.ok(h.calls.some((c) => c.startsWith("removeContainers a")));
  t.ok(
    h.calls.some((c) => c === "event Killing spec.containers{a}"),
    "Killing all the same",
  );
});

t.test("--grace-period 0 for a pod kept stopped (activeDeadlineSeconds): stopped, not removed", async (t) => {
  const h = harness();
  await h.stop({
    pod: record({ appContainers: [state("a", "app")] }),
    volumes: [],
    gracePeriodOverride: 0,
    keepStopped: true,
  });
  t.ok(h.calls.includes("stopContainer a 0"));
  t.notOk(h.calls.some((c) => c.startsWith("removeContainers")));
});

t.test(
  "a failing preStop hook: FailedPreStopHook with the kubelet's text, the container is stopped anyway",
  async (t) => {
    const h = harness({ execExit: 3 });
    const pod = record({
      appContainers: [
        state("a", "app", { labels: { "io.kubernetes.container.preStopHandler": '{"exec":{"command":["x"]}}' } }),
      ],
    });
    const result = await h.stop({ pod, volumes: [] });
    t.same(result.hookFailures, [{ container: "a", message: "exec hook exited with code 3" }]);
    t.ok(h.events.includes("spec.containers{a} Warning FailedPreStopHook: PreStopHook failed"));
    t.ok(h.calls.some((c) => c.startsWith("stopContainer a")));
    t.same(result.failures, [], "a hook failure does not fail the deletion, as on a node");
    t.notMatch(JSON.stringify(h.events), "hunter2", "the hook's output is in no event");
  },
);

t.test("a failure on one container does not stop the others; each is reported", async (t) => {
  const h = harness({ failStop: "b", failRemove: "a" });
  const result = await h.stop({ pod: record(), volumes });
  t.same(h.calls.filter((c) => c.startsWith("stop")).sort(), ["stopContainer a 30", "stopContainer b 30"]);
  // The bulk removal failed: one call per container then says which one.
  t.same(
    h.calls.filter((c) => c.startsWith("removeContainers ")),
    [
      "removeContainers b,a,i2,i1",
      "removeContainers b",
      "removeContainers a",
      "removeContainers i2",
      "removeContainers i1",
    ],
  );
  t.equal(result.containers, 3, "b, i2 and i1 were removed");
  t.same(result.failures, [
    { object: "b", step: "stop", message: "cannot stop container: permission denied" },
    { object: "a", step: "remove", message: "removal of container a is already in progress" },
  ]);
  t.ok(h.calls.includes("removeSandbox default_web"), "the sandbox is still removed");
  t.equal(result.volumes, 2, "and the volumes");
});

t.test("a volume in use: the others are still removed, the one in use is named", async (t) => {
  const h = harness({ failBulkVolumes: true, failVolume: "default_web_cache" });
  const result = await h.stop({ pod: record({ appContainers: [], initContainers: [] }), volumes });
  t.equal(result.volumes, 1);
  t.same(result.failures, [
    { object: "volume default_web_cache", step: "remove", message: "remove default_web_cache: volume is in use" },
  ]);
});

t.test("a pod of which only volumes are left (a killed run): the volumes go, nothing else is called", async (t) => {
  const h = harness();
  const result = await h.stop({
    pod: { name: "web", namespace: "default", uid: "", initContainers: [], appContainers: [] },
    volumes: volumes.slice(0, 1),
  });
  t.same(result, { containers: 0, volumes: 1, failures: [], hookFailures: [] });
  t.same(h.calls, ["removeVolumes default_web_data"]);
});

t.test("a sleep hook is cut to what is left of the grace period", async (t) => {
  const h = harness();
  const pod = record({
    appContainers: [
      state("a", "app", { labels: { "io.kubernetes.container.preStopHandler": '{"sleep":{"seconds":600}}' } }),
    ],
  });
  const started = Date.now();
  await h.stop({ pod, volumes: [], gracePeriodOverride: 1 }, { clock: Date.now });
  t.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
  t.ok(h.calls.includes("stopContainer a 0") || h.calls.includes("stopContainer a 1"));
});

t.test(
  "sidecars: stopped after every app container, in reverse init order; their preStop hooks start with the apps'",
  async (t) => {
    const h = harness();
    const hook = (command: string) => ({
      "io.kubernetes.container.preStopHandler": JSON.stringify({ exec: { command: [command] } }),
      "io.kubernetes.pod.terminationGracePeriod": "5",
    });
    const pod = record({
      initContainers: [
        state("i1", "init", { running: false }),
        state("s1", "sidecar", { labels: hook("drain-s1") }),
        state("s2", "sidecar"),
      ],
      appContainers: [state("a", "app", { labels: hook("drain-a") }), state("b", "app")],
    });
    const plan = planStop(pod);
    t.same(
      plan.sidecars.map((c) => c.id),
      ["id-s2", "id-s1"],
    );
    t.same(plan.inits, [], "the exited init container is only removed");
    const result = await h.stop({ pod, volumes: [] });
    t.same(result.failures, []);
    t.same(
      h.calls.filter((c) => c.startsWith("stop")),
      ["stopContainer b 5", "stopContainer a 5", "stopContainer s2 5", "stopContainer s1 5"],
    );
    const at = (call: string) => h.calls.indexOf(call);
    t.ok(
      at("execInContainer s1 drain-s1") < at("stopContainer b 5"),
      "the sidecar's hook does not wait for the apps (the kubelet's rule)",
    );
    t.ok(at("execInContainer a drain-a") < at("stopContainer b 5"));
    t.same(
      h.events.filter((e) => e.includes("Killing")),
      [
        "spec.containers{b} Normal Killing: Stopping container b",
        "spec.containers{a} Normal Killing: Stopping container a",
        "spec.initContainers{s2} Normal Killing: Stopping container s2",
        "spec.initContainers{s1} Normal Killing: Stopping container s1",
      ],
    );
    t.equal(
      h.calls.find((c) => c.startsWith("removeContainers ")),
      "removeContainers b,a,s2,s1,i1",
    );
  },
);

t.test("a sidecar's preStop hook comes from the manifest's init container when `down` has the file", async (t) => {
  const h = harness();
  const pod = record({ initContainers: [state("s", "sidecar")], appContainers: [state("a", "app")] });
  await h.stop({
    pod,
    volumes: [],
    manifest: manifest({
      terminationGracePeriodSeconds: 3,
      initContainers: [
        {
          name: "s",
          image: "x:1",
          restartPolicy: "Always",
          lifecycle: { preStop: { exec: { command: ["from-manifest"] } } },
        },
      ],
      containers: [{ name: "a", image: "x:1" }],
    }),
  });
  t.ok(h.calls.includes("execInContainer s from-manifest"));
  t.same(
    h.calls.filter((c) => c.startsWith("stop")),
    ["stopContainer a 3", "stopContainer s 3"],
  );
});

t.test("the pod directory goes last, with its volume files", async (t) => {
  const { mkdir, mkdtemp, rm, writeFile } = await import("node:fs/promises");
  const { existsSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const base = await mkdtemp(join(tmpdir(), "podrun-stop-"));
  t.teardown(() => rm(base, { recursive: true, force: true }));
  const podDir = join(base, "pods", "docker", "default_web");
  await mkdir(join(podDir, "volumes", "sec"), { recursive: true });
  await writeFile(join(podDir, "volumes", "sec", "password"), "x", { mode: 0o400 });
  const h = harness();
  const result = await h.stop({
    pod: record({ appContainers: [state("a", "app", { running: false })] }),
    volumes,
    podDir,
  });
  t.same(result.failures, []);
  t.notOk(existsSync(podDir));
  t.ok(existsSync(join(base, "pods", "docker")), "only the pod's own directory");
});
