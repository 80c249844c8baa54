import { rm } from "node:fs/promises";
import { LABEL_MANAGED, type ContainerRuntime, type ContainerState } from "../runtime/types.js";
import { syncServiceEndpoints } from "./endpoint-sync.js";
import {
  hasProxy,
  LABEL_SERVICE_NAME,
  LABEL_SERVICE_NAMESPACE,
  proxyContainerName,
  serviceDirectory,
} from "./service-proxy.js";
import { readServiceRecords, recordKey, type ServiceRecord } from "./service-record.js";

// `down` of Services: those of the files, `svc/NAME`, or with --all every one podrun made (of a
// namespace). A Service's proxy and its directory (its record: service-record.ts) go; a headless
// Service has its record alone (its names go with its pods). Read
// back from the engine and the records, as `ps svc` reads them (list-services.ts): one that is not
// there is "not found", which is no failure; a record whose proxy is gone goes too, unlisted.

export interface ServiceToRemove {
  name: string;
  namespace: string;
}

export interface RemovedService extends ServiceToRemove {
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
  const records = new Map(
    (await readServiceRecords(request.stateDir, runtime.name)).map((record) => [recordKey(record), record]),
  );
  const wanted = request.all ? everyService(proxies, records, request.namespace) : request.services;
  const removed: RemovedService[] = [];
  for (const service of wanted) {
    const key = `${service.namespace}/${service.name}`;
    const proxy = proxies.get(key);
    if (proxy) await runtime.removeContainers([proxy.id]);
    else await runtime.removeContainers([proxyContainerName(service.namespace, service.name)]);
    const dir = serviceDirectory(request.stateDir, runtime.name, service.namespace, service.name);
    // Node retries an ENOTEMPTY: an endpoint update in flight may drop its atomic write's file into
    // the proxy's directory while the tree is being removed (seen once under the suite's load).
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    // Found as `ps svc` would list it: its proxy, or the record of a Service that has none.
    const record = records.get(key);
    removed.push({ ...service, found: proxy !== undefined || (record !== undefined && !hasProxy(record.service)) });
  }
  const gone = new Set(removed.map((s) => `${s.namespace}/${s.name}`));
  const left = containers.filter(
    (c) => !gone.has(`${c.labels[LABEL_SERVICE_NAMESPACE]}/${c.labels[LABEL_SERVICE_NAME]}`),
  );
  if (left.some((c) => c.labels[LABEL_SERVICE_NAME])) await syncServiceEndpoints(runtime, left);
  return { removed, left };
}

/** `down --all`: every Service of the proxies and the records (of the namespace, when given), each once. */
function everyService(
  proxies: ReadonlyMap<string, ContainerState>,
  records: ReadonlyMap<string, ServiceRecord>,
  namespace: string | undefined,
): ServiceToRemove[] {
  const all = new Map<string, ServiceToRemove>();
  for (const c of proxies.values())
    all.set(`${c.labels[LABEL_SERVICE_NAMESPACE]}/${c.labels[LABEL_SERVICE_NAME]}`, {
      name: c.labels[LABEL_SERVICE_NAME]!,
      namespace: c.labels[LABEL_SERVICE_NAMESPACE]!,
    });
  for (const [key, record] of records)
    all.set(key, { name: record.service.metadata!.name!, namespace: record.service.metadata?.namespace || "default" });
  return [...all.values()].filter((s) => namespace === undefined || s.namespace === namespace);
}
