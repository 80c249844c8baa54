import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { EventRecorder } from "../events/recorder.js";
import type { ContainerRuntime, ContainerState } from "../runtime/types.js";
import { SERVICE_PROXY_APPLIED_FILE, SERVICE_PROXY_CONFIG_FILE } from "./proxy-config.js";
import {
  LABEL_SERVICE_CONFIG_DIR,
  LABEL_SERVICE_NAME,
  LABEL_SERVICE_NAMESPACE,
  LABEL_SERVICE_STATUS_DIR,
  LABEL_SERVICE_UID,
} from "./service-proxy.js";

// `up` returns once the Services relay to its pods: a proxy polls its config file every 200 ms
// and, once it has applied one, writes the hash of the file's bytes to its status directory
// (images/service-proxy/watch.go). After its last endpoint sync, `up` waits until each proxy it
// wrote to, or made, reports the hash of the config file as it is now. The wait is bounded: a
// proxy still behind after PROXY_APPLY_TIMEOUT_MS is a Warning event, never a hang; one that is not
// running is not waited for (the engine restarts it, and it reads the file as it starts).

/** How long `up` waits for its proxies to apply their config. */
export const PROXY_APPLY_TIMEOUT_MS = 5_000;
const POLL_MS = 20;

/** Where one proxy reads its config and reports what it applied. */
export interface ProxyFiles {
  /** The proxy container's name. */
  name: string;
  namespace: string;
  service: string;
  uid: string;
  configDir: string;
  statusDir: string;
}

/** A proxy's files from its labels; undefined for one made by a podrun whose proxy reports nothing. */
export function proxyFilesOf(proxy: ContainerState): ProxyFiles | undefined {
  const { labels } = proxy;
  const configDir = labels[LABEL_SERVICE_CONFIG_DIR];
  const statusDir = labels[LABEL_SERVICE_STATUS_DIR];
  if (!configDir || !statusDir) return undefined;
  return {
    name: proxy.name,
    namespace: labels[LABEL_SERVICE_NAMESPACE] ?? "",
    service: labels[LABEL_SERVICE_NAME] ?? "",
    uid: labels[LABEL_SERVICE_UID] ?? "",
    configDir,
    statusDir,
  };
}

/** True when the proxy reports the config file's current bytes as applied. */
export async function hasApplied(files: Pick<ProxyFiles, "configDir" | "statusDir">): Promise<boolean> {
  const [config, applied] = await Promise.all([
    readFile(join(files.configDir, SERVICE_PROXY_CONFIG_FILE)).catch(() => undefined),
    readFile(join(files.statusDir, SERVICE_PROXY_APPLIED_FILE), "utf8").catch(() => undefined),
  ]);
  if (!config || applied === undefined) return false;
  return createHash("sha256").update(config).digest("hex") === applied.trim();
}

export interface WaitForProxiesOptions {
  timeoutMs?: number;
  /** Milliseconds (default Date.now), for tests. */
  clock?: () => number;
  pollMs?: number;
  /** Ctrl-C: the wait ends at once, with no Warning. */
  signal?: AbortSignal | undefined;
}

/**
 * Waits until every proxy has applied its config file as it is now, for at most the timeout;
 * the names of those still behind (each also a Warning event).
 */
export async function waitForProxies(
  deps: { runtime: Pick<ContainerRuntime, "name" | "inspectContainers">; recorder: Pick<EventRecorder, "event"> },
  proxies: readonly ProxyFiles[],
  { timeoutMs = PROXY_APPLY_TIMEOUT_MS, clock = Date.now, pollMs = POLL_MS, signal }: WaitForProxiesOptions = {},
): Promise<string[]> {
  const start = clock();
  let pending = await behind(unique(proxies));
  if (pending.length === 0) return [];
  // One look at the engine, only when some proxy is behind: one that is not running is not waited for.
  const running = new Set(
    (await deps.runtime.inspectContainers(pending.map((p) => p.name))).filter((c) => c.running).map((c) => c.name),
  );
  pending = pending.filter((p) => running.has(p.name));
  while (pending.length > 0 && clock() - start < timeoutMs) {
    if (signal?.aborted) return pending.map((p) => p.name);
    await sleep(pollMs);
    pending = await behind(pending);
  }
  for (const proxy of pending)
    deps.recorder.event(
      { apiVersion: "v1", kind: "Service", name: proxy.service, namespace: proxy.namespace, uid: proxy.uid },
      "Warning",
      "ProxyNotSynced",
      `its proxy has not applied the endpoints written last within ${timeoutMs / 1000}s: connections may still go to the previous ones (\`${deps.runtime.name} logs ${proxy.name}\` says why)`,
    );
  return pending.map((p) => p.name);
}

async function behind(proxies: readonly ProxyFiles[]): Promise<ProxyFiles[]> {
  const done = await Promise.all(proxies.map(hasApplied));
  return proxies.filter((_, i) => !done[i]);
}

function unique(proxies: readonly ProxyFiles[]): ProxyFiles[] {
  return [...new Map(proxies.map((p) => [p.name, p])).values()];
}
