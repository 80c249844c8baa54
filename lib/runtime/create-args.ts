// Pure argv builders: a ContainerSpec or SandboxSpec becomes the arguments of one CLI call, in the
// runtime's dialect. Nothing here runs a process or touches the file system.
import { PodrunError } from "../errors.js";
import type { Dialect } from "./dialects.js";
import { formatInfraName } from "./dialects.js";
import { formatEnvArgs, type EnvPlan } from "./env-plan.js";
import { formatSandboxNetworkArgs } from "./network.js";
import { formatResourceArgs } from "./resource-args.js";
import { formatContainerPodSettingsArgs, formatSandboxSettingsArgs } from "./sandbox-settings-args.js";
import { formatSecurityArgs } from "./security-args.js";
import { formatTerminalArgs } from "./terminal-args.js";
import type { ContainerSpec, PortMapping, SandboxSpec, VolumeMount } from "./types.js";

/**
 * `create` arguments for one container. `env` comes from planEnv(); `envFilePath` is where the
 * caller wrote its file (undefined when there is none). No environment value ever appears here.
 */
/** `create` arguments as `run --detach`: the same container, started by the same command. */
export function asRunArgs(createArgs: readonly string[]): string[] {
  return ["run", "--detach", ...createArgs.slice(1)];
}

export function buildCreateArgs(dialect: Dialect, spec: ContainerSpec, env: EnvPlan, envFilePath?: string): string[] {
  const args = ["create", "--name", spec.name];
  args.push(...formatJoinArgs(dialect, spec));
  args.push(...formatContainerPodSettingsArgs(dialect, spec.sandbox, spec.podSettings));
  args.push(...formatLabelArgs(spec.labels));
  if (spec.workingDir) args.push("--workdir", spec.workingDir);
  args.push("--restart", spec.restartPolicy);
  if (spec.stopTimeoutSeconds !== undefined) args.push("--stop-timeout", String(spec.stopTimeoutSeconds));
  args.push(...formatEnvArgs(env, envFilePath));
  args.push(...formatMountArgs(dialect, spec.mounts ?? []));
  args.push(...formatResourceArgs(spec.resources));
  args.push(...formatSecurityArgs(dialect, spec.security));
  args.push(...formatTerminalArgs(spec.terminal));
  // podrun pulls by itself, with the kubelet's policy and back-off: create must never pull.
  args.push("--pull", "never");
  const { entrypoint, afterImage } = resolveCommand(dialect, spec.command, spec.args);
  if (entrypoint !== undefined) args.push("--entrypoint", entrypoint);
  args.push(spec.image, ...afterImage);
  return args;
}

/** A container in no sandbox: the network it joins and the ports it publishes (a Service's proxy). */
function formatOwnNetworkArgs(spec: ContainerSpec): string[] {
  return [...formatSandboxNetworkArgs(spec.network), ...formatPortArgs(spec.ports ?? [])];
}

/** How a container joins its sandbox's namespaces (or the host network). */
function formatJoinArgs(dialect: Dialect, spec: ContainerSpec): string[] {
  if (dialect.sandbox === "pod") {
    // The pod already holds the network (host or not), IPC and UTS namespaces; podman refuses
    // a network option on a container that shares the pod's.
    if (spec.sandbox) return ["--pod", spec.sandbox];
    return spec.hostNetwork ? ["--network", "host"] : formatOwnNetworkArgs(spec);
  }
  const args: string[] = [];
  if (spec.hostNetwork) args.push("--network", "host");
  else if (spec.sandbox) args.push("--network", `container:${formatInfraName(spec.sandbox)}`);
  else args.push(...formatOwnNetworkArgs(spec));
  // No --hostname here: docker and nerdctl refuse it with `--network container:`, and the
  // container sees the sandbox's hostname anyway (the UTS namespace follows the network one).
  // hostIPC: the container takes `--ipc host` instead (sandbox-settings-args.ts).
  if (spec.sandbox && !spec.podSettings?.hostIpc) args.push("--ipc", `container:${formatInfraName(spec.sandbox)}`);
  return args;
}

/**
 * Kubernetes `command`/`args` over the image's ENTRYPOINT/CMD:
 * - command set: ENTRYPOINT = command, CMD = args (the image CMD is dropped even without args);
 * - only args: the image ENTRYPOINT stays, CMD = args;
 * - neither: the image defaults.
 * `--entrypoint` clears the image CMD on all three CLIs, which is what the first case needs.
 */
export function resolveCommand(
  dialect: Dialect,
  command: readonly string[] | undefined,
  args: readonly string[] | undefined,
): { entrypoint?: string; afterImage: string[] } {
  const rest = args ?? [];
  if (!command || command.length === 0) return { afterImage: [...rest] };
  if (dialect.entrypointForm === "json-array") return { entrypoint: JSON.stringify(command), afterImage: [...rest] };
  const [first = "", ...more] = command;
  return { entrypoint: first, afterImage: [...more, ...rest] };
}

/**
 * Arguments that create the sandbox. docker/nerdctl: an infra container (`create`, started
 * separately); podman: `pod create`, whose labels podman copies onto the pod's infra container.
 */
export function buildSandboxArgs(dialect: Dialect, spec: SandboxSpec): string[] {
  if (dialect.sandbox === "pod") {
    const args = ["pod", "create", "--name", spec.name, "--infra-name", formatInfraName(spec.name)];
    args.push("--infra-image", spec.image);
    // Kubernetes hostNetwork pods see the node's hostname: share the host's UTS namespace too.
    if (spec.hostNetwork) args.push("--network", "host", "--uts", "host");
    else if (spec.hostname) args.push("--hostname", spec.hostname);
    if (!spec.hostNetwork) args.push(...formatSandboxNetworkArgs(spec.network), ...formatPortArgs(spec.ports));
    args.push(...formatSandboxSettingsArgs(dialect, spec.settings));
    args.push(...formatLabelArgs(spec.labels));
    return args;
  }
  const args = ["create", "--name", formatInfraName(spec.name)];
  if (dialect.infraIpcMode) args.push("--ipc", dialect.infraIpcMode);
  if (spec.hostNetwork) args.push("--network", "host");
  else {
    if (spec.hostname) args.push("--hostname", spec.hostname);
    args.push(...formatSandboxNetworkArgs(spec.network), ...formatPortArgs(spec.ports));
  }
  args.push(...formatSandboxSettingsArgs(dialect, spec.settings));
  args.push(...formatLabelArgs(spec.labels));
  args.push("--pull", "never", spec.image);
  return args;
}

/** `-p hostIP:hostPort:containerPort/proto`; an IPv6 host address goes in brackets. */
export function formatPortArgs(ports: readonly PortMapping[]): string[] {
  return ports.flatMap((port) => {
    const host = port.hostIP ? `${port.hostIP.includes(":") ? `[${port.hostIP}]` : port.hostIP}:` : "";
    return ["-p", `${host}${port.hostPort}:${port.containerPort}/${port.protocol.toLowerCase()}`];
  });
}

export function formatLabelArgs(labels: Record<string, string>): string[] {
  return Object.entries(labels).flatMap(([key, value]) => ["--label", `${key}=${value}`]);
}

/**
 * volumeMounts: `-v NAME:PATH[:ro][,nocopy]` for an engine volume, `--tmpfs PATH:rw|ro,exec[,size=N]`
 * for a container's own tmpfs, `--mount type=bind,source=HOST,target=PATH[,readonly][,bind-propagation=P]`
 * for a host path. `-v` and `--tmpfs` read the same on all three CLIs; `exec` because every engine mounts a
 * tmpfs `noexec` by default and a kubelet's memory emptyDir is not. A bind goes by `--mount`, never
 * `-v`: `-v` makes a missing source into a new empty directory (docker, nerdctl), where `--mount`
 * refuses it on all three, and `--mount` carries a `:` in either path.
 */
export function formatMountArgs(dialect: Dialect, mounts: readonly VolumeMount[]): string[] {
  return mounts.flatMap((mount) => {
    if (mount.source !== undefined) return formatBindArgs(dialect, mount, mount.source);
    if (mount.bind)
      throw new Error(`volume "${mount.volume}" at ${mount.target}: bind mount not resolved to a host path`);
    // The CLIs split `-v` and `--tmpfs` at ":": a path holding one cannot be said (an emptyDir path never needs it).
    if (mount.target.includes(":")) {
      throw new PodrunError(
        "CreateContainerConfigError",
        `volume mount path "${mount.target}": ${dialect.name} cannot mount at a path containing ":"`,
      );
    }
    if (mount.tmpfs) {
      const size = mount.tmpfsSizeBytes !== undefined ? [`size=${mount.tmpfsSizeBytes}`] : [];
      // The kernel's tmpfs root is 1777; the kubelet's fsGroup walk adds setgid and the group.
      const group =
        mount.tmpfsGroup !== undefined && dialect.tmpfsGroupOption ? ["mode=3777", `gid=${mount.tmpfsGroup}`] : [];
      return ["--tmpfs", `${mount.target}:${[mount.readOnly ? "ro" : "rw", "exec", ...size, ...group].join(",")}`];
    }
    const options = [...(mount.readOnly ? ["ro"] : []), ...(dialect.volumeNoCopy ? ["nocopy"] : [])];
    return ["-v", `${mount.volume}:${mount.target}${options.length > 0 ? `:${options.join(",")}` : ""}`];
  });
}

// `--mount` is one comma-separated list of key=value pairs: a comma (or a quote, which the CSV
// readers of docker and podman would take as quoting, and a line break) in a path cannot be said.
const UNSAYABLE_IN_MOUNT = /[,"\r\n]/;

function formatBindArgs(dialect: Dialect, mount: VolumeMount, source: string): string[] {
  for (const [what, path] of [
    ["host path", source],
    ["volume mount path", mount.target],
  ] as const) {
    if (UNSAYABLE_IN_MOUNT.test(path)) {
      throw new PodrunError(
        "CreateContainerConfigError",
        `${what} ${JSON.stringify(path)} of volume "${mount.volume}": ${dialect.name} --mount cannot carry a path containing a comma, a double quote or a line break`,
      );
    }
  }
  const options = [
    ...(mount.readOnly ? ["readonly"] : []),
    ...(mount.propagation ? [`bind-propagation=${mount.propagation}`] : []),
  ];
  return ["--mount", [`type=bind`, `source=${source}`, `target=${mount.target}`, ...options].join(",")];
}

/** `volume create --label k=v… NAME`: the same on all three CLIs; `--opt o=gid=N` for podman's fsGroup (Dialect.volumeGroupOption). */
export function buildVolumeCreateArgs(name: string, labels: Record<string, string>, group?: number): string[] {
  return [
    "volume",
    "create",
    ...formatLabelArgs(labels),
    ...(group !== undefined ? ["--opt", `o=gid=${group}`] : []),
    name,
  ];
}

/** The `volume rm` calls that remove `names`: one call, or one per volume for nerdctl. */
export function buildVolumeRemoveArgs(dialect: Dialect, names: readonly string[]): string[][] {
  const unique = [...new Set(names)];
  if (unique.length === 0) return [];
  const rm = ["volume", "rm", ...dialect.volumeRemoveFlags];
  return dialect.volumeRemoveOneByOne ? unique.map((name) => [...rm, name]) : [[...rm, ...unique]];
}

/**
 * `volume ls --format json --filter label=k=v…`. docker and nerdctl print one object per line
 * (labels as one `k=v,k=v` string), podman one array (labels as an object); podman 4.3 OR-s
 * several label filters, so the caller checks every label again (volume-list.ts).
 */
export function buildVolumeListArgs(labels: Record<string, string>): string[] {
  return [
    "volume",
    "ls",
    "--format",
    "json",
    ...Object.entries(labels).flatMap(([key, value]) => ["--filter", `label=${key}=${value}`]),
  ];
}

/** `volume inspect NAME`: a JSON array on all three CLIs, each volume with its `Mountpoint`. */
export function buildVolumeInspectArgs(name: string): string[] {
  return ["volume", "inspect", name];
}

/**
 * `network create [--subnet S] --label … NAME`: a bridge with the engine's DNS (docker's embedded
 * server, podman's aardvark-dns); the subnet given, else the engine's pick.
 */
export function buildNetworkCreateArgs(name: string, labels: Record<string, string>, subnet?: string): string[] {
  return ["network", "create", ...(subnet ? ["--subnet", subnet] : []), ...formatLabelArgs(labels), name];
}

/** Every network, `ID<TAB>NAME` a line: names are matched exactly by the reader (a `name` filter matches substrings). */
export function buildNetworkListArgs(): string[] {
  return ["network", "ls", "--no-trunc", "--format", "{{.ID}}\t{{.Name}}"];
}

export function buildNetworkRemoveArgs(name: string): string[] {
  return ["network", "rm", name];
}
