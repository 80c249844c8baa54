import { createHash } from "node:crypto";
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import type { ContainerSpec, SandboxSpec } from "../../runtime/types.js";
import { terminationMessageHashPart } from "../termination-message.js";

// What `podrun up` compares to decide whether a container (or the whole pod) still matches the
// manifest. Like the kubelet's `io.kubernetes.container.hash` and docker compose's config-hash,
// each container carries a hash of its effective spec as a label; the infra container (and, for
// hostNetwork pods that have none, every container) carries a hash of the pod-level fields.
// Today's kubelet hashes only name and image, because a Pod's other fields are immutable on a
// cluster; a manifest file is not, so podrun hashes everything that shapes the container, as the
// kubelet once did (its HashContainer covered the whole v1.Container, env included).

/** Hash of the container's effective spec (spec-hash.ts hashContainer). */
export const LABEL_SPEC_HASH = "io.podrun.spec-hash";
/** Hash of the pod-level fields (spec-hash.ts hashPod): a change recreates the whole pod. */
export const LABEL_POD_HASH = "io.podrun.pod-hash";
/** On the sandbox: the pod's container ports (JSON), for a Service's named targetPort. */
export const LABEL_POD_PORTS = "io.podrun.pod.ports";

// Bumped when what is hashed changes: every pod made by an older podrun is then recreated once,
// which is better than keeping a container whose label no longer says what it is.
const HASH_VERSION = 1;

// ContainerSpec fields that name the container or its pod rather than describe it: they are the
// same for every run of a pod (or, for labels, carry the run's UID and the hashes themselves).
// Every other field counts, so a field added to ContainerSpec (mounts, …) counts from day one.
// `printed` is command and args again, for --dry-run.
type NamingField = "name" | "labels" | "sandbox" | "printed";

/**
 * The hash of one container as `create` makes it: the ContainerSpec podrun builds (command, args,
 * environment, working directory, restart policy, stop timeout, mounts…) with the image as written
 * in the manifest, plus the Kubernetes fields that act after creation (ports, lifecycle hooks,
 * probes), so that a changed probe recreates the container too.
 */
export function hashContainer(spec: ContainerSpec, container: Container): string {
  const {
    name: _name,
    labels: _labels,
    sandbox: _sandbox,
    printed: _printed,
    image: _image,
    env,
    ...rest
  } = spec as ContainerSpec & Record<NamingField, unknown>;
  return shortHash({
    version: HASH_VERSION,
    spec: rest,
    // As written: `busybox` and `busybox:latest` are different manifests, though the same image.
    image: container.image,
    // Values (which may be secrets) are hashed apart, so that the label never carries anything
    // closer to them than a digest of a digest. Anyone who can read the label can read the
    // container's environment with `inspect` anyway.
    env: digest(env ?? []),
    ports: container.ports ?? [],
    lifecycle: container.lifecycle ?? {},
    livenessProbe: container.livenessProbe ?? null,
    readinessProbe: container.readinessProbe ?? null,
    startupProbe: container.startupProbe ?? null,
    // Undefined (left out) while path and policy are the defaults: see termination-message.ts.
    terminationMessage: terminationMessageHashPart(container),
  });
}

/**
 * The hash of what the sandbox is made of, and of what runs before the app containers: published
 * ports (hostPorts, and containerPorts under --publish-all), hostNetwork, hostname, the pod-level
 * settings (shared PID namespace…), what the pod's /etc/hosts and resolv.conf are made of
 * (hostAliases, subdomain, DNS), the infra image as given, the pod's labels (the sandbox carries
 * them), its volumes, and each init container's hash (an init container only runs in a new pod,
 * so changing one means a new pod).
 */
export function hashPod(options: {
  pod: Pod;
  sandbox: Pick<SandboxSpec, "hostname" | "ports" | "hostNetwork" | "settings">;
  infraImage: string;
  initContainerHashes: readonly string[];
  /** lib/pod/etc/etc-files.ts planPodEtcFiles; undefined for a pod that sets none of it. */
  etcFiles?: unknown;
}): string {
  const { pod, sandbox, infraImage, initContainerHashes } = options;
  return shortHash({
    version: HASH_VERSION,
    hostNetwork: sandbox.hostNetwork,
    hostname: sandbox.hostname ?? null,
    ports: sandbox.ports,
    // Absent when the pod sets none: such a pod hashes as before these settings were honoured.
    settings: sandbox.settings,
    // Absent when undefined: a pod without them hashes as before the pod's files were podrun's.
    etcFiles: options.etcFiles,
    infraImage: sandbox.hostNetwork ? null : infraImage,
    labels: pod.metadata?.labels ?? {},
    volumes: pod.spec?.volumes ?? [],
    initContainers: initContainerHashes,
    // Carried by every container's labels for `ps`; absent when unset, so such a pod hashes as before.
    activeDeadlineSeconds: pod.spec?.activeDeadlineSeconds ?? undefined,
  });
}

/** 16 hex digits of the SHA-256 of the value's canonical JSON: stable across key order. */
export function shortHash(value: unknown): string {
  return digest(value).slice(0, 16);
}

function digest(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/**
 * JSON with object keys sorted at every level, and undefined fields left out (as JSON.stringify
 * does): two objects that mean the same serialize the same, whatever order their keys came in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeys(item)));
  if (value === null || typeof value !== "object") return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) sorted[key] = sortKeys(field);
  }
  return sorted;
}
