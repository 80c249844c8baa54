// Golden argv per dialect: what podrun asks docker, podman and nerdctl to create, and how the
// environment is split between an env file and names passed through the CLI's own environment.
import t from "tap";
import { buildCreateArgs, buildSandboxArgs, resolveCommand } from "../../lib/runtime/create-args.js";
import { DIALECTS } from "../../lib/runtime/dialects.js";
import { planEnv, type EnvPlan } from "../../lib/runtime/env-plan.js";
import { PodrunError } from "../../lib/errors.js";
import type { ContainerSpec, SandboxSpec } from "../../lib/runtime/types.js";

const { docker, podman, nerdctl } = DIALECTS;

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
const IMAGE = "127.0.0.1:5100/podrun-test/busybox:1.36";
const NO_ENV: EnvPlan = { byName: [], childEnv: {} };

const base: ContainerSpec = {
  name: "web-app",
  image: IMAGE,
  labels: { "io.kubernetes.pod.name": "web", "io.podrun.managed": "true" },
  sandbox: "web",
  hostNetwork: false,
  restartPolicy: "always",
};
const LABELS = ["--label", "io.kubernetes.pod.name=web", "--label", "io.podrun.managed=true"];

t.test("a plain container: joins the sandbox in each dialect, image defaults kept", async (t) => {
  t.same(buildCreateArgs(docker, base, NO_ENV), [
    "create",
    "--name",
    "web-app",
    "--network",
    "container:web_POD",
    "--ipc",
    "container:web_POD",
    ...LABELS,
    "--restart",
    "always",
    "--pull",
    "never",
    IMAGE,
  ]);
  t.same(buildCreateArgs(nerdctl, base, NO_ENV), [
    "create",
    "--name",
    "web-app",
    "--network",
    "container:web_POD",
    "--ipc",
    "container:web_POD",
    ...LABELS,
    "--restart",
    "always",
    "--pull",
    "never",
    IMAGE,
  ]);
  t.same(buildCreateArgs(podman, base, NO_ENV), [
    "create",
    "--name",
    "web-app",
    "--pod",
    "web",
    ...LABELS,
    "--restart",
    "always",
    "--pull",
    "never",
    IMAGE,
  ]);
  t.notOk(
    buildCreateArgs(docker, base, NO_ENV).includes("--hostname"),
    "docker refuses --hostname with a container network",
  );
});

t.test("command and args over the image's ENTRYPOINT and CMD", async (t) => {
  const tail = (spec: ContainerSpec, dialect = docker) => {
    const args = buildCreateArgs(dialect, { ...base, ...spec }, NO_ENV);
    const at = args.indexOf("--pull");
    return args.slice(at + 2);
  };
  t.same(
    tail({ ...base, command: ["/bin/sh", "-c"] }),
    ["--entrypoint", "/bin/sh", IMAGE, "-c"],
    "command only: entrypoint, CMD dropped",
  );
  t.same(tail({ ...base, args: ["a", "b"] }), [IMAGE, "a", "b"], "args only: image ENTRYPOINT kept, CMD replaced");
  t.same(
    tail({ ...base, command: ["/bin/echo", "x"], args: ["y", "z"] }),
    ["--entrypoint", "/bin/echo", IMAGE, "x", "y", "z"],
    "both",
  );
  t.same(tail(base), [IMAGE], "neither: image defaults");
  t.same(tail({ ...base, command: [], args: [] }), [IMAGE], "empty lists count as unset");

  t.same(
    tail({ ...base, command: ["/bin/sh", "-c"] }, podman),
    ["--entrypoint", '["/bin/sh","-c"]', IMAGE],
    "podman: JSON form",
  );
  t.same(tail({ ...base, command: ["/bin/echo"], args: ["y"] }, podman), ["--entrypoint", '["/bin/echo"]', IMAGE, "y"]);
  t.same(
    tail({ ...base, command: ["[weird]"] }, podman),
    ["--entrypoint", '["[weird]"]', IMAGE],
    "a `[` is never misread as JSON",
  );
  t.same(tail({ ...base, command: ["/bin/echo", "x"], args: ["y"] }, nerdctl), [
    "--entrypoint",
    "/bin/echo",
    IMAGE,
    "x",
    "y",
  ]);
  t.same(resolveCommand(docker, undefined, ["only"]), { afterImage: ["only"] });
});

t.test("env: values go to the file, never to argv", async (t) => {
  const env = [
    { name: "PLAIN", value: "secret-1" },
    { name: "EQUALS", value: "a=b=c" },
    { name: "SPACES", value: "  lead and trail  " },
    { name: "QUOTES", value: `"double" 'single'` },
    { name: "DOLLAR", value: "$HOME ${HOME}" },
    { name: "HASH", value: "x # not a comment" },
    { name: "UNICODE", value: "ünïcødé ✓" },
    { name: "NEWLINE", value: "line1\nline2" },
  ];
  for (const dialect of [docker, podman, nerdctl]) {
    const plan = planEnv(dialect, env);
    const args = buildCreateArgs(dialect, { ...base, env }, plan, "/tmp/podrun-env-x/env");
    for (const { value } of env)
      t.notOk(
        args.some((arg) => arg.includes(value)),
        `${dialect.name}: ${JSON.stringify(value)} not in argv`,
      );
    t.same(args.slice(args.indexOf("--env-file"), args.indexOf("--env-file") + 2), [
      "--env-file",
      "/tmp/podrun-env-x/env",
    ]);
    t.ok(
      args.includes("NEWLINE") && args[args.indexOf("NEWLINE") - 1] === "-e",
      `${dialect.name}: a line break goes by name`,
    );
    t.same(plan.childEnv["NEWLINE"], "line1\nline2");
    t.match(
      plan.fileContent,
      /^# podrun: [^\n]*\nPLAIN=secret-1\nEQUALS=a=b=c\n/,
      "a comment first: docker strips a BOM from line 1",
    );
  }
  // docker keeps everything but line breaks in the file (checked on docker 28.2 and podman 4.3).
  t.same(planEnv(docker, env).byName, ["NEWLINE"]);
  // podman: what its 4.6-4.7 dotenv parser would treat specially goes by name.
  t.same(planEnv(podman, env).byName, ["SPACES", "QUOTES", "DOLLAR", "HASH", "NEWLINE"]);
  // nerdctl trims each line: trailing white space goes by name.
  t.same(planEnv(nerdctl, env).byName, ["SPACES", "NEWLINE"]);
});

t.test("env: names the file cannot carry, duplicates, and names the CLI reads itself", async (t) => {
  const plan = planEnv(docker, [
    { name: "A", value: "1" },
    { name: "with space", value: "x" },
    { name: "#hash", value: "y" },
    { name: "A", value: "2" },
  ]);
  t.same(plan.byName, ["with space", "#hash"]);
  t.equal(plan.fileContent?.split("\n").slice(1).join("\n"), "A=2\n", "the last duplicate wins, as in Kubernetes");
  t.same(planEnv(docker, []), { byName: [], childEnv: {} }, "no env: no file");

  t.same(
    planEnv(docker, [{ name: "PATH", value: "/app/bin:/bin" }]).byName,
    [],
    "PATH without a line break is fine in the file",
  );
  for (const name of [
    "PATH",
    "HOME",
    "DOCKER_HOST",
    "CONTAINER_HOST",
    "CONTAINERS_CONF",
    "REGISTRY_AUTH_FILE",
    "XDG_RUNTIME_DIR",
    "TMPDIR",
    "CONTAINERD_ADDRESS",
    "NERDCTL_TOML",
    "BUILDKIT_HOST",
    "LD_PRELOAD",
  ]) {
    const error = catchError(() => planEnv(docker, [{ name, value: "a\nb" }]));
    t.ok(
      error instanceof PodrunError && error.reason === "CreateContainerConfigError",
      `${name}: CreateContainerConfigError`,
    );
    t.match((error as Error).message, `environment variable ${name}: docker cannot receive this value`);
    t.notMatch((error as Error).message, "a\nb", "the value is not in the message");
  }
  t.throws(() => planEnv(docker, [{ name: "N", value: "a\0b" }]), /NUL/);
  t.throws(() => planEnv(podman, [{ name: "HOME", value: `"quoted"` }]), /podman cannot receive this value/);
});

t.test(
  "env: a value too long for an env-file line goes by name; one too long for any channel is refused",
  async (t) => {
    // The CLIs' line scanner holds 64 KiB with the line break; the kernel takes 128 KiB per env string.
    const fits = "x".repeat(64 * 1024 - 1 - "LONG=".length);
    for (const dialect of [docker, podman, nerdctl]) {
      t.same(
        planEnv(dialect, [{ name: "LONG", value: fits }]).byName,
        [],
        `${dialect.name}: the longest line the file holds`,
      );
      const byName = planEnv(dialect, [{ name: "LONG", value: `${fits}x` }]);
      t.same(byName.byName, ["LONG"], `${dialect.name}: one byte more goes by name`);
      t.equal(byName.childEnv["LONG"], `${fits}x`);
      t.equal(byName.fileContent, undefined);
      // Multi-byte characters count in bytes.
      t.same(
        planEnv(dialect, [{ name: "LONG", value: "é".repeat(40_000) }]).byName,
        ["LONG"],
        `${dialect.name}: bytes, not characters`,
      );
      const error = catchError(() => planEnv(dialect, [{ name: "HUGE", value: "y".repeat(128 * 1024) }]));
      t.ok(
        error instanceof PodrunError && error.reason === "CreateContainerConfigError",
        `${dialect.name}: CreateContainerConfigError`,
      );
      t.equal((error as Error).message.split("\n").length, 1, "one line");
      t.match(
        (error as Error).message,
        `environment variable HUGE: its value is 131072 bytes, longer than ${dialect.name} can receive`,
      );
      t.same(
        planEnv(dialect, [{ name: "BIG", value: "z".repeat(128 * 1024 - 1 - "BIG=".length) }]).byName,
        ["BIG"],
        `${dialect.name}: the longest value the environment carries`,
      );
    }
    const own = catchError(() => planEnv(docker, [{ name: "HOME", value: "h".repeat(70_000) }]));
    t.match(
      (own as Error).message,
      "environment variable HOME: docker cannot receive this value through an env file (it is longer than an env-file line may be)",
    );
  },
);

t.test("restart policies, working dir, stop timeout", async (t) => {
  for (const policy of ["no", "always", "on-failure"] as const) {
    const args = buildCreateArgs(docker, { ...base, restartPolicy: policy }, NO_ENV);
    t.same(args.slice(args.indexOf("--restart"), args.indexOf("--restart") + 2), ["--restart", policy]);
  }
  const args = buildCreateArgs(podman, { ...base, workingDir: "/srv", stopTimeoutSeconds: 5 }, NO_ENV);
  t.same(args, [
    "create",
    "--name",
    "web-app",
    "--pod",
    "web",
    ...LABELS,
    "--workdir",
    "/srv",
    "--restart",
    "always",
    "--stop-timeout",
    "5",
    "--pull",
    "never",
    IMAGE,
  ]);
});

t.test("hostNetwork containers: --network host, no sandbox to join", async (t) => {
  const spec = { ...base, sandbox: undefined, hostNetwork: true };
  t.same(buildCreateArgs(docker, spec, NO_ENV).slice(0, 5), ["create", "--name", "web-app", "--network", "host"]);
  t.same(buildCreateArgs(podman, spec, NO_ENV).slice(0, 5), ["create", "--name", "web-app", "--network", "host"]);
  t.same(
    buildCreateArgs(podman, { ...spec, sandbox: "web" }, NO_ENV).slice(0, 5),
    ["create", "--name", "web-app", "--pod", "web"],
    "podman: the pod holds the host network",
  );
});

const sandbox: SandboxSpec = {
  name: "web",
  image: "registry.k8s.io/pause:3.10",
  labels: { "io.kubernetes.pod.name": "web", "io.kubernetes.container.name": "POD", "io.podrun.managed": "true" },
  hostname: "web",
  ports: [
    { containerPort: 8080, hostPort: 18080, protocol: "TCP", hostIP: "127.0.0.1" },
    { containerPort: 53, hostPort: 5353, protocol: "UDP" },
    { containerPort: 80, hostPort: 8081, protocol: "TCP", hostIP: "::1" },
  ],
  hostNetwork: false,
};
const SANDBOX_LABELS = [
  "--label",
  "io.kubernetes.pod.name=web",
  "--label",
  "io.kubernetes.container.name=POD",
  "--label",
  "io.podrun.managed=true",
];
const PORTS = ["-p", "127.0.0.1:18080:8080/tcp", "-p", "5353:53/udp", "-p", "[::1]:8081:80/tcp"];

t.test("sandbox with ports: an infra container (docker, nerdctl) or a pod (podman)", async (t) => {
  const infra = [
    "create",
    "--name",
    "web_POD",
    "--ipc",
    "shareable",
    "--hostname",
    "web",
    ...PORTS,
    ...SANDBOX_LABELS,
    "--pull",
    "never",
    "registry.k8s.io/pause:3.10",
  ];
  t.same(buildSandboxArgs(docker, sandbox), infra);
  t.same(buildSandboxArgs(nerdctl, sandbox), infra);
  t.same(buildSandboxArgs(podman, sandbox), [
    "pod",
    "create",
    "--name",
    "web",
    "--infra-name",
    "web_POD",
    "--infra-image",
    "registry.k8s.io/pause:3.10",
    "--hostname",
    "web",
    ...PORTS,
    ...SANDBOX_LABELS,
  ]);
});

t.test("sandbox with hostNetwork: host network, no ports, no hostname", async (t) => {
  const spec = { ...sandbox, hostNetwork: true, hostname: undefined };
  t.same(buildSandboxArgs(docker, spec), [
    "create",
    "--name",
    "web_POD",
    "--ipc",
    "shareable",
    "--network",
    "host",
    ...SANDBOX_LABELS,
    "--pull",
    "never",
    "registry.k8s.io/pause:3.10",
  ]);
  t.same(buildSandboxArgs(podman, spec), [
    "pod",
    "create",
    "--name",
    "web",
    "--infra-name",
    "web_POD",
    "--infra-image",
    "registry.k8s.io/pause:3.10",
    "--network",
    "host",
    "--uts",
    "host",
    ...SANDBOX_LABELS,
  ]);
});
