import { rm } from "node:fs/promises";
import type { PodRecord } from "../pod/status/find-pods.js";
import { LABEL_MANAGED, type ContainerRuntime, type ContainerState } from "../runtime/types.js";
import { syncServiceEndpoints } from "./endpoint-sync.js";
import { LABEL_SERVICE_NAME, LABEL_SERVICE_NAMESPACE, proxyContainerName, serviceDirectory } from "./service-proxy.js";

// `down` of Services: those of the files, `svc/NAME`, or with --all every one podrun made (of a
// namespace). A Service's proxy and its directory go; a headless Service has neither (its names
// go with its pods). Read back from the engine, as `down` reads pods: one that is not there is
// "not found", which is no failure; a headless Service is there while a pod it selects is.

export interface ServiceToRemove {
  name: string;
  namespace: string;
  /** A headless Service of the files: it has no proxy; `found` once a pod it selects was found (headlessFound). */
  headless?: { selector: Readonly<Record<string, string>>; found?: boolean } | undefined;
}

/**
 * The Services with each headless one marked found when one of these pods (what `down` found,
 * before removing it) is in its namespace and carries its selector's labels: its names were
 * those pods' aliases, so it went with them (pure).
 */
export function headlessFound(services: readonly ServiceToRemove[], pods: readonly PodRecord[]): ServiceToRemove[] {
  return services.map((service) => {
    if (!service.headless) return service;
    const selector = Object.entries(service.headless.selector);
    const found =
      selector.length > 0 &&
      pods.some(
        (pod) =>
          pod.namespace === service.namespace && selector.every(([key, value]) => pod.infra?.labels[key] === value),
      );
    return { ...service, headless: { ...service.headless, found } };
  });
}

export interface RemovedService {
  name: string;
  namespace: string;
  found: boolean;
}

/**
 * Removes the Services asked for, then brings the others' endpoints up to date (the pods `down`
 * removed are gone from them); returns what was removed and the podrun containers left.
 */
export async function removeServices(
  runtime: ContainerRuntime,
  request: { services: readonly ServiceToRemove[]; all: boolean; namespace?: string | undefined; stateDir: string },
): Promise<{ removed: RemovedService[]; left: ContainerState[] }> {
  const containers = await runtime.listContainers({ [LABEL_MANAGED]: "true" });
  const proxies = new Map(
    containers
      .filter((c) => c.labels[LABEL_SERVICE_NAME] && c.labels[LABEL_SERVICE_NAMESPACE])
      .map((c) => [`${c.labels[LABEL_SERVICE_NAMESPACE]}/${c.labels[LABEL_SERVICE_NAME]}`, c]),
  );
  const wanted: readonly ServiceToRemove[] = request.all
    ? [...proxies.values()]
        .map((c) => ({ name: c.labels[LABEL_SERVICE_NAME]!, namespace: c.labels[LABEL_SERVICE_NAMESPACE]! }))
        .filter((s) => request.namespace === undefined || s.namespace === request.namespace)
    : request.services;
  const removed: RemovedService[] = [];
  for (const service of wanted) {
    const proxy = proxies.get(`${service.namespace}/${service.name}`);
    if (proxy) await runtime.removeContainers([proxy.id]);
    else await runtime.removeContainers([proxyContainerName(service.namespace, service.name)]);
    const dir = serviceDirectory(request.stateDir, runtime.name, service.namespace, service.name);
    await rm(dir, { recursive: true, force: true });
    removed.push({
      name: service.name,
      namespace: service.namespace,
      found: proxy !== undefined || !!service.headless?.found,
    });
  }
  const gone = new Set(removed.map((s) => `${s.namespace}/${s.name}`));
  const left = containers.filter(
    (c) => !gone.has(`${c.labels[LABEL_SERVICE_NAMESPACE]}/${c.labels[LABEL_SERVICE_NAME]}`),
  );
  if (left.some((c) => c.labels[LABEL_SERVICE_NAME])) await syncServiceEndpoints(runtime, left);
  return { removed, left };
}
