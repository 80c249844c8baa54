import type { Container, LifecycleHandler } from "kubernetes-types/core/v1.js";
import { EngineError, errorMessage } from "../errors.js";
import { resolveContainerPort } from "../probes/container-port.js";
import { formatHandlerUrl, HttpGetError, httpGet } from "../probes/http-get.js";
import type { ContainerRuntime } from "../runtime/types.js";
import { systemClock } from "./readiness/wait-clock.js";
import { podDial } from "./pod-dial.js";

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
    const result = await target.runtime
      .execInContainer(target.containerId, handler.exec.command ?? [], { timeoutMs })
      .catch((error: unknown) => {
        // The engine's own failure (podman may end an exec session with an error after the hook ran):
        // its stderr holds the hook's output too, which never leaves, as with the kubelet.
        if (!(error instanceof EngineError)) throw error;
        if (error.kind === "timed-out")
          throw new HookError(`exec hook did not finish within ${Math.round(timeoutMs / 1000)}s`);
        throw new HookError(`exec hook failed in the engine: ${error.outcome}`);
      });
    if (result.exitCode !== 0) throw new HookError(`exec hook exited with code ${result.exitCode}`);
    return;
  }
  if (handler.httpGet) {
    const { httpGet: action } = handler;
    const port = resolvePort(action.port, target.container);
    const url = formatHandlerUrl(action.scheme ?? "HTTP", action.host || target.podIP, port, action.path ?? "/");
    let status: number;
    try {
      const dial = podDial(target.runtime);
      ({ status } = await httpGet({ url, headers: action.httpHeaders ?? [], timeoutMs, purpose: "lifecycle", dial }));
    } catch (error) {
      if (!(error instanceof HttpGetError)) throw error;
      throw new HookError(`HTTP GET ${url.href} failed: ${error.code ?? error.message}`);
    }
    // The kubelet counts 2xx and 3xx as success for HTTP handlers.
    if (status < 200 || status >= 400) throw new HookError(`HTTP GET ${url.href} returned ${status}`);
    return;
  }
  if (handler.sleep) {
    await systemClock.sleep(handler.sleep.seconds * 1000);
    return;
  }
  throw new HookError("the handler has no action (exec, httpGet or sleep)");
}

/** A port given by number, or by the name of one of the container's ports. */
export function resolvePort(port: number | string, container: Container): number {
  try {
    return resolveContainerPort(port, container);
  } catch (error) {
    throw new HookError(`port ${JSON.stringify(port)} of container ${container.name}: ${errorMessage(error)}`);
  }
}
