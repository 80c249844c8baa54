import type { ConfigMap, Secret } from "kubernetes-types/core/v1.js";

// The ConfigMaps and Secrets of the manifests given to one command: what a pod's env and
// volumes read, in place of the API server a kubelet would ask.

export interface PodObjects {
  configMaps: readonly ConfigMap[];
  secrets: readonly Secret[];
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
