import { posix } from "node:path";
import type { ConfigMap, DownwardAPIVolumeFile, KeyToPath, Pod, Secret, Volume } from "kubernetes-types/core/v1.js";
import { decodeBase64 } from "../../manifest/rules/config-map.js";
import { resolvePodField, resolveResourceField, type NodeCapacity } from "../spec/field-ref.js";
import type { FileProjection, Payload } from "./atomic-writer.js";
import type { PodIdentity } from "../identity.js";
import { findConfigMap, findSecret, readSecretData, type PodObjects } from "../../manifest/pod-objects.js";
import { errorMessage } from "../../errors.js";

// The files of configMap, secret, downwardAPI and projected volumes (pure), as the kubelet's
// volume plugins compute them (kubernetes/kubernetes pkg/volume/configmap, secret, downwardapi,
// projected): all keys when there are no items, else each item's key at its path; a file's mode is
// the item's `mode`, else the volume's `defaultMode`, else 0644; a missing object or key is an
// error unless `optional`, and an optional object that is missing gives an empty volume. Errors
// carry the kubelet's texts, and never a value.

/** The kubelet's default for defaultMode (0644). */
export const DEFAULT_FILE_MODE = 0o644;

/** What the files are computed from. */
export interface VolumeFilesContext {
  pod: Pod;
  identity: PodIdentity;
  objects: PodObjects;
  /** The node's capacity, for a resourceFieldRef whose limit is unset (asked lazily). */
  nodeCapacity: () => NodeCapacity;
  nodeName: string;
}

/** A volume whose files podrun writes in the pod directory. */
export function isFileVolume(volume: Volume): boolean {
  return (
    volume.configMap !== undefined ||
    volume.secret !== undefined ||
    volume.downwardAPI !== undefined ||
    volume.projected !== undefined
  );
}

/** The volume's files; throws an Error with the kubelet's message when it cannot be set up. */
export function planVolumeFiles(volume: Volume, ctx: VolumeFilesContext): Payload {
  const namespace = ctx.identity.namespace;
  if (volume.configMap) {
    const source = volume.configMap;
    const mode = source.defaultMode ?? DEFAULT_FILE_MODE;
    const configMap = findConfigMap(ctx.objects, namespace, source.name ?? "");
    if (!configMap) {
      if (source.optional === true) return new Map();
      throw new Error(`configmap ${JSON.stringify(source.name ?? "")} not found`);
    }
    return configMapPayload(source.items, configMap, mode, source.optional === true);
  }
  if (volume.secret) {
    const source = volume.secret;
    const mode = source.defaultMode ?? DEFAULT_FILE_MODE;
    const secret = findSecret(ctx.objects, namespace, source.secretName ?? "");
    if (!secret) {
      if (source.optional === true) return new Map();
      throw new Error(`secret ${JSON.stringify(source.secretName ?? "")} not found`);
    }
    return secretPayload(source.items, secret, mode, source.optional === true);
  }
  if (volume.downwardAPI) {
    return downwardPayload(volume.downwardAPI.items ?? [], volume.downwardAPI.defaultMode ?? DEFAULT_FILE_MODE, ctx);
  }
  if (volume.projected) return projectedPayload(volume, ctx);
  return new Map();
}

/** The projected volume's sources merged in order (the kubelet's collectData). */
function projectedPayload(volume: Volume, ctx: VolumeFilesContext): Payload {
  const projected = volume.projected!;
  const mode = projected.defaultMode ?? DEFAULT_FILE_MODE;
  const payload = new Map<string, FileProjection>();
  const errors: string[] = [];
  const merge = (files: Payload) => files.forEach((file, path) => payload.set(path, file));
  for (const source of projected.sources ?? []) {
    try {
      if (source.configMap) {
        const optional = source.configMap.optional === true;
        const configMap = findConfigMap(ctx.objects, ctx.identity.namespace, source.configMap.name ?? "");
        if (!configMap && !optional)
          throw new Error(`configmap ${JSON.stringify(source.configMap.name ?? "")} not found`);
        merge(configMapPayload(source.configMap.items, configMap ?? {}, mode, optional));
      } else if (source.secret) {
        const optional = source.secret.optional === true;
        const secret = findSecret(ctx.objects, ctx.identity.namespace, source.secret.name ?? "");
        if (!secret && !optional) throw new Error(`secret ${JSON.stringify(source.secret.name ?? "")} not found`);
        merge(secretPayload(source.secret.items, secret ?? {}, mode, optional));
      } else if (source.downwardAPI) {
        merge(downwardPayload(source.downwardAPI.items ?? [], mode, ctx));
      }
      // serviceAccountToken, clusterTrustBundle, podCertificate: no API server to ask; validation warns.
    } catch (error) {
      errors.push(errorMessage(error));
    }
  }
  // utilerrors.NewAggregate's text: one error as it is, several in brackets.
  if (errors.length === 1) throw new Error(errors[0]);
  if (errors.length > 1) throw new Error(`[${errors.join(", ")}]`);
  return payload;
}

function configMapPayload(
  items: readonly KeyToPath[] | undefined,
  configMap: Pick<ConfigMap, "data" | "binaryData">,
  mode: number,
  optional: boolean,
): Payload {
  const value = (key: string): Buffer | undefined => {
    if (configMap.data && Object.hasOwn(configMap.data, key)) return Buffer.from(configMap.data[key] ?? "", "utf8");
    if (configMap.binaryData && Object.hasOwn(configMap.binaryData, key))
      return decodeBase64(configMap.binaryData[key] ?? "") ?? Buffer.alloc(0);
    return undefined;
  };
  const keys = [...Object.keys(configMap.data ?? {}), ...Object.keys(configMap.binaryData ?? {})];
  return keyedPayload({
    items,
    keys,
    value,
    mode,
    optional,
    missing: (key) => `configmap references non-existent config key: ${key}`,
  });
}

function secretPayload(
  items: readonly KeyToPath[] | undefined,
  secret: Pick<Secret, "data" | "stringData">,
  mode: number,
  optional: boolean,
): Payload {
  const data = readSecretData(secret);
  return keyedPayload({
    items,
    keys: [...data.keys()],
    value: (key) => data.get(key),
    mode,
    optional,
    missing: (key) => `references non-existent secret key: ${key}`,
  });
}

function keyedPayload(options: {
  items: readonly KeyToPath[] | undefined;
  keys: readonly string[];
  value: (key: string) => Buffer | undefined;
  mode: number;
  optional: boolean;
  missing: (key: string) => string;
}): Payload {
  const payload = new Map<string, FileProjection>();
  if (!options.items || options.items.length === 0) {
    for (const key of options.keys) payload.set(key, { content: options.value(key)!, mode: options.mode });
    return payload;
  }
  for (const item of options.items) {
    const content = options.value(item.key);
    if (content === undefined) {
      if (options.optional) continue;
      throw new Error(options.missing(item.key));
    }
    payload.set(cleanPath(item.path), { content, mode: item.mode ?? options.mode });
  }
  return payload;
}

function downwardPayload(items: readonly DownwardAPIVolumeFile[], mode: number, ctx: VolumeFilesContext): Payload {
  const payload = new Map<string, FileProjection>();
  const errors: string[] = [];
  for (const item of items) {
    let text: string;
    try {
      text = item.fieldRef
        ? resolvePodField(item.fieldRef.fieldPath, {
            pod: ctx.pod,
            identity: ctx.identity,
            nodeName: ctx.nodeName,
            hostIPs: [],
            podIPs: [],
          })
        : resolveContainerResource(item, ctx);
    } catch (error) {
      errors.push(errorMessage(error));
      continue;
    }
    payload.set(cleanPath(item.path), { content: Buffer.from(text, "utf8"), mode: item.mode ?? mode });
  }
  if (errors.length === 1) throw new Error(errors[0]);
  if (errors.length > 1) throw new Error(`[${errors.join(", ")}]`);
  return payload;
}

function resolveContainerResource(item: DownwardAPIVolumeFile, ctx: VolumeFilesContext): string {
  const ref = item.resourceFieldRef;
  if (!ref) throw new Error(`downwardAPI file ${item.path}: neither fieldRef nor resourceFieldRef`);
  const spec = ctx.pod.spec!;
  const name = ref.containerName ?? "";
  const container = [...(spec.initContainers ?? []), ...spec.containers].find((c) => c.name === name);
  if (!container) throw new Error(`container ${name} not found`);
  return resolveResourceField({ resource: ref.resource, divisor: ref.divisor }, container, ctx.nodeCapacity(), ctx.pod);
}

/** filepath.Clean for a relative path: no `.` parts, no doubled or trailing `/`. */
export function cleanPath(path: string): string {
  const cleaned = posix.normalize(path).replace(/\/+$/, "");
  return cleaned === "" ? "." : cleaned;
}
