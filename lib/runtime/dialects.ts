// What differs between docker, podman and nerdctl, as data: one table read by create-args.ts,
// inspect.ts and cli-runtime.ts, so the three CLIs share one implementation. Every entry was
// checked against docker 28.2 (client) / dockerd 20.10 and podman 4.3.1 on the test machine;
// nerdctl entries follow its command reference and sources (containerd/nerdctl v2).
// The inspect JSON shapes differ in ways one reader absorbs: see inspect.ts. What is the same
// everywhere stays out of the table: `create`/`start`/`wait`/`exec`/`logs --timestamps --tail`,
// `stop -t N`, `ps -a -q --no-trunc --filter label=k=v` (label filters AND-ed, podman 4.3 too),
// `container inspect` and `image inspect` with several arguments (found ones printed, exit non-zero
// when some are absent), `pull`, `create --pull never` (docker 28's CLI handles it on the
// client side, so a 20.10 daemon is fine).
import type { RuntimeName } from "./detect.js";
import { INFRA_CONTAINER_NAME } from "./types.js";

export interface Dialect {
  readonly name: RuntimeName;
  /**
   * docker/nerdctl: the sandbox is an infra (pause) container that others join with
   * `--network container:` and `--ipc container:`. podman: a real pod (`pod create`, `--pod`).
   */
  readonly sandbox: "infra-container" | "pod";
  /**
   * IPC mode of the infra container. docker refuses to join a donor that is not `shareable`
   * ("non-shareable IPC"); nerdctl documents the same mode.
   */
  readonly infraIpcMode?: "shareable";
  /**
   * `rm -f` flags. podman's `rm -f` first waits out the stop timeout (10 s) of a container
   * whose PID 1 ignores SIGTERM: `-t 0` kills at once. docker and nerdctl kill at once anyway.
   */
  readonly forceRemoveFlags: readonly string[];
  /**
   * How `--entrypoint` is written. podman parses a value that starts with `[` as a JSON array,
   * so a plain string could be misread: podman always gets the JSON form, which it also uses to
   * set several words at once. All three clear the image CMD when `--entrypoint` is given
   * (checked on docker and podman 4.3; nerdctl's generateRootfsOpts drops CMD likewise).
   */
  readonly entrypointForm: "string" | "json-array";
  /** Image IDs printed without the `sha256:` prefix (podman). */
  readonly bareImageIds: boolean;
  /** Prefix of labels the CLI adds for its own bookkeeping, hidden from podrun's callers. */
  readonly internalLabelPrefix?: string;
  /** stderr of a command on a missing container, image, pod or volume. */
  readonly notFound: RegExp;
  /**
   * `-v NAME:PATH:nocopy`: docker and podman copy the image's files at PATH into an empty named
   * volume on first mount, which an emptyDir (empty, hiding what the image has there) must not
   * do. nerdctl does no such copy and warns about options it does not know.
   */
  readonly volumeNoCopy: boolean;
  /**
   * `volume rm` flags. docker's `-f` only makes a missing volume a success (one in use is still
   * refused); podman's `-f` removes the containers using the volume first, so podman gets none
   * and its "no such volume" is read as success. nerdctl's `-f` is a documented no-op.
   */
  readonly volumeRemoveFlags: readonly string[];
  /**
   * nerdctl's `volume rm a b` removes nothing when one of them is missing (it looks them all up
   * first): one volume per call. docker and podman remove the others and report the missing one.
   */
  readonly volumeRemoveOneByOne: boolean;
  /**
   * `--tmpfs PATH:…,mode=3777,gid=N` (a Memory emptyDir given to fsGroup): docker passes the
   * options to the kernel's tmpfs, as nerdctl does; podman 4.3 refuses `gid=` ("unknown mount option").
   */
  readonly tmpfsGroupOption: boolean;
  /**
   * `volume create --opt o=gid=N` (an emptyDir given to fsGroup). podman gives a new volume, on
   * its first mount, the owner of the container's user, or the owner and mode of the image's
   * directory at the mount path; `gid=` makes it the group's (uid stays 0) and turns that off.
   * docker's and nerdctl's local driver take `o=` as mount options, for a `device` only.
   */
  readonly volumeGroupOption: boolean;
  /**
   * Whether a value survives this CLI's `--env-file` parser exactly (see env-plan.ts).
   * Values that do not are passed by name (`-e NAME`) through the CLI's own environment.
   */
  readonly envFileKeepsValue: (value: string) => boolean;
  /**
   * How a pull is given registry credentials (pull-auth.ts): docker and nerdctl read
   * `$DOCKER_CONFIG/config.json` (nerdctl has no flag for it), podman takes `--authfile FILE`.
   */
  readonly pullCredentials: "docker-config" | "authfile";
  /**
   * The auths key the engine looks Docker Hub credentials up by: docker's (and nerdctl's, through
   * docker's config package) legacy index address; podman normalises keys to `docker.io`.
   */
  readonly dockerHubAuthKey: string;
  /**
   * Where a user-defined network's DNS answers (network.ts clusterDnsServer): docker's embedded
   * server at 127.0.0.11 in every container; podman's aardvark-dns on the network's gateway, when
   * `network inspect` says `dns_enabled`; nerdctl has no DNS server (it writes the names of a
   * network's containers into their /etc/hosts), so Service names cannot resolve there.
   */
  readonly clusterDns: "embedded" | "gateway" | "none";
  /**
   * The subnets the cluster network is made on: the first that no other network of the engine
   * holds (CliRuntime.ensureNetwork); none, the engine's own pick. docker needs one: dockerd 20.10
   * checks a network's name without a lock, but allocates subnets under one, so a subnet of its
   * own is what makes two runs that make the network at once make one (network.ts).
   * 10.244.0.0/16 is the pod network of a kubeadm cluster with flannel, outside docker's default
   * pools (172.17-31.0.0/16, 192.168.0.0/16) and podman's (10.88.0.0/16, then 10.89.0.0/24
   * upward). podman and nerdctl lock a network's name, so they pick: and podman must. Its
   * aardvark-dns keeps a file per network name whose first line lists the addresses it answers
   * on; a network made anew under the same name on another subnet, while a container of the old one
   * is still listed there, is answered on the old gateway only, and no name resolves on the new one.
   */
  readonly clusterSubnets: readonly string[];
  /**
   * Where the CLI's engine is (engine-location.ts): the environment variable that points it at
   * another endpoint, the command that prints the current context's endpoint (docker's contexts),
   * and the network every engine has, inspected when podrun's cluster network is not made yet.
   */
  readonly endpoint: {
    env: string;
    /**
     * The CLI's contexts (docker's): the command that prints the current one's endpoint, asked
     * only when one is named, by the variable `env` or by config.json's `currentContext` in the
     * directory `configDirEnv` names (else `configDir` under the home directory).
     */
    context?: { args: readonly string[]; env: string; configDirEnv: string; configDir: string };
    defaultNetwork: string;
    /**
     * How to tell the engine runs rootless: a command whose output says so (and what in it), or
     * `user` for an engine that is the CLI itself (podman without a service): rootless exactly
     * when this process is not root, which costs no engine call (`podman info` takes some 200 ms).
     */
    rootless?: { args: readonly string[]; says: RegExp } | "user";
    /** A network's bridge is made with its first container (podman's netavark), not with the network. */
    bridgesOnDemand: boolean;
  };
}

// docker: "No such container|image|object", "get <volume>: no such volume"; podman: "no such
// container", "no container with name or ID", "image not known", "no such pod", "no such volume";
// nerdctl: "no such container|image", containerd "not found" (`volume "x" not found: not found`);
// networks: docker "network x not found", podman "unable to find network with name or ID x: network not found".
const NOT_FOUND =
  /no such (?:container|image|object|pod|volume|network)|no container with (?:name or )?id|no pod with name or id|image not known|network (?:\S+ )?not found|: not found\b/i;

/** docker (CLI opts/file.go) and podman 4.3 (pkg/env): only line breaks break a value. */
const keepsLinesOnly = (value: string): boolean => !/[\r\n]/.test(value);

/**
 * podman 4.6-4.7 shipped a dotenv-like parser (quotes, multi-line values, `#` comments; later
 * reverted). podrun cannot know which parser a podman has, so anything that parser treats
 * specially goes by name instead; podman 4.3 itself keeps all of these.
 */
const keepsPodmanValue = (value: string): boolean =>
  keepsLinesOnly(value) && !/["'`#$\\]/.test(value) && value.trim() === value;

/** nerdctl TrimSpace()s each env-file line (pkg/flagutil): trailing white space would be lost. */
const keepsNerdctlValue = (value: string): boolean => keepsLinesOnly(value) && !/[\s\u0085]$/.test(value);

export const DIALECTS: Readonly<Record<RuntimeName, Dialect>> = {
  docker: {
    name: "docker",
    sandbox: "infra-container",
    infraIpcMode: "shareable",
    forceRemoveFlags: ["-f"],
    entrypointForm: "string",
    bareImageIds: false,
    notFound: NOT_FOUND,
    envFileKeepsValue: keepsLinesOnly,
    volumeNoCopy: true,
    volumeRemoveFlags: ["-f"],
    volumeRemoveOneByOne: false,
    tmpfsGroupOption: true,
    volumeGroupOption: false,
    pullCredentials: "docker-config",
    dockerHubAuthKey: "https://index.docker.io/v1/",
    clusterDns: "embedded",
    clusterSubnets: ["10.244.0.0/16", "10.247.0.0/16"],
    endpoint: {
      env: "DOCKER_HOST",
      context: {
        args: ["context", "inspect", "--format", "{{.Endpoints.docker.Host}}"],
        env: "DOCKER_CONTEXT",
        configDirEnv: "DOCKER_CONFIG",
        configDir: ".docker",
      },
      defaultNetwork: "bridge",
      // A rootless dockerd lists `name=rootless` among its security options.
      rootless: { args: ["info", "--format", "{{json .SecurityOptions}}"], says: /name=rootless/ },
      bridgesOnDemand: false,
    },
  },
  podman: {
    name: "podman",
    sandbox: "pod",
    forceRemoveFlags: ["-f", "-t", "0"],
    entrypointForm: "json-array",
    bareImageIds: true,
    notFound: NOT_FOUND,
    envFileKeepsValue: keepsPodmanValue,
    volumeNoCopy: true,
    volumeRemoveFlags: [],
    volumeRemoveOneByOne: false,
    tmpfsGroupOption: false,
    volumeGroupOption: true,
    pullCredentials: "authfile",
    dockerHubAuthKey: "docker.io",
    clusterDns: "gateway",
    clusterSubnets: [],
    // `podman --remote` and podman machine's client read CONTAINER_HOST (or their connection).
    endpoint: {
      env: "CONTAINER_HOST",
      defaultNetwork: "podman",
      rootless: "user",
      bridgesOnDemand: true,
    },
  },
  nerdctl: {
    name: "nerdctl",
    sandbox: "infra-container",
    infraIpcMode: "shareable",
    forceRemoveFlags: ["-f"],
    entrypointForm: "string",
    bareImageIds: false,
    internalLabelPrefix: "nerdctl/",
    notFound: NOT_FOUND,
    envFileKeepsValue: keepsNerdctlValue,
    volumeNoCopy: false,
    volumeRemoveFlags: [],
    volumeRemoveOneByOne: true,
    tmpfsGroupOption: true,
    volumeGroupOption: false,
    pullCredentials: "docker-config",
    dockerHubAuthKey: "https://index.docker.io/v1/",
    clusterDns: "none",
    clusterSubnets: [],
    endpoint: { env: "CONTAINERD_ADDRESS", defaultNetwork: "bridge", bridgesOnDemand: false },
  },
};

export function getDialect(name: RuntimeName): Dialect {
  return DIALECTS[name];
}

/**
 * Name of the infra container of sandbox `sandbox` (podman's pod, or docker's/nerdctl's bare
 * infra container): `<sandbox>_POD`, with the kubelet's name for it, like every container of
 * the pod is `<sandbox>_<container>`.
 */
export function formatInfraName(sandbox: string): string {
  return `${sandbox}_${INFRA_CONTAINER_NAME}`;
}

/** logrus warnings and notices (nerdctl prints some on every call), not errors. */
const LOG_NOISE = /^(?:time="[^"]*" )?level=(?:warning|info|debug)\b|^(?:WARN|INFO|DEBU)\[/;

/** True when every non-empty line of `stderr` reports a missing object (so "absent" is the answer). */
export function isOnlyNotFound(dialect: Dialect, stderr: string): boolean {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && line !== "[]" && !LOG_NOISE.test(line));
  return lines.length > 0 && lines.every((line) => dialect.notFound.test(line));
}
