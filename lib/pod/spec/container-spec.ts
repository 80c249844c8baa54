import type { Container, Pod } from "kubernetes-types/core/v1.js";
import type { ContainerSpec, PortMapping, SandboxSpec } from "../../runtime/types.js";
import { containerLabels, containerRuntimeName, sandboxRuntimeName, type PodIdentity } from "../identity.js";
import { INFRA_CONTAINER_NAME, LABEL_OWNER } from "../../runtime/types.js";
import { activeDeadlineLabels, buildStopLabels } from "./stop-labels.js";
import { planSecurityOptions } from "./security-options.js";
import { planContainerMounts } from "../volumes/volume-plan.js";
import {
  canonicalJson,
  hashContainer,
  hashPod,
  LABEL_POD_HASH,
  LABEL_POD_PORTS,
  LABEL_SPEC_HASH,
} from "./spec-hash.js";
import { expandCommandAndArgs, resolveHashEnv, type EnvVarValue } from "./container-env.js";
import { NO_OBJECTS, type PodObjects } from "../../manifest/pod-objects.js";
import { planResources } from "../../runtime/resource-args.js";
import { buildContainerPodSettings, buildSandboxSettings, resolvePodHostname } from "./pod-settings.js";
import { planSecurityContext } from "./security-context.js";
import { planTerminal } from "../../runtime/terminal-args.js";
import { terminationMessageLabels } from "../termination-message.js";
import { planPodEtcFiles } from "../etc/etc-files.js";
import { planSandboxNetwork, type ClusterNetwork } from "../cluster-network.js";

/** "sidecar": an init container with `restartPolicy: Always` (a native sidecar, Kubernetes 1.33). */
export type ContainerKind = "init" | "sidecar" | "app";

/** Whether an init container is a sidecar: the kubelet's IsRestartableInitContainer. */
export function isSidecar(container: Pick<Container, "restartPolicy">): boolean {
  return container.restartPolicy === "Always";
}

/** The kind of one of the pod's init containers. */
export function initContainerKind(container: Pick<Container, "restartPolicy">): "init" | "sidecar" {
  return isSidecar(container) ? "sidecar" : "init";
}

const RESTART_POLICIES = { Always: "always", OnFailure: "on-failure", Never: "no" } as const;

/** The runtime config of one container of a (validated, defaulted) pod. */
export function buildContainerSpec(options: {
  pod: Pod;
  identity: PodIdentity;
  container: Container;
  kind: ContainerKind;
  /** The image with its default tag applied, as the image manager returned it. */
  imageRef: string;
  /** computePodHash() of the pod, carried as a label so that `up` can tell a changed pod. */
  podHash?: string;
  /** The ConfigMaps and Secrets the env reads: their values count in the spec hash. */
  objects?: PodObjects;
  /**
   * The container's environment for this run (container-env.ts resolveContainerEnv). Without it,
   * the environment the hash is computed from is used: enough for callers that only want the hash.
   */
  env?: readonly EnvVarValue[];
  /** Variables of `env` whose values come from Secrets (ContainerEnv.secretNames). */
  secretNames?: readonly string[];
}): ContainerSpec {
  const { pod, identity, container, kind, imageRef } = options;
  const spec = pod.spec!;
  // The hash sees values that change from run to run (pod IP, a fresh UID) as fixed markers, so
  // that `up` on an unchanged manifest keeps the container; everything else counts, secrets too.
  const hashEnv = resolveHashEnv({ pod, identity, container, objects: options.objects ?? NO_OBJECTS });
  const env = options.env ?? hashEnv;
  const withEnv = (values: readonly EnvVarValue[]): Pick<ContainerSpec, "command" | "args" | "env"> => {
    const expanded = expandCommandAndArgs(container, values);
    return { command: nonEmpty(expanded.command), args: nonEmpty(expanded.args), env: values.map((e) => ({ ...e })) };
  };
  const built: ContainerSpec = {
    name: containerRuntimeName(identity, container.name),
    image: imageRef,
    ...withEnv(env),
    workingDir: container.workingDir || undefined,
    labels: {
      ...containerLabels(identity, container.name, kind),
      ...workloadLabel(pod),
      ...buildStopLabels(spec, container, kind),
      ...activeDeadlineLabels(spec),
      ...terminationMessageLabels(container),
    },
    sandbox: spec.hostNetwork ? undefined : sandboxRuntimeName(identity),
    hostNetwork: spec.hostNetwork === true,
    restartPolicy: engineRestartPolicy(kind, spec.restartPolicy),
    stopTimeoutSeconds: spec.terminationGracePeriodSeconds ?? 30,
    // The container's own resources, init containers included: each is its own cgroup.
    resources: planResources(container.resources),
    podSettings: buildContainerPodSettings(spec),
  };
  const printed = printedCommand(built, container, env, options.secretNames);
  if (printed) built.printed = printed;
  addMountsAndSecurity(built, { pod, identity, container, objects: options.objects ?? NO_OBJECTS });
  // The hash covers the spec as built, so it is computed last and stored beside the other labels.
  built.labels[LABEL_SPEC_HASH] = hashContainer(options.env ? { ...built, ...withEnv(hashEnv) } : built, container);
  if (options.podHash !== undefined) built.labels[LABEL_POD_HASH] = options.podHash;
  return built;
}

const nonEmpty = (list?: string[]) => (list && list.length > 0 ? [...list] : undefined);

// The command and args as printed: `$(VAR)` of a Secret left unexpanded; undefined when that changes nothing.
function printedCommand(
  built: Pick<ContainerSpec, "command" | "args">,
  container: Container,
  env: readonly EnvVarValue[],
  secretNames: readonly string[] | undefined,
): ContainerSpec["printed"] {
  const secrets = new Set(secretNames ?? []);
  if (secrets.size === 0) return undefined;
  const printed = expandCommandAndArgs(container, env, secrets);
  const shown = { command: nonEmpty(printed.command), args: nonEmpty(printed.args) };
  return canonicalJson(shown) !== canonicalJson({ command: built.command, args: built.args }) ? shown : undefined;
}

// Init containers run once; sidecars always restart, whatever the pod's policy (the kubelet's
// rule); app containers follow the pod's policy through the engine.
function engineRestartPolicy(kind: ContainerKind, podPolicy: string | undefined): ContainerSpec["restartPolicy"] {
  if (kind === "init") return "no";
  if (kind === "sidecar") return "always";
  return RESTART_POLICIES[(podPolicy ?? "Always") as keyof typeof RESTART_POLICIES];
}

// The parts planned elsewhere, each set only when the container asks for it.
function addMountsAndSecurity(
  built: ContainerSpec,
  { pod, identity, container, objects }: { pod: Pod; identity: PodIdentity; container: Container; objects: PodObjects },
): void {
  const spec = pod.spec!;
  // A subPath of a file volume counts its content (volume-plan.ts): read from the same objects as the env.
  const mounts = planContainerMounts(spec, identity, container, { pod, identity, objects });
  if (mounts.length > 0) built.mounts = mounts;
  const security = planSecurityContext(spec, container);
  if (security) built.security = security;
  const securityOptions = planSecurityOptions(pod, container);
  if (securityOptions) built.security = { ...built.security, ...securityOptions };
  const terminal = planTerminal(container);
  if (terminal) built.terminal = terminal;
}

/**
 * The pod's container ports (app containers and sidecars), as a Service's named targetPort is
 * looked up in them by any later run (lib/services/endpoint-sync.ts): none when no container has one.
 */
function podPortsLabel(pod: Pod): Record<string, string> {
  const spec = pod.spec!;
  const containers = [...(spec.initContainers ?? []).filter(isSidecar), ...spec.containers];
  const ports = containers.flatMap((c) =>
    (c.ports ?? []).map((p) => ({
      ...(p.name ? { name: p.name } : {}),
      containerPort: p.containerPort,
      protocol: p.protocol ?? "TCP",
    })),
  );
  return ports.length > 0 ? { [LABEL_POD_PORTS]: JSON.stringify(ports) } : {};
}

/** The pod sandbox: it owns the network namespace, so the published ports live on it. */
export function buildSandboxSpec(options: {
  pod: Pod;
  identity: PodIdentity;
  infraImage: string;
  publishAll: boolean;
  cluster?: ClusterNetwork | undefined;
  podHash?: string;
}): SandboxSpec {
  const { pod, identity, infraImage, publishAll, podHash } = options;
  const network = planSandboxNetwork(pod, identity, options.cluster);
  const spec = pod.spec!;
  const hostNetwork = spec.hostNetwork === true;
  return {
    name: sandboxRuntimeName(identity),
    image: infraImage,
    // The kubelet gives the sandbox the pod's own labels too (pkg/kubelet/kuberuntime/labels.go).
    labels: {
      ...(pod.metadata?.labels ?? {}),
      ...containerLabels(identity, INFRA_CONTAINER_NAME, "infra"),
      ...(podHash !== undefined ? { [LABEL_POD_HASH]: podHash } : {}),
      ...podPortsLabel(pod),
    },
    hostname: hostNetwork ? undefined : resolvePodHostname(pod, identity.name),
    ports: hostNetwork ? [] : collectPublishedPorts(pod, publishAll),
    hostNetwork,
    ...(network ? { network } : {}),
    settings: buildSandboxSettings(spec),
  };
}

/**
 * The pod-level hash (spec-hash.ts hashPod) of a pod as `up` would run it: the sandbox it makes
 * and its init containers. Every container of the pod carries it (`podHash` above).
 */
export function computePodHash(options: {
  pod: Pod;
  identity: PodIdentity;
  infraImage: string;
  publishAll: boolean;
  cluster?: ClusterNetwork | undefined;
  objects?: PodObjects;
}): string {
  const { pod, identity, objects } = options;
  const initContainerHashes = (pod.spec!.initContainers ?? []).map(
    (container) =>
      buildContainerSpec({
        pod,
        identity,
        container,
        kind: initContainerKind(container),
        imageRef: container.image!,
        objects,
      }).labels[LABEL_SPEC_HASH]!,
  );
  return hashPod({
    pod,
    sandbox: buildSandboxSpec(options),
    infraImage: options.infraImage,
    initContainerHashes,
    etcFiles: planPodEtcFiles(pod.spec!, identity.namespace, options.cluster),
  });
}

// Only ports with a hostPort are published, as on a node; `--publish-all` also publishes the
// containerPort-only ones on the same port number (podman's --publish-all).
function collectPublishedPorts(pod: Pod, publishAll: boolean): PortMapping[] {
  const ports: PortMapping[] = [];
  for (const container of [...(pod.spec!.initContainers ?? []), ...pod.spec!.containers]) {
    for (const port of container.ports ?? []) {
      const hostPort = port.hostPort ?? (publishAll ? port.containerPort : undefined);
      if (hostPort === undefined || hostPort === 0) continue;
      ports.push({
        containerPort: port.containerPort,
        hostPort,
        protocol: (port.protocol ?? "TCP") as PortMapping["protocol"],
        hostIP: port.hostIP || undefined,
      });
    }
  }
  return ports;
}

/** The workload a pod was made from, on each of its containers (the sandbox has all the pod's labels). */
function workloadLabel(pod: Pod): Record<string, string> {
  const owner = pod.metadata?.labels?.[LABEL_OWNER];
  return owner !== undefined ? { [LABEL_OWNER]: owner } : {};
}
