import type { ContainerRuntime } from "../runtime/types.js";
import type { Dial } from "./dial.js";
import { runExecProbe } from "./exec-probe.js";
import { runHttpProbe } from "./http-probe.js";
import type { ProbeResult, ProbeSpec } from "./probe-spec.js";
import { runTcpProbe } from "./tcp-probe.js";

// One attempt of a probe, whatever its action: what the kubelet's prober.runProbe does.

export interface ProbeTarget {
  runtime: Pick<ContainerRuntime, "execInContainer">;
  containerId: string;
  /**
   * Where a network probe without its own `host` connects to reach the container's `port`: the
   * pod's IP (127.0.0.1 with hostNetwork), or undefined when the pod cannot be reached from here.
   */
  resolveAddress(port: number): { host: string; port: number } | undefined;
  /** Where this host cannot reach the pod: its network probes' connections, through the engine (dial.ts). */
  dial?: Dial | undefined;
  signal?: AbortSignal;
}

/** The message of a gRPC probe, which podrun does not run. */
export const GRPC_UNSUPPORTED = "gRPC probes are not supported by podrun: the probe is skipped and counts as a success";

export async function runProbe(spec: ProbeSpec, target: ProbeTarget): Promise<ProbeResult> {
  const { action } = spec;
  const signal = target.signal ? { signal: target.signal } : {};
  switch (action.kind) {
    case "exec":
      return runExecProbe({
        runtime: target.runtime,
        containerId: target.containerId,
        command: action.command,
        timeoutMs: spec.timeoutMs,
      });
    case "httpGet": {
      const address = action.host ? { host: action.host, port: action.port } : target.resolveAddress(action.port);
      if (!address) return unreachable(action.port);
      return runHttpProbe({
        scheme: action.scheme,
        host: address.host,
        port: address.port,
        path: action.path,
        headers: action.headers,
        timeoutMs: spec.timeoutMs,
        dial: target.dial,
        ...signal,
      });
    }
    case "tcpSocket": {
      const address = action.host ? { host: action.host, port: action.port } : target.resolveAddress(action.port);
      if (!address) return unreachable(action.port);
      return runTcpProbe({
        host: address.host,
        port: address.port,
        timeoutMs: spec.timeoutMs,
        dial: target.dial,
        ...signal,
      });
    }
    case "grpc":
      return { result: "warning", output: GRPC_UNSUPPORTED };
    case "invalid":
      return { result: "unknown", output: action.error };
  }
}

function unreachable(port: number): ProbeResult {
  return {
    result: "unknown",
    output: `cannot reach port ${port}: the engine gives the pod no IP address and the port has no hostPort`,
  };
}
