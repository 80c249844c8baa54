import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../../lib/runtime/detect.js";
import { runCommand } from "../../../lib/runtime/exec.js";
import { runCli, type CliResult } from "../../harness/cli.js";
import { removeManagedContainers } from "../../harness/cleanup.js";
import { requirePodEngine } from "../../harness/engine.js";
import { BUSYBOX, testPodHeader, uniqueName } from "../../harness/engine-pod.js";
import { startHangingEngineProxy, type HoldRule } from "../../harness/hanging-engine-proxy.js";

// An engine that accepts a request and never answers (test/harness/hanging-engine-proxy.ts, in
// front of the real engine's API socket): with --runtime-request-timeout the step fails in one
// line naming it and the deadline, exit 1, and the pod is undone as any failed start is, even a
// container the engine made after the CLI gave up on it. docker through its daemon's socket;
// podman through a `podman system service` of the test's own (podman --remote, CONTAINER_HOST),
// which shares the local podman's storage, so what is left is seen by the local podman.

// Far above what an answered command takes on a loaded machine, so that only the held one times out.
const DEADLINE = "3s";
const ERROR_LINE = /^Error: [^\n]+$/;
const podYaml = (name: string) =>
  `${testPodHeader(name)}  containers:\n    - name: a\n      image: ${BUSYBOX}\n      command: ["sleep", "600"]\n`;

/** The engine's API socket: dockerd's, or a podman service started for the test (stopped at teardown). */
async function engineSocket(t: Test, runtime: RuntimeName, dir: string): Promise<string> {
  if (runtime === "docker") return "/var/run/docker.sock";
  const socket = join(dir, "podman.sock");
  const service = execa("podman", ["system", "service", "--time=0", `unix://${socket}`], {
    reject: false,
    stdin: "ignore",
  });
  t.teardown(async () => {
    service.kill();
    await service;
  });
  for (let i = 0; i < 100 && !(await stat(socket).catch(() => undefined)); i++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return socket;
}

// The two engines go side by side: each case is mostly the wait for the deadline.
t.jobs = 2;
for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: an engine that never answers fails the step at --runtime-request-timeout, in one line, and leaves nothing`,
    { buffered: true },
    async (t) => {
      if (!(await requirePodEngine(t, runtime))) return;
      const dir = await mkdtemp(join(tmpdir(), "podrun-hang-"));
      t.teardown(() => rm(dir, { recursive: true, force: true }));
      const target = await engineSocket(t, runtime, dir);
      const hostVariable = runtime === "docker" ? "DOCKER_HOST" : "CONTAINER_HOST";

      /** `podrun args…` against the engine behind a proxy that holds what `hold` picks. */
      const throughProxy = async (
        hold: HoldRule,
        args: string[],
      ): Promise<CliResult & { held: string[]; seconds: number }> => {
        const proxy = await startHangingEngineProxy({ socket: join(dir, "proxy.sock"), target, hold });
        try {
          const started = Date.now();
          const result = await runCli([...args, "--runtime", runtime, "--runtime-request-timeout", DEADLINE], {
            // The proxy's socket is this host's engine: its files are shared, said so rather than checked through the proxy.
            env: { PODRUN_STATE_DIR: join(dir, "state"), [hostVariable]: proxy.url, PODRUN_ENGINE_FILES: "shared" },
            timeoutMs: 60_000,
          });
          return { ...result, held: [...proxy.held], seconds: (Date.now() - started) / 1000 };
        } finally {
          await proxy.close();
        }
      };
      const upPod = async (prefix: string) => {
        const name = uniqueName(prefix);
        t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }).then(() => undefined));
        const file = join(dir, `${name}.yaml`);
        await writeFile(file, podYaml(name));
        return { name, file };
      };
      // Read from the engine itself, not through the proxy.
      const containersOf = async (pod: string) =>
        (await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${pod}`])).stdout
          .split("\n")
          .filter(Boolean);
      const checkFailure = (t: Test, r: CliResult & { seconds: number }, line: string) => {
        t.equal(r.exitCode, 1, "exit 1");
        const lines = r.stderr.trimEnd().split("\n");
        t.equal(lines.at(-1), line, "the step and the deadline, in the last line");
        t.same(
          lines.filter((l) => l.startsWith("Error")),
          [line],
          "one error line",
        );
        t.match(lines.at(-1), ERROR_LINE);
        t.notMatch(r.stderr, /^\s+at /m, "no stack trace");
        t.ok(r.seconds < 20, `bounded by the deadline (${r.seconds}s)`);
      };

      await t.test("a create the engine carries out but never answers: the container it made is removed", async (t) => {
        const pod = await upPod("hang-create");
        // docker creates the infra container with the same call: the app container's is the one held.
        const create =
          runtime === "docker"
            ? new RegExp(`/containers/create\\?(.*&)?name=default_${pod.name}_a(&|$)`)
            : /\/libpod\/containers\/create$/;
        const r = await throughProxy(
          (method, path) => (method === "POST" && create.test(path) ? "response" : undefined),
          ["up", "--json", pod.file],
        );
        t.equal(r.held.length, 1, "the create was held");
        checkFailure(
          t,
          r,
          `Error: CreateContainerError: pod/${pod.name}: container a: ${runtime} create did not answer within ${DEADLINE}`,
        );
        t.match(
          r.stdout,
          `"message":"Error: ${runtime} create did not answer within ${DEADLINE}"`,
          "the container's Failed event says so too",
        );
        t.same(await containersOf(pod.name), [], "no container of the pod remains");
      });

      await t.test("a sandbox start that never reaches the engine: the sandbox fails, the pod is undone", async (t) => {
        const pod = await upPod("hang-start");
        // The first start is the sandbox's (every other one waits for it); podman's names it by ID.
        let held = false;
        const hold: HoldRule = (method, path) =>
          method === "POST" && /\/containers\/[^/]+\/start(\?|$)/.test(path) && !held
            ? ((held = true), "request")
            : undefined;
        const r = await throughProxy(hold, ["up", pod.file]);
        t.equal(r.held.length, 1, "the start was held");
        checkFailure(
          t,
          r,
          `Error: FailedCreatePodSandBox: pod/${pod.name}: Failed to create pod sandbox: ${runtime} start did not answer within ${DEADLINE}`,
        );
        t.same(await containersOf(pod.name), [], "no container of the pod remains");
      });

      await t.test("a listing that never answers: ps fails in one line", async (t) => {
        const r = await throughProxy(
          (method, path) => (method === "GET" && /\/containers\/json/.test(path) ? "request" : undefined),
          ["ps"],
        );
        t.ok(r.held.length >= 1, "the listing was held");
        checkFailure(t, r, `Error: ${runtime} ps did not answer within ${DEADLINE}`);
        t.equal(r.stdout, "");
      });
    },
  );
}

// up and ps take it above; the value's syntax is test/runtime/request-timeout.test.ts.
t.test(
  "down and logs take --runtime-request-timeout too: a bad value is exit 2 before any engine is asked",
  { buffered: true },
  async (t) => {
    for (const [args, message] of [
      [
        ["down", "--all", "--runtime-request-timeout", "soon"],
        'error: invalid value "soon" for --runtime-request-timeout: expected a duration such as 90s, 5m, 1m30s or 2d\n',
      ],
      [
        ["logs", "web", "--runtime-request-timeout", "0"],
        'error: invalid value "0" for --runtime-request-timeout: the duration must be positive\n',
      ],
    ] as const) {
      const r = await runCli(args, {
        env: {
          DOCKER_HOST: "unix:///nonexistent/podrun-hang.sock",
          CONTAINER_HOST: "unix:///nonexistent/podrun-hang.sock",
        },
      });
      t.equal(r.exitCode, 2, args.join(" "));
      t.equal(r.stderr, message);
    }
  },
);
