// CliRuntime end to end, against the real docker and podman of scripts/test-env.sh: a sandbox
// whose containers share one network namespace, published ports, inspect, pulls and their
// errors, command/args semantics, exact environment round-trips, and dry-run.
import t, { type Test } from "tap";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliRuntime, createRuntime } from "../../lib/runtime/cli-runtime.js";
import { getDialect } from "../../lib/runtime/dialects.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { PullError } from "../../lib/runtime/pull-errors.js";
import type { ContainerSpec, RuntimeCommand } from "../../lib/runtime/types.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { requireEngine, requireImage, requireRegistry, requireTestEnv } from "../harness/engine.js";

const RUNTIMES = ["docker", "podman"] as const;
type Runtime = (typeof RUNTIMES)[number];

const unique = () => `${process.pid}-${randomBytes(3).toString("hex")}`;

function podLabels(pod: string, container: string): Record<string, string> {
  return {
    "io.kubernetes.pod.name": pod,
    "io.kubernetes.pod.namespace": "default",
    "io.kubernetes.pod.uid": `uid-${pod}`,
    "io.kubernetes.container.name": container,
    "io.podrun.managed": "true",
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function fetchWithRetry(url: string, tries = 50): Promise<string> {
  for (let i = 1; ; i++) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      return await response.text();
    } catch (error) {
      if (i >= tries) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** podrun's env files (in podrun-env-* folders) that hold `text`. */
function findEnvFilesContaining(text: string): string[] {
  return readdirSync(tmpdir())
    .filter((entry) => entry.startsWith("podrun-env-"))
    .map((entry) => join(tmpdir(), entry, "env"))
    .filter((file) => {
      try {
        return readFileSync(file, "utf8").includes(text);
      } catch {
        return false;
      }
    });
}

/** Checks the engine and images, registers cleanup by pod label, and returns what the test needs. */
async function setUp(t: Test, runtime: Runtime, pod: string) {
  const env = requireTestEnv(t);
  if (!env) return undefined;
  const engine = await requireEngine(t, runtime);
  if (
    !engine ||
    !(await requireImage(t, runtime, env.images.busybox)) ||
    !(await requireImage(t, runtime, env.images.pause))
  )
    return undefined;
  t.teardown(async () => {
    await removeManagedContainers(runtime, { "io.kubernetes.pod.name": pod });
  });
  return { env, rt: createRuntime(engine) };
}

for (const runtime of RUNTIMES) {
  t.test(`${runtime}: a sandbox whose containers share localhost, with a published hostPort`, async (t) => {
    const pod = `rt-net-${runtime}-${unique()}`;
    const ctx = await setUp(t, runtime, pod);
    if (!ctx) return;
    const { env, rt } = ctx;
    const hostPort = await freePort();
    const sandboxId = await rt.createSandbox({
      name: pod,
      image: env.images.pause,
      labels: podLabels(pod, "POD"),
      hostname: pod,
      ports: [{ containerPort: 8080, hostPort, protocol: "TCP", hostIP: "127.0.0.1" }],
      hostNetwork: false,
    });
    // docker prints the infra container's ID; podman's pod create prints the pod's, so the infra
    // container's name stands for it there (one engine call less).
    t.match(
      sandboxId,
      runtime === "podman" ? `${pod}_POD` : /^[0-9a-f]{64}$/,
      "the sandbox's (infra container's) ID or name",
    );
    await rt.startSandbox(pod);

    const member = (name: string, command: string[], restartPolicy: ContainerSpec["restartPolicy"]): ContainerSpec => ({
      name: `${pod}-${name}`,
      image: env.images.busybox,
      command,
      labels: podLabels(pod, name),
      sandbox: pod,
      hostNetwork: false,
      restartPolicy,
      stopTimeoutSeconds: 1,
    });
    const server = await rt.createContainer(
      member(
        "server",
        [
          "sh",
          "-c",
          'mkdir -p /www && echo "hello from $(hostname)" > /www/index.html && exec httpd -f -p 8080 -h /www',
        ],
        "always",
      ),
    );
    await rt.startContainer(server);
    const client = await rt.createContainer(
      member(
        "client",
        ["sh", "-c", "for i in $(seq 1 100); do wget -q -O- http://127.0.0.1:8080/ && exit 0; sleep 0.1; done; exit 1"],
        "no",
      ),
    );
    await rt.startContainer(client);
    t.equal(await rt.waitContainer(client), 0, "the client reached the server over 127.0.0.1: one network namespace");
    t.equal(await rt.logs(client, { tail: 5 }), `hello from ${pod}`, "and sees the pod's hostname");
    t.equal(
      await fetchWithRetry(`http://127.0.0.1:${hostPort}/`),
      `hello from ${pod}\n`,
      "the hostPort answers on the host",
    );

    const listed = await rt.listContainers({ "io.kubernetes.pod.name": pod });
    t.same(
      listed.map((c) => c.labels["io.kubernetes.container.name"]).sort(),
      ["POD", "client", "server"],
      "infra container listed by label too",
    );
    const infra = listed.find((c) => c.labels["io.kubernetes.container.name"] === "POD");
    t.equal(runtime === "podman" ? infra?.name : infra?.id, sandboxId);
    t.match(infra, { running: true, status: "running", image: env.images.pause, labels: podLabels(pod, "POD") });
    const [clientState, serverState] = await rt.inspectContainers([client, server]);
    t.match(clientState, {
      id: client,
      name: `${pod}-client`,
      running: false,
      status: "exited",
      exitCode: 0,
      image: env.images.busybox,
    });
    t.ok(clientState?.startedAt && clientState.finishedAt, "times of a finished container");
    t.match(serverState, { running: true, finishedAt: "" });
    t.ok(infra?.ip, "the sandbox has an IP");
    t.equal(serverState?.ip, infra?.ip, "a member reports the sandbox's IP");

    t.equal(
      (await rt.execInContainer(server, ["sh", "-c", "echo out; echo err >&2; exit 3"])).exitCode,
      3,
      "exec exit code",
    );
    t.match(await rt.execInContainer(server, ["cat", "/www/index.html"]), {
      exitCode: 0,
      stdout: `hello from ${pod}`,
      stderr: "",
    });
    const noisy = await rt.execInContainer(server, [
      "sh",
      "-c",
      "echo 'Error response from daemon: not mine' >&2; echo 'level=fatal msg=nor this' >&2",
    ]);
    t.equal(noisy.exitCode, 0, "a command that exits 0 succeeded, whatever it wrote to stderr");
    await t.rejects(
      rt.execInContainer(`${pod}-missing`, ["true"]),
      { name: "EngineError" },
      "exec in a missing container throws",
    );

    await rt.stopContainer(`${pod}-missing`, 1);
    await rt.removeContainers([`${pod}-missing`]);
    t.pass("stop and remove of a missing container resolve");
    await rt.stopContainer(server, 1);
    t.match((await rt.inspectContainers([server]))[0], { running: false });
    await t.rejects(
      rt.execInContainer(server, ["true"]),
      { name: "EngineError" },
      "exec in a stopped container throws",
    );

    await rt.removeSandbox(pod);
    t.same(await rt.listContainers({ "io.kubernetes.pod.name": pod }), [], "removeSandbox took the members with it");
    await rt.removeSandbox(pod);
    t.pass("removing a missing sandbox resolves");
  });

  t.test(`${runtime}: images: one inspect for present and absent refs, pulls and their errors`, async (t) => {
    const id = unique();
    const ctx = await setUp(t, runtime, `rt-img-${id}`);
    if (!ctx || !(await requireRegistry(t, "open")) || !(await requireRegistry(t, "auth"))) return;
    const { env, rt } = ctx;
    const absent = `${env.registries.open}/podrun-test/absent-${id}:1`;
    const found = await rt.inspectImages([env.images.busybox, absent, env.images.pause, env.images.busybox]);
    t.same([...found.keys()].sort(), [env.images.busybox, env.images.pause].sort(), "absent refs are simply missing");
    t.match(found.get(env.images.busybox), { id: /^sha256:[0-9a-f]{64}$/, size: Number });
    t.ok((found.get(env.images.busybox)?.size ?? 0) > 0);
    t.same(await rt.inspectImages([absent]), new Map(), "all absent: an empty map, no error");

    const recorded: RuntimeCommand[] = [];
    await new CliRuntime({ name: runtime, binary: runtime, dryRun: { record: (c) => recorded.push(c) } }).inspectImages(
      [env.images.busybox, absent],
    );
    t.same(
      recorded,
      [{ binary: runtime, args: ["image", "inspect", env.images.busybox, absent] }],
      "one call for all refs",
    );

    // A tag of our own, pushed and then removed locally, so that the pull really transfers.
    const tag = `${env.registries.open}/podrun-test/adapter-${runtime}-${id}:1`;
    t.teardown(() => runCommand(runtime, ["rmi", "-f", tag], { reject: false }).then(() => undefined));
    await runCommand(runtime, ["tag", env.images.busybox, tag]);
    await runCommand(runtime, ["push", ...(runtime === "podman" ? ["-q"] : []), tag]);
    await runCommand(runtime, ["rmi", tag]);
    t.same(await rt.inspectImages([tag]), new Map(), "the tag is gone locally");
    const pulled = await rt.pullImage(tag);
    t.ok(pulled.size > 0, "pullImage returns the image's size");
    t.equal(pulled.id, found.get(env.images.busybox)?.id, "and its ID");

    const failure = async (ref: string) =>
      rt.pullImage(ref).then(
        () => undefined,
        (e: unknown) => e,
      );
    const missing = await failure(`${env.registries.open}/podrun-test/busybox:no-such-tag-${id}`);
    t.ok(missing instanceof PullError, "a missing tag is a PullError");
    t.match(missing, { reason: "ErrImagePull", kind: "not-found", message: /manifest unknown/ });
    t.match(await failure(`127.0.0.1:5199/podrun-test/busybox:1.36`), {
      reason: "RegistryUnavailable",
      kind: "unavailable",
      message:
        /^image pull failed for 127\.0\.0\.1:5199\/podrun-test\/busybox:1\.36 because the registry is unavailable: .*connection refused/,
    });
    t.match(await failure(env.images.privateBusybox), {
      reason: "ErrImagePull",
      kind: "unauthorized",
      message: new RegExp(
        `\\(no credentials for this registry: add an imagePullSecret, pass --authfile, or run \`${runtime} login ${env.registries.auth}\`\\)$`,
      ),
    });
  });

  t.test(`${runtime}: Kubernetes command/args over an image with ENTRYPOINT and CMD`, async (t) => {
    const id = unique();
    const pod = `rt-cmd-${runtime}-${id}`;
    const ctx = await setUp(t, runtime, pod);
    if (!ctx) return;
    const { env, rt } = ctx;
    // An image with ENTRYPOINT ["/bin/echo","ep"] and CMD ["cmd"], made from busybox's files.
    const image = `localhost/podrun-test/epcmd-${id}:1`;
    const dir = mkdtempSync(join(tmpdir(), "podrun-test-epcmd-"));
    t.teardown(async () => {
      rmSync(dir, { recursive: true, force: true });
      await runCommand(runtime, ["rmi", "-f", image], { reject: false });
    });
    const source = `${pod}-source`;
    await runCommand(runtime, ["create", "--name", source, env.images.busybox, "true"]);
    await runCommand(runtime, ["export", "-o", join(dir, "rootfs.tar"), source]);
    await runCommand(runtime, ["rm", source]);
    await runCommand(runtime, [
      "import",
      "-c",
      'ENTRYPOINT ["/bin/echo","ep"]',
      "-c",
      'CMD ["cmd"]',
      join(dir, "rootfs.tar"),
      image,
    ]);

    const cases: { name: string; command?: string[]; args?: string[]; expected: string }[] = [
      { name: "neither", expected: "ep cmd" },
      { name: "args-only", args: ["a1", "a2"], expected: "ep a1 a2" },
      { name: "command-only", command: ["/bin/echo", "c1"], expected: "c1" },
      { name: "command-only-no-args", command: ["/bin/echo"], expected: "" },
      { name: "both", command: ["/bin/echo", "c1"], args: ["a1"], expected: "c1 a1" },
    ];
    for (const c of cases) {
      const cid = await rt.createContainer({
        name: `${pod}-${c.name}`,
        image,
        ...(c.command ? { command: c.command } : {}),
        ...(c.args ? { args: c.args } : {}),
        labels: podLabels(pod, c.name),
        hostNetwork: false,
        restartPolicy: "no",
      });
      await rt.startContainer(cid);
      t.equal(await rt.waitContainer(cid), 0);
      t.equal(await rt.logs(cid), c.expected, `${c.name}: ${JSON.stringify(c.expected)}`);
    }
  });

  t.test(`${runtime}: environment values round-trip exactly and never reach argv`, async (t) => {
    const id = unique();
    const pod = `rt-env-${runtime}-${id}`;
    const ctx = await setUp(t, runtime, pod);
    if (!ctx) return;
    const { env, rt } = ctx;
    const secret = `s3cret-${id}`;
    const vars = [
      { name: "PLAIN", value: secret },
      { name: "EQUALS", value: `a=b=${secret}` },
      { name: "SPACES", value: `  lead ${secret} trail  ` },
      { name: "QUOTES", value: `"double" 'single' ${secret}` },
      { name: "DOLLAR", value: `$HOME \${HOME} $(id) ${secret}` },
      { name: "HASH", value: `#start x # mid ${secret}` },
      { name: "UNICODE", value: `ünïcødé ✓ ${secret}` },
      { name: "EMPTY", value: "" },
      { name: "NEWLINE", value: `line1\nline2 ${secret}\n` },
      { name: "CRLF", value: `a\r\nb${secret}` },
      { name: "with space", value: `name with a space ${secret}` },
    ];
    const spec: ContainerSpec = {
      name: `${pod}-env`,
      image: env.images.busybox,
      command: ["sleep", "60"],
      env: vars,
      labels: podLabels(pod, "env"),
      hostNetwork: false,
      restartPolicy: "no",
      stopTimeoutSeconds: 0,
    };
    const cid = await rt.createContainer(spec);
    await rt.startContainer(cid);
    const environ = (await rt.execInContainer(cid, ["cat", "/proc/1/environ"])).stdout;
    const seen = new Map(
      environ
        .split("\0")
        .filter(Boolean)
        .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
    );
    for (const { name, value } of vars) t.equal(seen.get(name), value, `${name} round-trips`);

    t.same(findEnvFilesContaining(secret), [], "the env file is gone after create");
    const bad = rt.createContainer({ ...spec, name: `${pod}-bad`, image: `localhost/podrun-test/absent-${id}:1` });
    await t.rejects(bad, { name: "EngineError" }, "create fails (image absent, --pull never)");
    t.same(findEnvFilesContaining(secret), [], "and the env file is gone after a failure too");

    const recorded: RuntimeCommand[] = [];
    await new CliRuntime({
      name: runtime,
      binary: runtime,
      dryRun: { record: (c) => recorded.push(c) },
    }).createContainer(spec);
    t.equal(recorded.length, 1);
    t.notOk(
      recorded.some((c) => c.args.some((arg) => arg.includes(secret))),
      "no value in the create command's argv",
    );
  });

  t.test(
    `${runtime}: three makers of one network at once make one (docker: on a cluster subnet no other holds)`,
    async (t) => {
      const name = `rt-net-${runtime}-${unique()}`;
      const engine = await requireEngine(t, runtime);
      if (!engine) return;
      const rt = createRuntime(engine);
      const labels = { "io.podrun.managed": "true" };
      const foreign = `${name}-other`;
      t.teardown(async () => {
        for (const network of [name, foreign]) await runCommand(runtime, ["network", "rm", network], { reject: false });
      });
      const namedAlike = async () =>
        (await runCommand(runtime, ["network", "ls", "--format", "{{.Name}}"])).stdout
          .split("\n")
          .filter((n) => n === name);
      const subnets = getDialect(runtime).clusterSubnets;
      // Off the cluster subnets only while other networks hold them all: another test file's
      // cluster network, made meanwhile (the engine then picks one, as ensureNetwork says). That
      // cannot be checked after the fact (the other network may be gone by then), so rounds go on,
      // up to six, until one has landed on a cluster subnet.
      let subnet = "";
      let onCluster = 0;
      let round = 0;
      while (round < 3 || (subnets.length > 0 && onCluster === 0 && round < 6)) {
        round++;
        const made = await Promise.all([1, 2, 3].map(() => rt.ensureNetwork(name, labels)));
        t.equal(new Set(made.map((n) => n.id)).size, 1, `round ${round}: one network for the three`);
        t.same(await namedAlike(), [name], `round ${round}: the engine holds one of the name`);
        const got = made[0]!.subnets[0]?.subnet ?? "";
        if (subnets.includes(got)) [subnet, onCluster] = [got, onCluster + 1];
        else t.comment(`round ${round}: on ${got}, the engine's pick (the cluster subnets were held)`);
        await rt.removeNetwork(name);
      }
      if (subnets.length > 0) t.ok(onCluster > 0, `on a cluster subnet in ${onCluster} of ${round} rounds (${subnet})`);
      // That subnet held by a network of another name: the next one is taken, or the engine's pick.
      if (subnets.length > 0) {
        // Another test file's network may take that subnet meanwhile: then it is the foreign one,
        // and it may be gone again before ensureNetwork looks (the subnet is free then): only a
        // foreign network of this test's own is sure to hold it.
        const held = await runCommand(runtime, ["network", "create", "--subnet", subnet, foreign], { reject: false });
        if (held.exitCode !== 0) t.match(held.stderr, /Pool overlaps/, "taken by another test's network");
        else {
          const next = await rt.ensureNetwork(name, labels);
          t.not(next.subnets[0]?.subnet, subnet, `another subnet: ${next.subnets[0]?.subnet}`);
        }
      }
    },
  );

  t.test(`${runtime}: starting the sandbox starts no container already created in it`, async (t) => {
    // up creates an init container while the sandbox starts: a start that took it along would run it twice.
    const pod = `rt-start-${runtime}-${unique()}`;
    const ctx = await setUp(t, runtime, pod);
    if (!ctx) return;
    const { env, rt } = ctx;
    t.teardown(() => rt.removeSandbox(pod));
    await rt.createSandbox({
      name: pod,
      image: env.images.pause,
      labels: podLabels(pod, "POD"),
      hostname: pod,
      ports: [],
      hostNetwork: false,
    });
    const id = await rt.createContainer({
      name: `${pod}-init`,
      image: env.images.busybox,
      command: ["echo", "ran"],
      labels: podLabels(pod, "init"),
      sandbox: pod,
      hostNetwork: false,
      restartPolicy: "no",
    });
    await rt.startSandbox(pod);
    const [state] = await rt.inspectContainers([id]);
    t.equal(state?.status, "created", "still only created");
    await rt.startContainer(id);
    t.equal(await rt.waitContainer(id), 0);
    t.equal(await rt.logs(id), "ran", "it ran once");
  });

  t.test(`${runtime}: dry-run records every command and creates nothing`, async (t) => {
    const pod = `rt-dry-${runtime}-${unique()}`;
    const ctx = await setUp(t, runtime, pod);
    if (!ctx) return;
    const { env } = ctx;
    const recorded: RuntimeCommand[] = [];
    const rt = new CliRuntime({ name: runtime, binary: runtime, dryRun: { record: (c) => recorded.push(c) } });
    t.same(await rt.inspectImages([env.images.busybox]), new Map(), "no image is known: the plan pulls");
    t.same(await rt.pullImage(env.images.busybox), { id: "", size: 0 });
    const sandbox = await rt.createSandbox({
      name: pod,
      image: env.images.pause,
      labels: podLabels(pod, "POD"),
      hostname: pod,
      ports: [],
      hostNetwork: false,
    });
    t.equal(sandbox, `${pod}_POD`, "the infra container's name stands for its ID");
    await rt.startSandbox(pod);
    const id = await rt.createContainer({
      name: `${pod}-app`,
      image: env.images.busybox,
      env: [{ name: "A", value: "1" }],
      labels: podLabels(pod, "app"),
      sandbox: pod,
      hostNetwork: false,
      restartPolicy: "always",
    });
    t.equal(id, `${pod}-app`);
    await rt.startContainer(id);
    t.equal(await rt.waitContainer(id), 0);
    t.same(await rt.listContainers({ "io.kubernetes.pod.name": pod }), []);
    await rt.removeSandbox(pod);
    t.same(
      recorded.map((c) => c.args.slice(0, 2).join(" ")),
      [
        "image inspect",
        `pull ${env.images.busybox}`,
        runtime === "podman" ? "pod create" : "create --name",
        `start ${pod}_POD`,
        `create --name`,
        `start ${pod}-app`,
        `wait ${pod}-app`,
        "ps -a",
        runtime === "podman" ? "pod rm" : "rm -f",
      ],
    );
    t.ok(recorded.every((c) => c.binary === runtime));
    const created = await runCommand(runtime, ["ps", "-a", "-q", "--filter", `label=io.kubernetes.pod.name=${pod}`]);
    t.equal(created.stdout.trim(), "", "nothing was created");
  });
}
