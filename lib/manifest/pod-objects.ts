import type { ConfigMap, PersistentVolumeClaim, Secret } from "kubernetes-types/core/v1.js";
import { decodeBase64 } from "./rules/config-map.js";

// The ConfigMaps and Secrets of the manifests given to one command: what a pod's env and
// volumes read, in place of the API server a kubelet would ask.

export interface PodObjects {
  configMaps: readonly ConfigMap[];
  secrets: readonly Secret[];
  /** The claims the pod's persistentVolumeClaim volumes name (lib/pod/volumes/claim-volumes.ts). */
  persistentVolumeClaims?: readonly PersistentVolumeClaim[];
  /**
   * The Service variables of each namespace (lib/services/service-env.ts), once the run's Services
   * have their addresses: a container starts with them unless its pod sets enableServiceLinks: false.
   */
  serviceEnv?: Readonly<Record<string, readonly { name: string; value: string }[]>>;
}

export const NO_OBJECTS: PodObjects = { configMaps: [], secrets: [] };

const named = (namespace: string, name: string) => (object: ConfigMap | Secret) =>
  object.metadata?.name === name && (object.metadata?.namespace || "default") === namespace;

/** The ConfigMap `name` of `namespace`, or undefined. */
export function findConfigMap(objects: PodObjects, namespace: string, name: string): ConfigMap | undefined {
  return objects.configMaps.find(named(namespace, name));
}

/** The Secret `name` of `namespace`, or undefined. */
export function findSecret(objects: PodObjects, namespace: string, name: string): Secret | undefined {
  return objects.secrets.find(named(namespace, name));
}

/** A Secret's data as the API server stores it: `data` decoded from base64, `stringData` merged over it. */
export function readSecretData(secret: Pick<Secret, "data" | "stringData">): Map<string, Buffer> {
  const data = new Map<string, Buffer>();
  for (const [key, value] of Object.entries(secret.data ?? {}))
    data.set(key, decodeBase64(value ?? "") ?? Buffer.alloc(0));
  for (const [key, value] of Object.entries(secret.stringData ?? {})) data.set(key, Buffer.from(value ?? "", "utf8"));
  return data;
}
