// Golden argv per dialect for the pod-level settings the sandbox carries (shareProcessNamespace,
// hostIPC, sysctls), and for the containers that join its PID namespace. hostAliases and DNS are
// files mounted into the containers (test/pod/etc/), never sandbox flags.
import t from "tap";
import { buildCreateArgs, buildSandboxArgs } from "../../lib/runtime/create-args.js";
import { DIALECTS } from "../../lib/runtime/dialects.js";
import type { EnvPlan } from "../../lib/runtime/env-plan.js";
import { formatContainerPodSettingsArgs, formatSandboxSettingsArgs } from "../../lib/runtime/sandbox-settings-args.js";
import type { ContainerSpec, SandboxSettings, SandboxSpec } from "../../lib/runtime/specs.js";

const { docker, podman, nerdctl } = DIALECTS;
const IMAGE = "127.0.0.1:5100/podrun-test/busybox:1.36";
const PAUSE = "registry.k8s.io/pause:3.10";
const NO_ENV: EnvPlan = { byName: [], childEnv: {} };

const settings: SandboxSettings = { sharePid: true, sysctls: ["net.core.somaxconn=1024"] };
const SETTINGS_ARGS = ["--sysctl", "net.core.somaxconn=1024"];

const sandbox: SandboxSpec = {
  name: "web",
  image: PAUSE,
  labels: { "io.podrun.managed": "true" },
  hostname: "web",
  ports: [],
  hostNetwork: false,
  settings,
};

t.test("sandbox: settings on the infra container (docker, nerdctl) or the pod (podman)", async (t) => {
  const infra = [
    "create",
    "--name",
    "web_POD",
    "--ipc",
    "shareable",
    "--hostname",
    "web",
    ...SETTINGS_ARGS,
    "--label",
    "io.podrun.managed=true",
    "--pull",
    "never",
    PAUSE,
  ];
  t.same(buildSandboxArgs(docker, sandbox), infra);
  t.same(
    buildSandboxArgs(nerdctl, sandbox),
    infra,
    "the infra container keeps its own PID namespace for the others to join",
  );
  t.same(buildSandboxArgs(podman, sandbox), [
    "pod",
    "create",
    "--name",
    "web",
    "--infra-name",
    "web_POD",
    "--infra-image",
    PAUSE,
    "--hostname",
    "web",
    ...SETTINGS_ARGS,
    "--share",
    "ipc,net,uts,pid",
    "--label",
    "io.podrun.managed=true",
  ]);
});

t.test("no settings, no arguments", async (t) => {
  for (const dialect of [docker, podman, nerdctl]) {
    t.same(formatSandboxSettingsArgs(dialect, undefined), []);
    t.same(formatSandboxSettingsArgs(dialect, {}), []);
    t.same(formatContainerPodSettingsArgs(dialect, "web", undefined), []);
  }
  t.same(formatSandboxSettingsArgs(podman, { sharePid: false }), [], "podman's default --share stays");
});

t.test(
  "shareProcessNamespace: docker and nerdctl containers join the infra's PID namespace; podman's pod shares it",
  async (t) => {
    const app: ContainerSpec = {
      name: "web-app",
      image: IMAGE,
      labels: {},
      sandbox: "web",
      hostNetwork: false,
      restartPolicy: "no",
      podSettings: { sharePid: true },
    };
    const joined = [
      "create",
      "--name",
      "web-app",
      "--network",
      "container:web_POD",
      "--ipc",
      "container:web_POD",
      "--pid",
      "container:web_POD",
      "--restart",
      "no",
      "--pull",
      "never",
      IMAGE,
    ];
    t.same(buildCreateArgs(docker, app, NO_ENV), joined);
    t.same(buildCreateArgs(nerdctl, app, NO_ENV), joined);
    t.same(buildCreateArgs(podman, app, NO_ENV), [
      "create",
      "--name",
      "web-app",
      "--pod",
      "web",
      "--restart",
      "no",
      "--pull",
      "never",
      IMAGE,
    ]);
    t.same(formatContainerPodSettingsArgs(docker, undefined, { sharePid: true }), [], "no sandbox, nothing to join");
  },
);

t.test(
  "hostPID and hostIPC: --pid/--ipc host on each container, no --ipc container:; podman's pod keeps no IPC namespace",
  async (t) => {
    const app: ContainerSpec = {
      name: "web-app",
      image: IMAGE,
      labels: {},
      sandbox: "web",
      hostNetwork: false,
      restartPolicy: "no",
      podSettings: { hostPid: true, hostIpc: true },
    };
    const host = [
      "create",
      "--name",
      "web-app",
      "--network",
      "container:web_POD",
      "--pid",
      "host",
      "--ipc",
      "host",
      "--restart",
      "no",
      "--pull",
      "never",
      IMAGE,
    ];
    t.same(buildCreateArgs(docker, app, NO_ENV), host);
    t.same(buildCreateArgs(nerdctl, app, NO_ENV), host);
    t.same(buildCreateArgs(podman, app, NO_ENV), [
      "create",
      "--name",
      "web-app",
      "--pod",
      "web",
      "--pid",
      "host",
      "--ipc",
      "host",
      "--restart",
      "no",
      "--pull",
      "never",
      IMAGE,
    ]);
    t.same(formatSandboxSettingsArgs(podman, { hostIpc: true }), ["--share", "net,uts"]);
    t.same(
      formatSandboxSettingsArgs(docker, { hostIpc: true }),
      [],
      "docker's infra keeps its shareable IPC namespace, unused",
    );
    t.same(
      formatContainerPodSettingsArgs(docker, undefined, { hostPid: true }),
      ["--pid", "host"],
      "without a sandbox too",
    );
  },
);

t.test("sysctls: --sysctl on the sandbox, on all three CLIs", async (t) => {
  for (const dialect of [docker, podman, nerdctl]) {
    t.same(formatSandboxSettingsArgs(dialect, { sysctls: ["net.core.somaxconn=1024", "kernel.shm_rmid_forced=1"] }), [
      "--sysctl",
      "net.core.somaxconn=1024",
      "--sysctl",
      "kernel.shm_rmid_forced=1",
    ]);
  }
});
