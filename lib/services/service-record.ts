import type { Service } from "kubernetes-types/core/v1.js";
import { mkdir, readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { toKubeTime } from "../pod/status/pod-status.js";
import { writeFileAtomic } from "../state/atomic-write.js";
import { stableUid } from "../workloads/expand.js";
import type { ServiceOutcome } from "./apply-services.js";
import { isHeadless, portKey, serviceDirectory } from "./service-proxy.js";

// What podrun keeps of each Service a run made, so that any later run can list and remove it: a
// headless or an ExternalName Service leaves nothing on the engine. One JSON file per Service, in
// its state directory (`service.json` beside the proxy's `proxy/`), replaced by one atomic rename;
// `down` removes the directory, and with it the record. It holds the Service as the run made it,
// as `kubectl get svc -o json` would show it: the spec as defaulted, with the cluster IP and node
// ports given; a Service holds no secret. For a proxied Service the engine stays the truth
// (list-services.ts): the record only adds what no label says (its type, its creation time).

export const SERVICE_RECORD_FILE = "service.json";

export interface ServiceRecord {
  version: 1;
  /** The Service as made: metadata.creationTimestamp, spec.clusterIP(s), spec.ports[].nodePort, status. */
  service: Service;
  /** The manifest it was read from ("-": standard input). */
  source: string;
}

/** The record of a Service as `up` made it (pure); `createdAt` is kept from an earlier record, as an update keeps it. */
export function serviceRecordOf(outcome: ServiceOutcome, createdAt: string): ServiceRecord {
  const { service } = outcome;
  const namespace = service.metadata?.namespace || "default";
  const name = service.metadata?.name ?? "";
  const spec = structuredClone(service.spec ?? {});
  spec.ports = spec.ports?.map((port) => {
    const nodePort = outcome.nodePorts.get(portKey(port));
    return nodePort ? { ...port, nodePort } : port;
  });
  if (!spec.ports) delete spec.ports;
  const clusterIP = isHeadless(service) ? "None" : outcome.clusterIP;
  if (clusterIP !== undefined && spec.type !== "ExternalName")
    Object.assign(spec, { clusterIP, clusterIPs: [clusterIP] });
  return {
    version: 1,
    service: {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        ...(service.metadata?.labels ? { labels: service.metadata.labels } : {}),
        ...(service.metadata?.annotations ? { annotations: service.metadata.annotations } : {}),
        name,
        namespace,
        uid: service.metadata?.uid || stableUid(namespace, `Service/${name}`),
        creationTimestamp: toKubeTime(createdAt),
      },
      spec,
      status: { loadBalancer: loadBalancerStatus(spec.type, outcome.address) },
    },
    source: outcome.source,
  };
}

/** A LoadBalancer's ingress is where podrun publishes it, as a one-node cluster's servicelb gives the node's address. */
function loadBalancerStatus(type: string | undefined, address: string | undefined) {
  return type === "LoadBalancer" && address ? { ingress: [{ ip: address }] } : {};
}

/** Writes the Service's record; a Service recorded before keeps its creation time. A dry run writes nothing. */
export async function recordService(
  location: { stateDir: string; engine: string; dryRun: boolean },
  outcome: ServiceOutcome,
  now: () => number = Date.now,
): Promise<void> {
  if (location.dryRun) return;
  const namespace = outcome.service.metadata?.namespace || "default";
  const dir = serviceDirectory(location.stateDir, location.engine, namespace, outcome.service.metadata?.name ?? "");
  const before = await readServiceRecord(dir);
  const createdAt = before?.service.metadata?.creationTimestamp ?? new Date(now()).toISOString();
  await mkdir(dir, { recursive: true });
  // Readers see the old record or the new one, never half of one, whichever run writes it.
  await writeFileAtomic(join(dir, SERVICE_RECORD_FILE), `${JSON.stringify(serviceRecordOf(outcome, createdAt))}\n`);
}

/** The record in a Service's directory; undefined when there is none or it is not podrun's writing. */
export async function readServiceRecord(dir: string): Promise<ServiceRecord | undefined> {
  const text = await readFile(join(dir, SERVICE_RECORD_FILE), "utf8").catch(() => undefined);
  return text === undefined ? undefined : parseServiceRecord(text);
}

/** A record read leniently (pure): one changed by hand, or by a podrun of another layout, is no record. */
export function parseServiceRecord(text: string): ServiceRecord | undefined {
  try {
    const record = JSON.parse(text) as Partial<ServiceRecord>;
    const name = record.service?.metadata?.name;
    if (record.version !== 1 || typeof name !== "string" || name === "") return undefined;
    return { version: 1, service: record.service!, source: typeof record.source === "string" ? record.source : "" };
  } catch {
    return undefined;
  }
}

/** Every record of the engine in this state directory, in no particular order. */
export async function readServiceRecords(stateDir: string, engine: string): Promise<ServiceRecord[]> {
  const root = dirname(serviceDirectory(stateDir, engine, "_", "_"));
  const names = await readdir(root).catch(() => [] as string[]);
  const records = await Promise.all(names.map((name) => readServiceRecord(join(root, name))));
  return records.filter((record): record is ServiceRecord => record !== undefined);
}

/** The Service's namespace and name, as the record says. */
export function recordKey(record: ServiceRecord): string {
  return `${record.service.metadata?.namespace || "default"}/${record.service.metadata?.name}`;
}
