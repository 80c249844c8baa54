import t, { type Test } from "tap";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PodrunError, StateAccessError, type Reason } from "../../lib/errors.js";
import { createRecorder } from "../../lib/events/recorder.js";
import { toInvolvedObject, type KubeEvent } from "../../lib/events/types.js";
import { createImageManager, type ImageManager } from "../../lib/images/manager.js";
import type { PullPolicy } from "../../lib/images/policy.js";
import { createImagePuller } from "../../lib/images/puller.js";
import { PullError, type PullErrorKind, type PullReason } from "../../lib/runtime/pull-errors.js";
import type { ImageInfo } from "../../lib/runtime/types.js";
import { FakeRuntime } from "../harness/fake-runtime.js";
import { readBackoffFile } from "../harness/state-files.js";
import { createFileBackoffStore, createMemoryBackoffStore, type BackoffStore } from "../../lib/state/backoff-store.js";
import { imagePullBackoffKey } from "../../lib/state/backoff.js";

// The image manager as timelines, as the kubelet's image_manager_test.go tests it: a fake clock in seconds, the shared
// fake engine (test/harness/fake-runtime.ts) that records calls and fails on cue, and per step the runtime calls, the thrown reason and the
// event reasons. Each step is a new `podrun up` (new manager, puller and recorder) sharing the
// back-off store, which is what persists between runs.

const POD = { name: "web", namespace: "default", uid: "uid-1" };
const BUSYBOX: ImageInfo = { id: "sha256:bb", size: 4_261_550 };

const pullError = (reason: PullReason, kind: PullErrorKind, image: string, message: string) =>
  new PullError(image, { reason, kind, message });
const notFound = (image: string) =>
  pullError("ErrImagePull", "not-found", image, `failed to pull and unpack image "${image}": not found`);

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}
function defer<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** What a pull does: take `ms` of fake time, then return the image or throw. Or wait for a deferred. */
type PullOutcome = { ms?: number; result: ImageInfo | Error };
type PullScript = (ref: string, attempt: number) => PullOutcome | Deferred<ImageInfo>;

function createWorld(
  options: {
    local?: Record<string, ImageInfo>;
    pull?: PullScript;
    store?: BackoffStore;
    maxParallel?: number;
    pullPolicyOverride?: "IfNotPresent" | "Never";
  } = {},
) {
  const clock = { now: 1_700_000_000_000 };
  const runtime = new FakeRuntime({
    images: options.local ?? {},
    // A pull takes `ms` of fake time, then the image or the error; or it waits for a deferred.
    pull: (ref, _options, attempt) => {
      const outcome = (options.pull ?? ((): PullOutcome => ({ result: BUSYBOX })))(ref, attempt);
      if ("promise" in outcome) return outcome.promise;
      clock.now += outcome.ms ?? 0;
      return outcome.result;
    },
  });
  const calls = runtime.calls;
  const store = options.store ?? createMemoryBackoffStore();

  /** One `podrun up`: a fresh manager, puller and recorder, as a new process would have. */
  const startRun = () => {
    const events: KubeEvent[] = [];
    const recorder = createRecorder({
      sinks: [{ write: (e) => events.push(e) }],
      clock: () => clock.now,
      host: "test",
    });
    const puller = createImagePuller({ runtime, clock: () => clock.now, maxParallel: options.maxParallel ?? 1 });
    const progress: string[] = [];
    const startProgress = (text: string) => (
      progress.push(`start ${text}`),
      { stop: () => void progress.push(`stop ${text}`) }
    );
    const manager = createImageManager({
      recorder,
      backoff: store,
      puller,
      clock: () => clock.now,
      startProgress,
      ...(options.pullPolicyOverride && { pullPolicyOverride: options.pullPolicyOverride }),
    });
    return { manager, events, progress };
  };

  /** What `podrun up` does for one container: one inspect for the pod, then EnsureImageExists. */
  const ensure = async (manager: ImageManager, image: string, policy: PullPolicy, container = "app") => {
    const ref = image.includes(":") || image.includes("@") ? image : `${image}:latest`;
    const present = await runtime.inspectImages([ref]);
    return manager.ensureImageExists({
      object: toInvolvedObject(POD, { name: container }),
      image,
      pullPolicy: policy,
      present,
    });
  };

  const backoffMs = (image: string) => store.update((state) => state.get(imagePullBackoffKey(POD, image), clock.now));

  return { clock, calls, runtime, store, startRun, ensure, backoffMs };
}

interface Step {
  /** Seconds of fake time before this step. */
  advance: number;
  calls: readonly string[];
  /** The PodrunError reason, or undefined for success. */
  reason?: Reason;
  events: readonly string[];
  /** The back-off period after the step, in seconds (undefined: no live entry). */
  backoff?: number;
}

async function runTimeline(
  t: Test,
  world: ReturnType<typeof createWorld>,
  image: string,
  policy: PullPolicy,
  steps: Step[],
) {
  let elapsed = 0;
  for (const [index, step] of steps.entries()) {
    world.clock.now += step.advance * 1000;
    elapsed += step.advance;
    world.calls.length = 0;
    const run = world.startRun();
    const outcome = await world.ensure(run.manager, image, policy).then(
      () => undefined,
      (error: unknown) => (error instanceof PodrunError ? error.reason : error),
    );
    const label = `step ${index} (t=${elapsed}s)`;
    t.same(world.calls, step.calls, `${label}: runtime calls`);
    t.equal(outcome, step.reason, `${label}: reason`);
    t.same(
      run.events.map((e) => e.reason),
      step.events,
      `${label}: events`,
    );
    if ("backoff" in step) {
      const ms = await world.backoffMs(image);
      t.equal(ms === undefined ? undefined : ms / 1000, step.backoff, `${label}: back-off`);
    }
  }
}

t.test("present image, IfNotPresent: no pull, Pulled 'already present'", async (t) => {
  const world = createWorld({ local: { "busybox:1.36": BUSYBOX } });
  const run = world.startRun();
  t.equal(await world.ensure(run.manager, "busybox:1.36", "IfNotPresent"), "busybox:1.36");
  t.same(world.calls, ["inspectImages busybox:1.36"]);
  t.same(
    run.events.map((e) => [e.type, e.reason, e.message]),
    [["Normal", "Pulled", 'Container image "busybox:1.36" already present on machine']],
  );
  t.equal(run.events[0]!.involvedObject.fieldPath, "spec.containers{app}");
  t.same(run.progress, [], "no spinner without a pull");
});

t.test(
  "absent image, IfNotPresent: Pulling, then Pulled with durations and size, quoting the image as written",
  async (t) => {
    const world = createWorld({ pull: () => ({ ms: 1234, result: BUSYBOX }) });
    const run = world.startRun();
    t.equal(await world.ensure(run.manager, "busybox", "IfNotPresent"), "busybox:latest", "returns the defaulted ref");
    t.same(world.calls, ["inspectImages busybox:latest", "pullImage busybox:latest"]);
    t.same(
      run.events.map((e) => [e.type, e.reason, e.message]),
      [
        ["Normal", "Pulling", 'Pulling image "busybox"'],
        [
          "Normal",
          "Pulled",
          'Successfully pulled image "busybox" in 1.234s (1.234s including waiting). Image size: 4261550 bytes.',
        ],
      ],
    );
    t.same(run.progress, ['start Pulling image "busybox"', 'stop Pulling image "busybox"']);
  },
);

t.test("Always pulls even when the image is present", async (t) => {
  const world = createWorld({ local: { "busybox:latest": BUSYBOX }, pull: () => ({ ms: 812, result: BUSYBOX }) });
  await runTimeline(t, world, "busybox", "Always", [
    { advance: 0, calls: ["inspectImages busybox:latest", "pullImage busybox:latest"], events: ["Pulling", "Pulled"] },
    { advance: 1, calls: ["inspectImages busybox:latest", "pullImage busybox:latest"], events: ["Pulling", "Pulled"] },
  ]);
});

t.test("--pull-policy: in place of each container's policy, and named in the events it decides", async (t) => {
  const present = createWorld({ local: { "app:latest": BUSYBOX }, pullPolicyOverride: "IfNotPresent" });
  const run = present.startRun();
  t.equal(await present.ensure(run.manager, "app", "Always"), "app:latest");
  t.notOk(
    present.calls.some((c) => c.startsWith("pullImage")),
    "no pull for an Always container",
  );
  t.same(
    run.events.map((e) => e.message),
    ['Container image "app" already present on machine (--pull-policy IfNotPresent)'],
  );
  const never = createWorld({ pullPolicyOverride: "Never" });
  const neverRun = never.startRun();
  const error = await never.ensure(neverRun.manager, "app:1", "IfNotPresent").catch((e: unknown) => e);
  t.equal(
    (error as PodrunError).message,
    'Container image "app:1" is not present with pull policy of Never (--pull-policy Never)',
  );
  const same = createWorld({ local: { "app:1": BUSYBOX }, pullPolicyOverride: "IfNotPresent" });
  const sameRun = same.startRun();
  await same.ensure(sameRun.manager, "app:1", "IfNotPresent");
  t.same(
    sameRun.events.map((e) => e.message),
    ['Container image "app:1" already present on machine'],
    "a policy the override does not change is not named",
  );
});

t.test("a failed Always pull of an image present here says so, why, and the three fixes", async (t) => {
  const hint = (why: string) =>
    `; the image is present on this machine, but ${why}: set imagePullPolicy: IfNotPresent, use a tag other than latest, or run up --pull-policy IfNotPresent`;
  const world = createWorld({
    local: { "app:latest": BUSYBOX, "app:ci": BUSYBOX },
    pull: (ref) => ({ result: notFound(ref) }),
  });
  const run = world.startRun();
  const error = (await world.ensure(run.manager, "app", "Always").catch((e: unknown) => e)) as PodrunError;
  const latest = hint("imagePullPolicy is Always (the default for an image tagged :latest or untagged)");
  t.equal(error.message, `failed to pull and unpack image "app:latest": not found${latest}`);
  t.equal(
    run.events.at(-1)!.message,
    `Failed to pull image "app": failed to pull and unpack image "app:latest": not found${latest}`,
  );
  t.match(
    await world.store.update((state) => state.entries.get(imagePullBackoffKey(POD, "app"))?.lastError),
    latest,
    "kept for the back-off's message",
  );
  const tagged = (await world.ensure(run.manager, "app:ci", "Always").catch((e: unknown) => e)) as PodrunError;
  t.match(tagged.message, hint("imagePullPolicy is Always"));
  const absent = (await world.ensure(run.manager, "other", "Always").catch((e: unknown) => e)) as PodrunError;
  t.notMatch(absent.message, "present on this machine", "an absent image: no hint");
});

t.test("Never: absent fails with ErrImageNeverPull, present is used", async (t) => {
  const world = createWorld({ local: { "app:1": BUSYBOX } });
  const run = world.startRun();
  const error = await world.ensure(run.manager, "busybox", "Never").catch((e: unknown) => e);
  t.ok(error instanceof PodrunError);
  t.equal((error as PodrunError).reason, "ErrImageNeverPull");
  t.equal((error as PodrunError).message, 'Container image "busybox" is not present with pull policy of Never');
  t.same(
    run.events.map((e) => [e.type, e.reason, e.message]),
    [["Warning", "ErrImageNeverPull", 'Container image "busybox" is not present with pull policy of Never']],
  );
  t.equal(await world.ensure(run.manager, "app:1", "Never"), "app:1");
  t.same(run.events.at(-1)!.reason, "Pulled");
  t.notOk(
    world.calls.some((c) => c.startsWith("pullImage")),
    "never pulls",
  );
});

t.test("an unparsable name: Warning InspectFailed, InvalidImageName, no runtime call", async (t) => {
  const world = createWorld();
  const run = world.startRun();
  const error = await run.manager
    .ensureImageExists({
      object: toInvolvedObject(POD, { name: "app" }),
      image: "Busybox",
      pullPolicy: "Always",
      present: new Map(),
    })
    .catch((e: unknown) => e);
  t.equal((error as PodrunError).reason, "InvalidImageName");
  const message =
    'Failed to apply default image tag "Busybox": couldn\'t parse image name "Busybox": invalid reference format: repository name (library/Busybox) must be lowercase';
  t.equal((error as PodrunError).message, message);
  t.same(
    run.events.map((e) => [e.type, e.reason, e.message]),
    [["Warning", "InspectFailed", message]],
  );
  t.same(world.calls, []);
});

t.test("a failed local inspect: Warning InspectFailed, ImageInspectError, unless Always", async (t) => {
  const world = createWorld();
  const run = world.startRun();
  const request = {
    object: toInvolvedObject(POD, { name: "app" }),
    image: "busybox:1.36",
    present: new Map(),
    inspectError: new Error("Cannot connect to the Docker daemon\nmore"),
  };
  const error = await run.manager
    .ensureImageExists({ ...request, pullPolicy: "IfNotPresent" })
    .catch((e: unknown) => e);
  t.equal((error as PodrunError).reason, "ImageInspectError");
  t.same(
    run.events.map((e) => [e.type, e.reason, e.message]),
    [["Warning", "InspectFailed", 'Failed to inspect image "busybox:1.36": Cannot connect to the Docker daemon']],
  );
  t.equal(
    await run.manager.ensureImageExists({ ...request, pullPolicy: "Always" }),
    "busybox:1.36",
    "Always does not need the inspect",
  );
});

t.test("failures back off 10s, 20s, 40s, 80s, 160s, then 300s, without contacting the registry", async (t) => {
  const world = createWorld({ pull: (ref) => ({ ms: 0, result: notFound(ref) }) });
  const pull = ["inspectImages nope:1", "pullImage nope:1"];
  const skip = ["inspectImages nope:1"];
  const failed = { reason: "ErrImagePull", events: ["Pulling", "Failed"] } as const;
  const backOff = { calls: skip, reason: "ImagePullBackOff", events: ["BackOff"] } as const;
  await runTimeline(t, world, "nope:1", "IfNotPresent", [
    { advance: 0, calls: pull, ...failed, backoff: 10 },
    { advance: 1, ...backOff, backoff: 10 },
    { advance: 8.999, ...backOff },
    { advance: 0.001, calls: pull, ...failed, backoff: 20 }, // t = 10: exactly one period later
    { advance: 19, ...backOff },
    { advance: 1, calls: pull, ...failed, backoff: 40 }, // t = 30
    { advance: 39, ...backOff },
    { advance: 1, calls: pull, ...failed, backoff: 80 }, // t = 70
    { advance: 80, calls: pull, ...failed, backoff: 160 }, // t = 150
    { advance: 160, calls: pull, ...failed, backoff: 300 }, // t = 310
    { advance: 299, ...backOff },
    { advance: 1, calls: pull, ...failed, backoff: 300 }, // t = 610: capped
    { advance: 300, calls: pull, ...failed, backoff: 300 }, // t = 910
  ]);
});

t.test("back-off is forgotten after more than 600s without a failure, and starts again at 10s", async (t) => {
  const world = createWorld({ pull: (ref) => ({ result: notFound(ref) }) });
  const pull = ["inspectImages nope:1", "pullImage nope:1"];
  await runTimeline(t, world, "nope:1", "IfNotPresent", [
    { advance: 0, calls: pull, reason: "ErrImagePull", events: ["Pulling", "Failed"], backoff: 10 },
    { advance: 10, calls: pull, reason: "ErrImagePull", events: ["Pulling", "Failed"], backoff: 20 },
    { advance: 20, calls: pull, reason: "ErrImagePull", events: ["Pulling", "Failed"], backoff: 40 },
    { advance: 600, calls: pull, reason: "ErrImagePull", events: ["Pulling", "Failed"], backoff: 80 }, // exactly 600s: still remembered
    { advance: 600.001, calls: pull, reason: "ErrImagePull", events: ["Pulling", "Failed"], backoff: 10 }, // more than 600s: expired
    { advance: 1, calls: ["inspectImages nope:1"], reason: "ImagePullBackOff", events: ["BackOff"], backoff: 10 },
  ]);
});

t.test("a BackOff event has no suffix; the error carries the previous pull error", async (t) => {
  const world = createWorld({
    pull: (ref) => ({
      result: pullError(
        "RegistryUnavailable",
        "unavailable",
        ref,
        `image pull failed for ${ref} because the registry is unavailable: dial tcp 127.0.0.1:5999: connect: connection refused`,
      ),
    }),
  });
  const first = world.startRun();
  const failure = (await world
    .ensure(first.manager, "127.0.0.1:5999/app:1", "IfNotPresent")
    .catch((e: unknown) => e)) as PodrunError;
  const cause =
    "image pull failed for 127.0.0.1:5999/app:1 because the registry is unavailable: dial tcp 127.0.0.1:5999: connect: connection refused";
  t.equal(failure.reason, "RegistryUnavailable");
  t.equal(failure.message, cause);
  t.ok(failure.cause instanceof PullError, "the PullError is the cause");
  t.same(
    first.events.map((e) => [e.type, e.reason, e.message]),
    [
      ["Normal", "Pulling", 'Pulling image "127.0.0.1:5999/app:1"'],
      ["Warning", "Failed", `Failed to pull image "127.0.0.1:5999/app:1": ${cause}`],
    ],
  );

  world.clock.now += 5000;
  const second = world.startRun();
  const backOff = (await world
    .ensure(second.manager, "127.0.0.1:5999/app:1", "IfNotPresent")
    .catch((e: unknown) => e)) as PodrunError;
  t.equal(backOff.reason, "ImagePullBackOff");
  t.equal(backOff.message, `Back-off pulling image "127.0.0.1:5999/app:1": RegistryUnavailable: ${cause}`);
  t.same(
    second.events.map((e) => [e.type, e.reason, e.message]),
    [["Normal", "BackOff", 'Back-off pulling image "127.0.0.1:5999/app:1"']],
  );
});

t.test("a container engine that is down fails the pull but starts no back-off", async (t) => {
  const world = createWorld({
    pull: (ref) => ({
      result: pullError(
        "RuntimeUnavailable",
        "engine-down",
        ref,
        "Cannot connect to the Docker daemon at unix:///var/run/docker.sock",
      ),
    }),
  });
  await runTimeline(t, world, "busybox:1.36", "IfNotPresent", [
    {
      advance: 0,
      calls: ["inspectImages busybox:1.36", "pullImage busybox:1.36"],
      reason: "RuntimeUnavailable",
      events: ["Pulling", "Failed"],
      backoff: undefined,
    },
    {
      advance: 1,
      calls: ["inspectImages busybox:1.36", "pullImage busybox:1.36"],
      reason: "RuntimeUnavailable",
      events: ["Pulling", "Failed"],
      backoff: undefined,
    },
  ]);
});

t.test("an error that is not a PullError is an ErrImagePull with its first line", async (t) => {
  const world = createWorld({
    pull: () => ({ result: new Error("Command failed with exit code 1: docker pull x\nstderr") }),
  });
  const run = world.startRun();
  const error = (await world.ensure(run.manager, "x:1", "IfNotPresent").catch((e: unknown) => e)) as PodrunError;
  t.equal(error.reason, "ErrImagePull");
  t.equal(error.message, "Command failed with exit code 1: docker pull x");
  t.equal(await world.backoffMs("x:1"), 10_000);
});

t.test("a back-off that cannot be saved: the pull's own reason, the state error after it", async (t) => {
  const memory = createMemoryBackoffStore();
  // The check before the pull goes through; the update after the failure is what the disk refuses.
  let updates = 0;
  const store: BackoffStore = {
    update: (mutate) =>
      ++updates > 1
        ? Promise.reject(
            new StateAccessError(
              "/s/backoff.json",
              "cannot take lock /s/backoff.json.lock: no space left on device (ENOSPC)",
            ),
          )
        : memory.update(mutate),
  };
  const world = createWorld({ store, pull: (ref) => ({ result: notFound(ref) }) });
  const run = world.startRun();
  const error = (await world.ensure(run.manager, "x:1", "IfNotPresent").catch((e: unknown) => e)) as PodrunError;
  t.equal(error.reason, "ErrImagePull");
  t.equal(
    error.message,
    `failed to pull and unpack image "x:1": not found; back-off not recorded: cannot take lock /s/backoff.json.lock: no space left on device (ENOSPC)`,
  );
  t.same(
    run.events.map((e) => e.reason),
    ["Pulling", "Failed"],
  );
});

t.test(
  "a back-off that cannot be read (a full state directory): no pull, ErrImagePull naming the state error; one that cannot be tidied after a pull: the image is used",
  async (t) => {
    const full = () =>
      Promise.reject(
        new StateAccessError(
          "/s/backoff.json.lock",
          "cannot take lock /s/backoff.json.lock: no space left on device (ENOSPC)",
        ),
      );
    const memory = createMemoryBackoffStore();
    let updates = 0;
    // First run: the check before the pull is refused. Second run: the check passes, the tidying after the pull is refused.
    const store: BackoffStore = {
      update: (mutate) => (++updates === 1 || updates === 3 ? full() : memory.update(mutate)),
    };
    const world = createWorld({ store });
    const first = world.startRun();
    const error = (await world.ensure(first.manager, "x:1", "Always").catch((e: unknown) => e)) as PodrunError;
    t.type(error, PodrunError);
    t.equal(error.reason, "ErrImagePull");
    t.equal(
      error.message,
      'Failed to pull image "x:1": pull back-off not checked: cannot take lock /s/backoff.json.lock: no space left on device (ENOSPC)',
    );
    t.same(
      first.events.map((e) => `${e.reason}: ${e.message}`),
      [`Failed: ${error.message}`],
    );
    t.notOk(
      world.calls.some((c) => c.startsWith("pullImage")),
      "the registry is not contacted",
    );
    const second = world.startRun();
    t.equal(await world.ensure(second.manager, "x:1", "Always"), "x:1");
    t.same(
      second.events.map((e) => e.reason),
      ["Pulling", "Pulled"],
    );
  },
);

t.test("success does not reset back-off; the entry ages out, and GC runs after a successful pull", async (t) => {
  let fail = true;
  const world = createWorld({ pull: (ref) => ({ result: fail ? notFound(ref) : BUSYBOX }) });
  await runTimeline(t, world, "flaky:1", "Always", [
    {
      advance: 0,
      calls: ["inspectImages flaky:1", "pullImage flaky:1"],
      reason: "ErrImagePull",
      events: ["Pulling", "Failed"],
      backoff: 10,
    },
  ]);
  // Another pod's stale entry, to see GC remove it.
  await world.store.update((state) => void state.next("default/old_x", world.clock.now - 700_000));
  fail = false;
  await runTimeline(t, world, "flaky:1", "Always", [
    { advance: 10, calls: ["inspectImages flaky:1", "pullImage flaky:1"], events: ["Pulling", "Pulled"], backoff: 10 },
  ]);
  t.equal(
    await world.store.update((state) => state.entries.has("default/old_x")),
    false,
    "expired entries are collected",
  );
});

t.test("the same image for two containers: pulled once", async (t) => {
  t.test("one after the other, IfNotPresent: the second finds it present", async (t) => {
    const world = createWorld({ pull: () => ({ ms: 300, result: BUSYBOX }) });
    const run = world.startRun();
    const present = await world.runtime.inspectImages(["busybox:latest"]);
    const ensure = (name: string) =>
      run.manager.ensureImageExists({
        object: toInvolvedObject(POD, { name }),
        image: "busybox",
        pullPolicy: "IfNotPresent",
        present,
      });
    await ensure("a");
    await ensure("b");
    t.same(world.calls, ["inspectImages busybox:latest", "pullImage busybox:latest"]);
    t.same(
      run.events.map((e) => [e.involvedObject.fieldPath, e.reason]),
      [
        ["spec.containers{a}", "Pulling"],
        ["spec.containers{a}", "Pulled"],
        ["spec.containers{b}", "Pulled"],
      ],
    );
    t.match(run.events[2]!.message, /already present on machine/);
  });

  t.test("at the same time, Always: one pull, both containers get its result", async (t) => {
    const pull = defer<ImageInfo>();
    const world = createWorld({ pull: () => pull });
    const run = world.startRun();
    const ensure = (name: string) =>
      run.manager.ensureImageExists({
        object: toInvolvedObject(POD, { name }),
        image: "busybox",
        pullPolicy: "Always",
        present: new Map(),
      });
    const both = Promise.all([ensure("a"), ensure("b")]);
    await settle();
    world.clock.now += 2500;
    pull.resolve(BUSYBOX);
    t.same(await both, ["busybox:latest", "busybox:latest"]);
    t.same(world.calls, ["pullImage busybox:latest"]);
    t.same(
      run.events.map((e) => e.reason),
      ["Pulling", "Pulling", "Pulled", "Pulled"],
    );
  });

  t.test("at the same time, failing: one pull, one back-off step", async (t) => {
    const pull = defer<ImageInfo>();
    const world = createWorld({ pull: () => pull });
    const run = world.startRun();
    const ensure = (name: string) =>
      run.manager
        .ensureImageExists({
          object: toInvolvedObject(POD, { name }),
          image: "nope:1",
          pullPolicy: "IfNotPresent",
          present: new Map(),
        })
        .catch((e: PodrunError) => e.reason);
    const both = Promise.all([ensure("a"), ensure("b")]);
    await settle();
    pull.reject(notFound("nope:1"));
    t.same(await both, ["ErrImagePull", "ErrImagePull"]);
    t.same(world.calls, ["pullImage nope:1"]);
    t.equal(await world.backoffMs("nope:1"), 10_000, "10s, not 20s");
  });
});

t.test("serialized puller: one pull at a time, in request order; waiting counts in the total", async (t) => {
  const pulls = new Map<string, Deferred<ImageInfo>>();
  const world = createWorld({ pull: (ref) => pulls.set(ref, defer<ImageInfo>()).get(ref)! });
  const run = world.startRun();
  const ensure = (name: string, image: string) =>
    run.manager.ensureImageExists({
      object: toInvolvedObject(POD, { name }),
      image,
      pullPolicy: "IfNotPresent",
      present: new Map(),
    });
  const a = ensure("a", "a:1");
  const b = ensure("b", "b:1");
  await settle();
  t.same(world.calls, ["pullImage a:1"], "b waits while a pulls");
  world.clock.now += 1000;
  pulls.get("a:1")!.resolve(BUSYBOX);
  await a;
  await settle();
  t.same(world.calls, ["pullImage a:1", "pullImage b:1"], "b starts when a is done");
  world.clock.now += 500;
  pulls.get("b:1")!.resolve(BUSYBOX);
  await b;
  const pulled = run.events.filter((e) => e.reason === "Pulled").map((e) => e.message);
  t.same(pulled, [
    'Successfully pulled image "a:1" in 1s (1s including waiting). Image size: 4261550 bytes.',
    'Successfully pulled image "b:1" in 500ms (1.5s including waiting). Image size: 4261550 bytes.',
  ]);
});

t.test("parallel puller: up to N pulls overlap, the next waits for a slot", async (t) => {
  const pulls = new Map<string, Deferred<ImageInfo>>();
  const world = createWorld({ maxParallel: 2, pull: (ref) => pulls.set(ref, defer<ImageInfo>()).get(ref)! });
  const run = world.startRun();
  const ensure = (name: string, image: string) =>
    run.manager.ensureImageExists({
      object: toInvolvedObject(POD, { name }),
      image,
      pullPolicy: "IfNotPresent",
      present: new Map(),
    });
  const all = Promise.all([ensure("a", "a:1"), ensure("b", "b:1"), ensure("c", "c:1")]);
  await settle();
  t.same(world.calls, ["pullImage a:1", "pullImage b:1"], "a and b overlap; c waits");
  world.clock.now += 700;
  pulls.get("b:1")!.resolve(BUSYBOX);
  await settle();
  t.same(world.calls, ["pullImage a:1", "pullImage b:1", "pullImage c:1"], "c takes b's slot");
  pulls.get("a:1")!.resolve(BUSYBOX);
  world.clock.now += 100;
  pulls.get("c:1")!.resolve(BUSYBOX);
  await all;
  t.match(
    run.events.find((e) => e.message.includes('"c:1"') && e.reason === "Pulled")!.message,
    /in 100ms \(800ms including waiting\)/,
  );
});

t.test("an aborted pull (Ctrl-C) is not a registry failure: no Failed event, no back-off", async (t) => {
  const abort = Object.assign(new Error("This operation was aborted"), { name: "AbortError" });
  const world = createWorld({ pull: () => ({ result: abort }) });
  const run = world.startRun();
  const error = await world.ensure(run.manager, "busybox:1.36", "IfNotPresent").catch((e: unknown) => e);
  t.equal(error, abort);
  t.same(
    run.events.map((e) => e.reason),
    ["Pulling"],
  );
  t.equal(await world.backoffMs("busybox:1.36"), undefined);
  t.same(
    run.progress,
    ['start Pulling image "busybox:1.36"', 'stop Pulling image "busybox:1.36"'],
    "the spinner stops",
  );
});

t.test(
  "back-off carries over between runs through the state file, keyed by namespace/name and the image as written",
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "podrun-manager-"));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const world = createWorld({ store: createFileBackoffStore(dir), pull: (ref) => ({ result: notFound(ref) }) });
    await runTimeline(t, world, "nope", "IfNotPresent", [
      {
        advance: 0,
        calls: ["inspectImages nope:latest", "pullImage nope:latest"],
        reason: "ErrImagePull",
        events: ["Pulling", "Failed"],
        backoff: 10,
      },
      { advance: 3, calls: ["inspectImages nope:latest"], reason: "ImagePullBackOff", events: ["BackOff"] },
    ]);
    const saved = await readBackoffFile(dir);
    t.same(Object.keys(saved.entries), ["default/web_nope"]);
    t.equal(
      saved.entries["default/web_nope"]?.lastError,
      'ErrImagePull: failed to pull and unpack image "nope:latest": not found',
    );
  },
);

// Lets queued promise callbacks run (the manager awaits the store before it pulls).
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
}
