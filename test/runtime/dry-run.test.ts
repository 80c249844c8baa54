// Dry-run mode drives no engine at all: every method records its command and answers as the
// contract says. Also the whole method-to-argv mapping of each dialect, nerdctl included (whose
// CLI is not installed here: had anything been spawned, it would have thrown "not installed").
import t, { type Test } from "tap";
import { CliRuntime } from "../../lib/runtime/cli-runtime.js";
import { isCliFailure } from "../../lib/runtime/cli-results.js";
import type { RuntimeCommand } from "../../lib/runtime/types.js";

const labels = { "io.kubernetes.pod.name": "web", "io.kubernetes.container.name": "POD", "io.podrun.managed": "true" };

async function plan(t: Test, name: "docker" | "podman" | "nerdctl"): Promise<string[][]> {
  const recorded: RuntimeCommand[] = [];
  const rt = new CliRuntime({ name, binary: `/nonexistent/${name}`, dryRun: { record: (c) => recorded.push(c) } });
  t.same(await rt.inspectImages(["busybox:1", "pause:3"]), new Map());
  t.same(await rt.pullImage("busybox:1"), { id: "", size: 0 });
  await rt.createSandbox({
    name: "web",
    image: "pause:3",
    labels,
    hostname: "web",
    ports: [{ containerPort: 80, hostPort: 8080, protocol: "TCP" }],
    hostNetwork: false,
  });
  await rt.startSandbox("web");
  const id = await rt.createContainer({
    name: "web-app",
    image: "busybox:1",
    command: ["sh"],
    env: [
      { name: "TOKEN", value: "hunter2" },
      { name: "PEM", value: "a\nb" },
    ],
    labels: { ...labels, "io.kubernetes.container.name": "app" },
    sandbox: "web",
    hostNetwork: false,
    restartPolicy: "always",
    stopTimeoutSeconds: 5,
  });
  t.equal(id, "web-app", "create answers with the name");
  await rt.startContainer(id);
  t.equal(await rt.waitContainer(id), 0);
  t.same(await rt.execInContainer(id, ["cat", "/ready"], { timeoutMs: 1000 }), { exitCode: 0, stdout: "", stderr: "" });
  t.equal(await rt.logs(id, { tail: 5 }), "");
  await rt.stopContainer(id, 5);
  await rt.removeContainers([id, "web-side"]);
  t.same(await rt.listContainers({ "io.kubernetes.pod.name": "web" }), []);
  t.same(await rt.inspectContainers([id]), []);
  await rt.removeSandbox("web");
  t.ok(recorded.every((c) => c.binary === `/nonexistent/${name}`));
  t.notOk(
    recorded.some((c) => c.args.some((a) => a.includes("hunter2") || a.includes("a\nb"))),
    "no env value in any command",
  );
  return recorded.map((c) => c.args);
}

const common = (rm: string[]) => [
  ["start", "web-app"],
  ["wait", "web-app"],
  ["exec", "web-app", "cat", "/ready"],
  ["logs", "--timestamps", "--tail", "5", "web-app"],
  ["stop", "-t", "5", "web-app"],
  ["rm", ...rm, "web-app", "web-side"],
  ["ps", "-a", "-q", "--no-trunc", "--filter", "label=io.kubernetes.pod.name=web"],
  ["container", "inspect", "web-app"],
];
const LABEL_ARGS = [
  "--label",
  "io.kubernetes.pod.name=web",
  "--label",
  "io.kubernetes.container.name=POD",
  "--label",
  "io.podrun.managed=true",
];
const APP_LABEL_ARGS = [
  "--label",
  "io.kubernetes.pod.name=web",
  "--label",
  "io.kubernetes.container.name=app",
  "--label",
  "io.podrun.managed=true",
];

for (const name of ["docker", "nerdctl"] as const) {
  t.test(`${name}: the recorded plan`, async (t) => {
    t.same(await plan(t, name), [
      ["image", "inspect", "busybox:1", "pause:3"],
      ["pull", "busybox:1"],
      [
        "create",
        "--name",
        "web_POD",
        "--ipc",
        "shareable",
        "--hostname",
        "web",
        "-p",
        "8080:80/tcp",
        ...LABEL_ARGS,
        "--pull",
        "never",
        "pause:3",
      ],
      ["start", "web_POD"],
      [
        "create",
        "--name",
        "web-app",
        "--network",
        "container:web_POD",
        "--ipc",
        "container:web_POD",
        ...APP_LABEL_ARGS,
        "--restart",
        "always",
        "--stop-timeout",
        "5",
        "--env-file",
        "<env-file of web-app>",
        "-e",
        "PEM",
        "--pull",
        "never",
        "--entrypoint",
        "sh",
        "busybox:1",
      ],
      ...common(["-f"]),
      ["rm", "-f", "web_POD"],
    ]);
  });
}

t.test("podman: the recorded plan", async (t) => {
  t.same(await plan(t, "podman"), [
    ["image", "inspect", "busybox:1", "pause:3"],
    ["pull", "busybox:1"],
    [
      "pod",
      "create",
      "--name",
      "web",
      "--infra-name",
      "web_POD",
      "--infra-image",
      "pause:3",
      "--hostname",
      "web",
      "-p",
      "8080:80/tcp",
      ...LABEL_ARGS,
    ],
    ["start", "web_POD"],
    [
      "create",
      "--name",
      "web-app",
      "--pod",
      "web",
      ...APP_LABEL_ARGS,
      "--restart",
      "always",
      "--stop-timeout",
      "5",
      "--env-file",
      "<env-file of web-app>",
      "-e",
      "PEM",
      "--pull",
      "never",
      "--entrypoint",
      '["sh"]',
      "busybox:1",
    ],
    ...common(["-f", "-t", "0"]),
    ["pod", "rm", "-f", "-t", "0", "web"],
  ]);
});

t.test("isCliFailure tells the CLI's own failure from the command's exit code", async (t) => {
  const result = (exitCode: number, stderr: string) => ({ command: "x", exitCode, stdout: "", stderr, durationMs: 1 });
  t.ok(isCliFailure(result(1, "Error response from daemon: No such container: x")), "docker: daemon error");
  t.ok(isCliFailure(result(1, "Error response from daemon: Container 56de is not running")), "docker: stopped");
  t.ok(
    isCliFailure(result(125, 'Error: no container with name or ID "x" found: no such container')),
    "podman: missing",
  );
  t.ok(
    isCliFailure(result(255, "Error: can only create exec sessions on running containers: container state improper")),
    "podman: stopped",
  );
  t.ok(isCliFailure(result(1, 'time="2025-02-12T10:15:42Z" level=fatal msg="no such container x"')), "nerdctl");
  t.notOk(isCliFailure(result(125, "")), "a command's own 125");
  t.notOk(isCliFailure(result(1, "cat: /ready: No such file or directory")), "a command's own failure");
});
