import type { Container, LifecycleHandler } from "kubernetes-types/core/v1.js";
import type { ContainerRuntime } from "../runtime/types.js";

// A lifecycle handler (postStart now, preStop later), run the way the kubelet runs it: exec
// inside the container, an HTTP GET against the pod, or a sleep. The hook's own output is
// never returned into an event (kubelet: "so that secrets won't leak"); only whether it worked.

/** Hooks get the grace period as their time limit, like the kubelet's preStop, capped sensibly. */
export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

export interface HookTarget {
  runtime: ContainerRuntime;
  containerId: string;
  container: Container;
  /** Address of the pod (sandbox IP, or 127.0.0.1 with hostNetwork). */
  podIP: string;
  timeoutMs?: number;
}

export class HookError extends Error {
  override readonly name = "HookError";
}

/** Runs one handler; resolves when it succeeded, throws HookError with a one-line reason otherwise. */
export async function runLifecycleHandler(handler: LifecycleHandler, target: HookTarget): Promise<void> {
  const timeoutMs = target.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  if (handler.exec) {
    const result = await target.runtime.execInContainer(target.containerId, handler.exec.command ?? [], { timeoutMs });
    if (result.exitCode !== 0) throw new HookError(`exec hook exited with code ${result.exitCode}`);
    return;
  }
  if (handler.httpGet) {
    const { httpGet } = handler;
    const port = resolvePort(httpGet.port, target.container);
    const host = httpGet.host || target.podIP;
    const scheme = (httpGet.scheme ?? "HTTP").toLowerCase();
    const path = httpGet.path?.startsWith("/") ? httpGet.path : `/${httpGet.path ?? ""}`;
    const url = `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}${path}`;
    const headers = Object.fromEntries((httpGet.httpHeaders ?? []).map((h) => [h.name, h.value]));
    let response: Response;
    try {
      response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: "follow" });
      await response.body?.cancel();
    } catch (error) {
      const cause = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new HookError(`HTTP GET ${url} failed: ${cause}`);
    }
    // The kubelet counts 2xx and 3xx as success for HTTP handlers.
    if (response.status < 200 || response.status >= 400) throw new HookError(`HTTP GET ${url} returned ${response.status}`);
    return;
  }
  if (handler.sleep) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, handler.sleep!.seconds) * 1000));
    return;
  }
  throw new HookError("the handler has no action (exec, httpGet or sleep)");
}

/** A port given by number, or by the name of one of the container's ports. */
export function resolvePort(port: number | string, container: Container): number {
  if (typeof port === "number") return port;
  if (/^\d+$/.test(port)) return Number(port);
  const named = container.ports?.find((p) => p.name === port);
  if (!named) throw new HookError(`port ${JSON.stringify(port)} is not a named port of container ${container.name}`);
  return named.containerPort;
}
