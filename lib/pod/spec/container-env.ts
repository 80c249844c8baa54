import type { ConfigMap, Container, EnvVar, Pod, Secret } from "kubernetes-types/core/v1.js";
import { errorMessage, PodrunError } from "../../errors.js";
import { findEnvVarNameErrors } from "../../manifest/rules/names.js";
import { envLookup, expandVars } from "./expand-vars.js";
import { fileKeyRefOf, parseEnvFile, type FileKeySelector } from "./env-file.js";
import {
  needsPodIP,
  readNodeCapacity,
  readNodeName,
  resolvePodField,
  resolveResourceField,
  type NodeCapacity,
  type PodFieldContext,
} from "./field-ref.js";
import type { PodIdentity } from "../identity.js";
import { findConfigMap, findSecret, readSecretData, type PodObjects } from "../../manifest/pod-objects.js";

// A container's environment as the kubelet builds it (kubernetes/kubernetes
// pkg/kubelet/kubelet_pods.go makeEnvironmentVariables), then its command and args expanded with
// it (ExpandContainerCommandAndArgs). Pure: the pod's objects, field values and node capacity go
// in. The order:
// 1. envFrom, in order: every data key of the ConfigMap or Secret, with `prefix`; a name that is
//    not valid is skipped and named in a Warning event. The rule is the relaxed one validation
//    uses (RelaxedEnvironmentVariableValidation, on by default since 1.32, which the kubelet
//    follows too), so only objects that escaped validation have such keys;
// 2. env, in order: `value` with `$(VAR)` expanded over what is defined so far, or `valueFrom`;
// later definitions replace earlier ones. A missing object or key that is not `optional` fails
// the container with CreateContainerConfigError before it is created; an optional one defines
// nothing;
// 3. the Service variables of the pod's namespace (`<SVC>_SERVICE_HOST`…, PodObjects.serviceEnv)
//    that the container did not define, unless enableServiceLinks is false. A `$(VAR)` may name
//    one of them even before: the kubelet's mapping looks in the Service variables last.

export interface EnvVarValue {
  name: string;
  value: string;
}

/** The kubelet's Warning for envFrom keys it skipped: one per ConfigMap or Secret. */
export interface SkippedKeysEvent {
  reason: "InvalidEnvironmentVariableNames";
  message: string;
}

export interface ContainerEnvOptions {
  pod: Pod;
  container: Container;
  objects: PodObjects;
  /** The pod's field values (status.podIP only when usesPodIP says the container needs it). */
  fields: PodFieldContext;
  node: NodeCapacity;
  /**
   * For the spec hash: a missing object or key is left out instead of failing (creating the
   * container reports it, with its event). A file key's value is left out too: it exists only
   * once the init containers have written it, and a pod whose init containers run again is new.
   */
  lenient?: boolean;
  /**
   * The env files the container's `fileKeyRef`s name, read at its start from their emptyDir
   * (envFileKey); undefined for a file that could not be read. "unread" (a dry run, whose init
   * containers never run): each value is a placeholder naming its file.
   */
  envFiles?: ReadonlyMap<string, Buffer | undefined> | "unread";
}

/** The key of an env file in ContainerEnvOptions.envFiles: its volume and its path there. */
export function envFileKey(ref: { volumeName: string; path: string }): string {
  return `${ref.volumeName}/${ref.path}`;
}

export interface ContainerEnv {
  /** Each variable once, where it was first defined, with its last value. */
  env: EnvVarValue[];
  skipped: SkippedKeysEvent[];
  /** Variables whose value comes from a Secret, directly or through `$(VAR)`: kept out of what podrun prints. */
  secretNames: string[];
}

/** The container's environment, or a CreateContainerConfigError carrying the kubelet's message. */
export function resolveContainerEnv(options: ContainerEnvOptions): ContainerEnv {
  const { container, objects, lenient } = options;
  const namespace = options.fields.identity.namespace;
  const env = new Map<string, string>();
  const secret = new Set<string>();
  const define = (name: string, value: string, fromSecret: boolean) => {
    env.set(name, value);
    if (fromSecret) secret.add(name);
    else secret.delete(name);
  };
  const skipped: SkippedKeysEvent[] = [];
  const fail = (message: string): undefined => {
    if (lenient) return undefined;
    throw new PodrunError("CreateContainerConfigError", message);
  };

  for (const source of container.envFrom ?? []) {
    const ref = source.configMapRef ?? source.secretRef;
    if (!ref?.name) continue;
    const kind = source.configMapRef ? "configMap" : "secret";
    const object =
      kind === "configMap" ? findConfigMap(objects, namespace, ref.name) : findSecret(objects, namespace, ref.name);
    if (!object) {
      if (!ref.optional) fail(notFound(kind, ref.name));
      continue;
    }
    const invalid: string[] = [];
    for (const [key, value] of Object.entries(
      kind === "configMap" ? ((object as ConfigMap).data ?? {}) : readSecretText(object as Secret),
    )) {
      const name = (source.prefix ?? "") + key;
      if (findEnvVarNameErrors(name).length > 0) invalid.push(name);
      else define(name, value, kind === "secret");
    }
    if (invalid.length > 0) {
      const keys = invalid.sort(compareBytes).join(", ");
      skipped.push({
        reason: "InvalidEnvironmentVariableNames",
        message: `Keys [${keys}] from the EnvFrom ${kind} ${namespace}/${ref.name} were skipped since they are considered invalid environment variable names.`,
      });
    }
  }

  const serviceEnv = options.pod.spec?.enableServiceLinks === false ? [] : (objects.serviceEnv?.[namespace] ?? []);
  const serviceValue = (name: string) => serviceEnv.find((v) => v.name === name)?.value;
  for (const variable of container.env ?? []) {
    let readSecret = variable.valueFrom?.secretKeyRef !== undefined;
    const lookup = (name: string) => {
      if (secret.has(name) && env.has(name)) readSecret = true;
      return env.get(name) ?? serviceValue(name);
    };
    const value = variable.value
      ? expandVars(variable.value, lookup)
      : variable.valueFrom
        ? resolveValueFrom(variable, options, fail)
        : "";
    if (value !== undefined) define(variable.name, value, readSecret);
  }
  for (const { name, value } of serviceEnv) if (!env.has(name)) define(name, value, false);
  return { env: [...env].map(([name, value]) => ({ name, value })), skipped, secretNames: [...secret] };
}

function resolveValueFrom(
  variable: EnvVar,
  options: ContainerEnvOptions,
  fail: (message: string) => undefined,
): string | undefined {
  const source = variable.valueFrom!;
  const namespace = options.fields.identity.namespace;
  const keyRef = source.configMapKeyRef ?? source.secretKeyRef;
  if (keyRef) {
    const kind = source.configMapKeyRef ? "configMap" : "secret";
    const name = keyRef.name ?? "";
    const object =
      kind === "configMap"
        ? findConfigMap(options.objects, namespace, name)
        : findSecret(options.objects, namespace, name);
    if (!object) return keyRef.optional ? undefined : fail(notFound(kind, name));
    // The kubelet reads a ConfigMap's `data` only: a key in binaryData is not found.
    const data = kind === "configMap" ? ((object as ConfigMap).data ?? {}) : readSecretText(object as Secret);
    if (Object.hasOwn(data, keyRef.key)) return data[keyRef.key];
    return keyRef.optional
      ? undefined
      : fail(
          `couldn't find key ${keyRef.key} in ${kind === "configMap" ? "ConfigMap" : "Secret"} ${namespace}/${name}`,
        );
  }
  const fileKeyRef = fileKeyRefOf(variable);
  if (fileKeyRef) return resolveFileKey(fileKeyRef, options, fail);
  try {
    if (source.fieldRef) return resolvePodField(source.fieldRef.fieldPath, options.fields);
    if (source.resourceFieldRef) {
      const ref = source.resourceFieldRef;
      const target = ref.containerName ? findContainer(options.pod, ref.containerName) : options.container;
      if (!target) return fail(`container ${ref.containerName} not found`);
      return resolveResourceField(ref, target, options.node, options.pod);
    }
  } catch (error) {
    if (error instanceof PodrunError) throw error;
    return fail(errorMessage(error));
  }
  return "";
}

/**
 * A key of an env file (the kubelet's makeEnvironmentVariables, EnvFiles): a file that cannot be
 * read or parsed fails the container, optional or not, with the kubelet's words; a key that is
 * missing or empty is left out when optional, else fails the container.
 */
function resolveFileKey(
  ref: FileKeySelector,
  options: ContainerEnvOptions,
  fail: (message: string) => undefined,
): string | undefined {
  if (options.lenient) return undefined;
  if (options.envFiles === "unread") return `<${ref.key} from ${envFileKey(ref)}, read at the container's start>`;
  const content = options.envFiles?.get(envFileKey(ref));
  let value: string;
  try {
    if (content === undefined) throw new Error("not read");
    value = parseEnvFile(content.toString("utf8"), ref.key);
  } catch {
    return fail("couldn't parse env file");
  }
  if (value !== "") return value;
  return ref.optional
    ? undefined
    : fail(`environment variable key ${JSON.stringify(ref.key)} not found in file ${JSON.stringify(envFileKey(ref))}`);
}

/** Secret values as text, as the kubelet hands them to the environment. */
export function readSecretText(secret: Secret): Record<string, string> {
  return Object.fromEntries([...readSecretData(secret)].map(([key, value]) => [key, value.toString("utf8")]));
}

/**
 * The kubelet's ExpandContainerCommandAndArgs: `$(VAR)` in command and args, over the final env.
 * `hidden` names stay unexpanded, for a copy that may be printed.
 */
export function expandCommandAndArgs(
  container: Pick<Container, "command" | "args">,
  env: readonly EnvVarValue[],
  hidden: ReadonlySet<string> = new Set(),
): { command?: string[]; args?: string[] } {
  const values = envLookup(env);
  const lookup = (name: string) => (hidden.has(name) ? undefined : values(name));
  return {
    command: container.command?.map((part) => expandVars(part, lookup)),
    args: container.args?.map((part) => expandVars(part, lookup)),
  };
}

/** Whether the container's env reads status.podIP(s): only then must its start wait for the sandbox's address. */
export function usesPodIP(container: Container): boolean {
  return (container.env ?? []).some(
    (e) => e.valueFrom?.fieldRef !== undefined && needsPodIP(e.valueFrom.fieldRef.fieldPath),
  );
}

/** Whether the container's env reads any pod field (then nodeName and hostIP are looked up). */
export function usesPodFields(container: Container): boolean {
  return (container.env ?? []).some((e) => e.valueFrom?.fieldRef !== undefined);
}

/** Whether the container's env reads a resource (then the node's capacity is read). */
export function usesResources(container: Container): boolean {
  return (container.env ?? []).some((e) => e.valueFrom?.resourceFieldRef !== undefined);
}

function findContainer(pod: Pod, name: string): Container | undefined {
  return [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].find((c) => c.name === name);
}

// The API server's NotFound text, which the kubelet passes on: `configmap "x" not found`.
function notFound(kind: "configMap" | "secret", name: string): string {
  return `${kind.toLowerCase()} ${JSON.stringify(name)} not found`;
}

function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The environment the spec hash sees: resolved as for a run, except that values which change
 * from run to run without the manifest changing (a fresh UID, the pod's and the host's addresses)
 * are fixed markers, and a missing object or key is left out (creating the container reports it).
 */
export function resolveHashEnv(options: {
  pod: Pod;
  identity: PodIdentity;
  container: Container;
  objects: PodObjects;
}): EnvVarValue[] {
  const { pod, identity, container } = options;
  if (!container.env?.length && !container.envFrom?.length) return [];
  const fields: PodFieldContext = {
    pod,
    identity: { ...identity, uid: pod.metadata?.uid || "$(metadata.uid)" },
    nodeName: usesPodFields(container) ? readNodeName(pod) : "",
    hostIPs: ["$(status.hostIP)"],
    podIPs: ["$(status.podIP)"],
  };
  return resolveContainerEnv({
    ...options,
    fields,
    node: usesResources(container) ? readNodeCapacity() : NO_CAPACITY,
    lenient: true,
  }).env;
}

/** For an env that reads no resource: the node's capacity is never looked up. */
export const NO_CAPACITY: NodeCapacity = { cpuCores: 0, memoryBytes: 0, ephemeralStorageBytes: 0 };
