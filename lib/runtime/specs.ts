// The shapes podrun's pod logic hands a runtime: what a sandbox and a container are made of, in
// Kubernetes terms already resolved (names, labels, mounts, cgroup and security settings). One file,
// importing nothing, so that the runtime's interface (types.ts), its argv builders (*-args.ts) and
// the dialect table can all read them without importing one another.

/** A port published on the host, from a container port with `hostPort`. */
export interface PortMapping {
  containerPort: number;
  hostPort: number;
  protocol: "TCP" | "UDP" | "SCTP";
  /** Host address to bind; empty or undefined means all addresses. */
  hostIP?: string;
}

/** The pod sandbox: docker/nerdctl an infra (pause) container, podman a real pod. */
export interface SandboxSpec {
  /** Runtime name of the sandbox: the infra container (docker/nerdctl) or the pod (podman). */
  name: string;
  /** The infra image (registry.k8s.io/pause:3.10 unless overridden), already present locally. */
  image: string;
  /** All labels, the kubelet's four (container name `POD`) and io.podrun.managed among them. */
  labels: Record<string, string>;
  /** The pod's hostname (its name), unless hostNetwork. */
  hostname?: string;
  /** Ports published on the sandbox: with a shared network namespace, that is where they live. */
  ports: PortMapping[];
  hostNetwork: boolean;
  /** The network the sandbox joins, with its DNS names; absent: the engine's default network (or the host's). */
  network?: SandboxNetwork;
  /** Pod-level settings (shared PID namespace, host IPC, sysctls); absent when the pod sets none. */
  settings?: SandboxSettings;
}

/** A network a sandbox joins, and the names the engine's DNS gives it there. */
export interface SandboxNetwork {
  name: string;
  /** The network's ID, which the create joins by (a name may be ambiguous: network.ts); absent in a plan. */
  id?: string;
  aliases: string[];
}

/** An engine network, as ensureNetwork finds or makes it. */
export interface NetworkInfo {
  id: string;
  name: string;
  labels: Record<string, string>;
  /** Its subnets, with their gateways when the engine says. */
  subnets: { subnet: string; gateway?: string }[];
  /** Whether the engine's DNS answers containers' names and aliases on it. */
  dns: boolean;
  /** Where a container on it sends DNS queries; undefined when the engine has no DNS there. */
  dnsServer?: string;
  /** The bridge's interface on the engine's host (docker0, br-1a2b3c4d5e6f, podman1), when the engine says. */
  bridge?: string;
}

/** What `create` needs for one container of a pod, with Kubernetes semantics. */
export interface ContainerSpec {
  /** Runtime container name, unique per engine. */
  name: string;
  /** Image reference with the default tag applied (`busybox:latest`), present locally. */
  image: string;
  /** Kubernetes `command`: replaces the image ENTRYPOINT (and so drops its CMD). Empty = unset. */
  command?: string[];
  /** Kubernetes `args`: replaces the image CMD. Empty = unset. */
  args?: string[];
  /** Environment, in order. Values never go on a command line (they may hold secrets). */
  env?: { name: string; value: string }[];
  /**
   * command and args as `--dry-run` prints them, when they differ: a `$(VAR)` whose value comes
   * from a Secret stays unexpanded there (the engine's own argv cannot avoid the value).
   */
  printed?: { command?: string[]; args?: string[] };
  workingDir?: string;
  labels: Record<string, string>;
  /** The sandbox to join (its SandboxSpec.name), or undefined to run without one. */
  sandbox?: string;
  hostNetwork: boolean;
  /** A container of its own, in no sandbox (a Service's proxy): the network it joins, with its names. */
  network?: SandboxNetwork;
  /** A container of its own: the ports it publishes on the host. */
  ports?: PortMapping[];
  /** Engine restart policy; init containers and podrun-managed restarts use "no". */
  restartPolicy: "no" | "always" | "on-failure";
  /** Seconds between the stop signal and SIGKILL (terminationGracePeriodSeconds). */
  stopTimeoutSeconds?: number;
  /** The container's volumeMounts that podrun honours, in manifest order. */
  mounts?: VolumeMount[];
  /** cpu and memory limits and requests as cgroup settings (resource-args.ts); undefined when none are set. */
  resources?: ResourceArgs;
  /** The pod-level settings the container joins (shareProcessNamespace); absent when none. */
  podSettings?: ContainerPodSettings;
  /** The effective securityContext (lib/pod/spec/security-context.ts); undefined when none is set. */
  security?: SecurityArgs;
  /** stdin and tty (terminal-args.ts); undefined when the container sets neither. */
  terminal?: TerminalArgs;
}

/**
 * One volumeMount: an engine volume, a tmpfs of the container's own, or a bind mount of a host
 * path. A bind is planned as `bind` (what it is, the same on every run: it goes into the spec hash)
 * and made concrete as `source` just before create (lib/pod/volumes/mount-sources.ts); the argv needs `source`.
 */
export interface VolumeMount {
  /** Runtime volume name (createVolume); for a tmpfs or a bind, the name it stands for, for messages. */
  volume: string;
  /** mountPath in the container. */
  target: string;
  readOnly: boolean;
  /** A tmpfs mount instead of the volume (emptyDir medium Memory used by this container alone). */
  tmpfs?: boolean;
  /** Size of the tmpfs in bytes (emptyDir sizeLimit); undefined: the engine's default. */
  tmpfsSizeBytes?: number;
  /** The pod's fsGroup, for a tmpfs: its root given to that group, setgid (volume-ownership.ts). */
  tmpfsGroup?: number;
  /** A bind mount, as planned: which host directory it comes from, and the subPath in it. */
  bind?: BindOrigin;
  /** The host path (file or directory) to bind-mount: set once `bind` is resolved. */
  source?: string;
  /**
   * mountPropagation of a bind: `rslave` (HostToContainer), `rshared` (Bidirectional); absent for
   * None, the engines' default (rprivate), as the kubelet's CRI call leaves it.
   */
  propagation?: "rslave" | "rshared";
}

/**
 * Where a bind mount's files live on the host: `files` a directory podrun wrote in the pod
 * directory (configMap, secret, downwardAPI, projected: `volume` is the Kubernetes volume name),
 * `host` a hostPath (`path`), `engine-volume` an emptyDir's engine volume (mounted by subPath).
 * `subPath` is the volumeMount's subPath, or its subPathExpr (`expand`) still to be expanded.
 */
export interface BindOrigin {
  from: "files" | "host" | "engine-volume";
  /** hostPath: the path on the host. */
  path?: string;
  subPath?: string;
  /** subPath is a subPathExpr: `$(VAR)` expanded with the container's environment. */
  expand?: boolean;
  /** A subPath of a `files` volume: SHA-256 of the volume's files, for the spec hash (never the files). */
  contentDigest?: string;
}

/**
 * The cgroup settings of one container, in the engine's units. Only what the manifest sets is
 * present, so that a container without resources has none (and hashes as before).
 */
export interface ResourceArgs {
  /** `limits.memory` in bytes: the memory limit, and the memory+swap limit (no swap). */
  memoryLimitBytes?: number;
  /** `requests.memory` in bytes: the memory reservation (a soft limit). */
  memoryReservationBytes?: number;
  /** From `limits.cpu`: CFS period and quota, in µs. */
  cpuPeriod?: number;
  cpuQuota?: number;
  /** From `requests.cpu` (or `limits.cpu` when no request is set): relative CPU weight. */
  cpuShares?: number;
}

/** The pod cgroup's settings; only what the pod sets is present. */
export interface PodResourceArgs {
  /** `limits.memory` in bytes: the pod's memory limit, and its memory+swap limit (no swap). */
  memoryLimitBytes?: number;
  /** From `limits.cpu`: the CFS quota (µs) over the kubelet's QUOTA_PERIOD. */
  cpuQuota?: number;
  /** From `requests.cpu` (as defaulted: the containers' sum, else the limit): the CPU weight. */
  cpuShares?: number;
}

/** Pod-level settings made on the sandbox; each part absent when the pod does not set it. */
export interface SandboxSettings {
  /** spec.shareProcessNamespace: every container of the pod in one PID namespace. */
  sharePid?: boolean;
  /** spec.hostIPC: podman's pod must not hold an IPC namespace its containers would join. */
  hostIpc?: boolean;
  /** spec.securityContext.sysctls as `name=value`, set in the sandbox's namespaces. */
  sysctls?: string[];
  /** spec.hostUsers: false: a user namespace of the pod's own (podman only; docker and nerdctl are warned of). */
  privateUsers?: boolean;
  /** spec.resources: the pod cgroup's limits (podman's pod; pod-resource-args.ts). */
  resources?: PodResourceArgs;
}

/** What a container needs to join the sandbox's pod-level settings (docker/nerdctl only). */
export interface ContainerPodSettings {
  /** Join the infra container's PID namespace. */
  sharePid?: boolean;
  /** spec.hostPID: the host's PID namespace (all three CLIs). */
  hostPid?: boolean;
  /** spec.hostIPC: the host's IPC namespace (all three CLIs). */
  hostIpc?: boolean;
}

/** The security settings `create` expresses, already merged: container value over pod value. */
export interface SecurityArgs {
  /** runAsUser: the uid the container process runs as. */
  user?: number;
  /** runAsGroup: its primary gid. */
  group?: number;
  /** fsGroup then supplementalGroups, in the kubelet's order. */
  supplementalGroups?: number[];
  readOnlyRootFilesystem?: boolean;
  /** capabilities.add / drop, normalised: upper case without `CAP_`, or `ALL`. */
  capAdd?: string[];
  capDrop?: string[];
  privileged?: boolean;
  /** allowPrivilegeEscalation: false. */
  noNewPrivileges?: boolean;
  /**
   * runAsNonRoot: true. No flag: checked before create (security-context.ts verifyRunAsNonRoot);
   * here so that the spec hash sees it and `up` again recreates a container that now needs it.
   */
  runAsNonRoot?: boolean;
  /**
   * seccompProfile: `unconfined`, or the absolute path of a Localhost profile. RuntimeDefault sets
   * nothing: docker, podman and nerdctl apply their own default profile unless told otherwise.
   */
  seccomp?: string;
  /**
   * appArmorProfile (lib/pod/spec/security-options.ts): `unconfined` or a loaded profile's name.
   * RuntimeDefault sets nothing, as for seccomp.
   */
  appArmor?: string;
  /** seLinuxOptions as `user:…`, `role:…`, `type:…`, `level:…`, each a `label=` option. */
  seLinux?: string[];
  /** procMount: Unmasked. */
  unmaskedProc?: boolean;
}

/** `stdin` and `tty` of a container that sets either; absent otherwise, so that its argv and hash stay as before. */
export interface TerminalArgs {
  /** stdin: the container's standard input stays open, though no one writes to it. */
  stdin?: boolean;
  /** tty: the container's standard streams are a terminal. */
  tty?: boolean;
}
