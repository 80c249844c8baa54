import t from "tap";
import { createImagePuller } from "../../lib/images/puller.js";
import type { ImageInfo } from "../../lib/runtime/types.js";
import { FakeRuntime } from "../harness/fake-runtime.js";

// The puller over the shared fake engine: which pulls reach the engine, and when.

const INFO: ImageInfo = { id: "sha256:x", size: 1 };

t.test("maxParallel must be a positive integer (the kubelet's validation text)", async (t) => {
  const runtime = new FakeRuntime({ pull: () => INFO });
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    t.throws(() => createImagePuller({ runtime, maxParallel: bad }), {
      name: "RangeError",
      message: `invalid configuration: maxParallelImagePulls ${bad} must be a positive number`,
    });
  }
});

t.test("a finished pull is reused; a failed one is not, so a retry reaches the registry", async (t) => {
  let fail = true;
  const runtime = new FakeRuntime({ pull: () => (fail ? new Error("not found") : INFO) });
  const puller = createImagePuller({ runtime });
  await t.rejects(puller.pull("a:1"), { message: "not found" });
  fail = false;
  const first = await puller.pull("a:1");
  const second = await puller.pull("a:1");
  t.equal(second, first, "the same result object");
  t.same(runtime.calls, ["pullImage a:1", "pullImage a:1"]);
});

t.test("the abort signal reaches the runtime, and queued pulls are refused once aborted", async (t) => {
  const controller = new AbortController();
  const seen: (AbortSignal | undefined)[] = [];
  let release!: () => void;
  const runtime = new FakeRuntime({
    pull: (_ref, options) => {
      seen.push(options.signal);
      return new Promise<ImageInfo>((resolve) => (release = () => resolve(INFO)));
    },
  });
  const puller = createImagePuller({ runtime, signal: controller.signal });
  const first = puller.pull("a:1");
  const queued = puller.pull("b:1");
  await new Promise((resolve) => setImmediate(resolve));
  controller.abort();
  release();
  await first;
  await t.rejects(queued, { name: "AbortError" });
  t.same(seen, [controller.signal], "b never reached the runtime");
});

t.test("a pull that fails once Ctrl-C was pressed is an abort, not a pull failure", async (t) => {
  // The terminal's SIGINT reaches the engine CLI as well: its pull fails (canceled, or with an
  // error of its own) after podrun's signal has aborted.
  const controller = new AbortController();
  const runtime = new FakeRuntime({
    pull: () => {
      controller.abort("SIGINT");
      return new Error("context canceled");
    },
  });
  const puller = createImagePuller({ runtime, signal: controller.signal });
  const error = (await puller.pull("a:1").catch((e: unknown) => e)) as Error;
  t.equal(error.name, "AbortError");
  t.match(error.message, "SIGINT");
  t.equal((error.cause as Error).message, "context canceled", "the CLI's error is kept as the cause");
  await t.rejects(puller.pull("b:1"), { name: "AbortError" }, "and nothing more is pulled");
});
