import t from "tap";
import { EngineError } from "../../lib/errors.js";
import { PullError } from "../../lib/runtime/pull-errors.js";
import type { ContainerSpec, LogLine } from "../../lib/runtime/types.js";
import { engineError, FakeRuntime, pullError } from "./fake-runtime.js";

// The shared fake engine behaves as docker does where the pod logic relies on it: these tests
// are its contract, so that a test that passes on the fake says something about the real thing.

const labels = (name: string, kind = "app") => ({
  "io.kubernetes.pod.name": "web",
  "io.kubernetes.pod.namespace": "default",
  "io.kubernetes.container.name": name,
  "io.podrun.container.kind": kind,
  "io.podrun.managed": "true",
});
const spec = (name: string, extra: Partial<ContainerSpec> = {}): ContainerSpec => ({
  name: `default_web_${name}`,
  image: "busybox:1.36",
  labels: labels(name),
  sandbox: "default_web",
  hostNetwork: false,
  restartPolicy: "no",
  ...extra,
});
const sandbox = {
  name: "default_web",
  image: "pause:3.10",
  labels: labels("POD", "infra"),
  ports: [],
  hostNetwork: false,
};

async function pod(fake: FakeRuntime) {
  await fake.createSandbox(sandbox);
  await fake.startSandbox("default_web");
  const init = await fake.createContainer(spec("init", { labels: labels("init", "init") }));
  const app = await fake.createContainer(spec("app"));
  return { init, app };
}

t.test("images: present ones are inspected, a pull adds one, a scripted pull fails with its kind", async (t) => {
  const fake = new FakeRuntime({ images: ["busybox:1.36"] });
  t.same([...(await fake.inspectImages(["busybox:1.36", "nginx:1"])).keys()], ["busybox:1.36"]);
  await fake.pullImage("nginx:1");
  t.ok(fake.images.has("nginx:1"));
  fake.pull = (ref, _options, attempt) =>
    attempt === 1 ? pullError(ref, "unauthorized") : { id: "sha256:x", size: 1 };
  const error = await fake.pullImage("private:1").catch((e: unknown) => e);
  t.type(error, PullError);
  t.match(error, { kind: "unauthorized", reason: "ErrImagePull" });
  t.equal(pullError("x", "engine-down").reason, "RuntimeUnavailable");
  t.equal(pullError("x", "unavailable").reason, "RegistryUnavailable");
  t.same(fake.calls, ["inspectImages busybox:1.36,nginx:1", "pullImage nginx:1", "pullImage private:1"]);
});

t.test("a container needs its image, a free name, and a running sandbox to start", async (t) => {
  const fake = new FakeRuntime({ images: ["busybox:1.36"] });
  await t.rejects(fake.createContainer(spec("a", { image: "absent:1" })), {
    name: "EngineError",
    kind: "not-found",
    message: /No such image: absent:1/,
  });
  await fake.createSandbox(sandbox);
  const id = await fake.createContainer(spec("a"));
  await t.rejects(fake.createContainer(spec("a")), {
    message: /Conflict\. The container name "\/default_web_a" is already in use/,
  });
  await t.rejects(fake.startContainer(id), { message: /non running container/ }, "the sandbox is only created");
  await fake.startSandbox("default_web");
  await fake.startContainer(id);
  t.match(fake.container("a"), { id, status: "running", running: true, name: "default_web_a" });
  t.match(fake.container("default_web_POD"), { status: "running", ip: /^10\.88\.0\.\d+$/ });
});

t.test("init containers exit 0 by default, the others run; a script sets exit codes and logs", async (t) => {
  const fake = new FakeRuntime({ images: ["busybox:1.36"] });
  fake.script("app", { exitCode: 3, logs: ["starting", { text: "boom", stream: "stderr" }] });
  const { init, app } = await pod(fake);
  await fake.startContainer(init);
  t.equal(await fake.waitContainer(init), 0);
  await fake.startContainer(app);
  t.equal(await fake.waitContainer(app), 3);
  t.match(fake.container(app), { status: "exited", running: false, exitCode: 3 });
  t.equal(await fake.logs(app, { tail: 1 }), "boom\n");
  t.equal(await fake.logs(app), "starting\nboom\n");
  t.equal(await fake.logs(app, { tail: 0 }), "");
  t.equal(await fake.logs(app, { tail: 5 }), "starting\nboom\n");
});

t.test("waitContainer waits for the exit, or rejects when its signal aborts", async (t) => {
  const fake = new FakeRuntime({ images: ["busybox:1.36"] });
  const { app } = await pod(fake);
  await fake.startContainer(app);
  const waiting = fake.waitContainer(app);
  setTimeout(() => fake.exit("app", 7), 5);
  t.equal(await waiting, 7);
  const other = await fake.createContainer(spec("b"));
  await fake.startContainer(other);
  const controller = new AbortController();
  const aborted = fake.waitContainer(other, { signal: controller.signal });
  controller.abort();
  await t.rejects(aborted, { name: "EngineError", kind: "canceled" });
});

t.test("exec answers from the script, and fails on a container that does not run", async (t) => {
  const fake = new FakeRuntime({ images: ["busybox:1.36"] });
  fake.script("app", { exec: (command) => ({ exitCode: command[0] === "ready" ? 0 : 1, stdout: "", stderr: "" }) });
  const { app } = await pod(fake);
  await t.rejects(fake.execInContainer(app, ["ready"]), { message: /is not running/ });
  await fake.startContainer(app);
  t.equal((await fake.execInContainer(app, ["ready"])).exitCode, 0);
  t.equal((await fake.execInContainer(app, ["other"])).exitCode, 1);
  t.same(fake.callsOf("execInContainer"), [
    "execInContainer app ready",
    "execInContainer app ready",
    "execInContainer app other",
  ]);
});

t.test("stop, remove and removeSandbox: missing is success; the sandbox takes its containers with it", async (t) => {
  const fake = new FakeRuntime({ images: ["busybox:1.36"] });
  const { app } = await pod(fake);
  await fake.startContainer(app);
  await fake.stopContainer(app, 5);
  t.match(fake.container(app), { status: "exited", exitCode: 137 });
  await fake.stopContainer("gone", 5);
  await fake.removeContainers(["gone", app]);
  t.equal(fake.container(app), undefined);
  await fake.removeSandbox("default_web");
  t.same(fake.listAll(), [], "the init container went with the sandbox");
  await fake.removeSandbox("default_web");
  t.same(
    fake.calls.slice(-4),
    ["stopContainer gone 5", "removeContainers gone,app", "removeSandbox default_web", "removeSandbox default_web"],
    "a removed container keeps its name in the calls",
  );
});

t.test("listContainers filters by every label; inspect finds by ID, listContainersNamed by name prefix", async (t) => {
  const fake = new FakeRuntime({ images: ["busybox:1.36"] });
  const { init, app } = await pod(fake);
  const stranger = fake.addContainer({ name: "default_web_appx", labels: { "io.kubernetes.pod.name": "web" } });
  t.same(
    (await fake.listContainers({ "io.podrun.managed": "true", "io.podrun.container.kind": "app" })).map((c) => c.id),
    [app],
  );
  t.same((await fake.listContainers({ "io.kubernetes.pod.name": "web" })).length, 4);
  t.same(
    (await fake.inspectContainers([app, "missing", init])).map((c) => c.id),
    [app, init],
  );
  t.same(
    (await fake.listContainersNamed("default_web_app")).map((c) => c.id),
    [app, stranger.id],
  );
  t.equal(stranger.status, "running");
  const created = fake.listAll().map((c) => Date.parse(c.createdAt));
  t.same(
    [...created].sort((a, b) => a - b),
    created,
    "creation times increase, even within one millisecond",
  );
});

t.test("volumes: labels, a mountpoint, and one in use cannot be removed", async (t) => {
  const fake = new FakeRuntime({ images: ["busybox:1.36"] });
  await fake.createVolume("default_web_data", { "io.podrun.managed": "true" });
  t.same(await fake.listVolumes({ "io.podrun.managed": "true" }), [
    { name: "default_web_data", labels: { "io.podrun.managed": "true" } },
  ]);
  t.equal(await fake.inspectVolumeMountpoint("default_web_data"), "/var/lib/docker/volumes/default_web_data");
  await t.rejects(fake.inspectVolumeMountpoint("nope"), { message: /no such volume/ });
  await fake.createSandbox(sandbox);
  const id = await fake.createContainer(
    spec("a", { mounts: [{ volume: "default_web_data", target: "/data", readOnly: false }] }),
  );
  await t.rejects(fake.removeVolumes(["default_web_data"]), { message: /volume is in use/ });
  await fake.removeContainers([id]);
  await fake.removeVolumes(["default_web_data", "never-made"]);
  t.same(fake.volumes.size, 0);
});

t.test("streamLogs: tail and since; follow until the container stops or the signal aborts", async (t) => {
  let now = Date.parse("2026-01-01T00:00:00Z");
  const fake = new FakeRuntime({ images: ["busybox:1.36"], clock: () => now });
  const { app } = await pod(fake);
  fake.script("app", { logs: ["one", "two"] });
  await fake.startContainer(app);
  now += 60_000;
  fake.writeLog("app", "three");
  const read = async (options: Parameters<FakeRuntime["streamLogs"]>[1]) => {
    const lines: LogLine[] = [];
    for await (const line of fake.streamLogs(app, options)) lines.push(line);
    return lines.map((l) => l.text);
  };
  t.same(await read({}), ["one", "two", "three"]);
  t.same(await read({ tail: 2 }), ["two", "three"]);
  t.same(await read({ since: new Date(now) }), ["three"]);
  const following = read({ follow: true });
  setTimeout(() => (fake.writeLog("app", "four"), fake.exit("app", 0)), 5);
  t.same(await following, ["one", "two", "three", "four"]);
  const other = await fake.createContainer(spec("b"));
  await fake.startContainer(other);
  const controller = new AbortController();
  const lines: string[] = [];
  const follow = (async () => {
    for await (const line of fake.streamLogs(other, { follow: true, signal: controller.signal })) lines.push(line.text);
  })();
  setTimeout(() => controller.abort(), 5);
  await follow;
  t.same(lines, []);
  await t.rejects(fake.streamLogs("nope")[Symbol.asyncIterator]().next(), EngineError, "a container that is gone");
});

t.test("scripting calls: failOn (by subject, a number of times), delay on a promise, hooks that note", async (t) => {
  const fake = new FakeRuntime({ images: ["busybox:1.36"] });
  fake.failOn("startContainer", engineError("OCI runtime create failed"), { subject: "app", times: 1 });
  let release!: () => void;
  fake.delay("startSandbox", new Promise<void>((resolve) => (release = resolve)));
  fake.on("startSandbox", () => fake.note("sandbox running"));
  await fake.createSandbox(sandbox);
  const starting = fake.startSandbox("default_web");
  await new Promise((resolve) => setImmediate(resolve));
  t.notOk(fake.calls.includes("sandbox running"), "held until released");
  release();
  await starting;
  const app = await fake.createContainer(spec("app"));
  await t.rejects(fake.startContainer(app), { message: /OCI runtime create failed/ });
  await fake.startContainer(app);
  t.same(fake.calls, [
    "createSandbox default_web",
    "startSandbox default_web",
    "sandbox running",
    "createContainer app",
    "startContainer app",
    "startContainer app",
  ]);
  t.equal(fake.callLog[2]!.args[0], fake.createdSpecs[0], "the spec as given");
});
