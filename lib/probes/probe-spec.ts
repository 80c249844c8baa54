import type { Container, Probe } from "kubernetes-types/core/v1.js";
import { resolveContainerPort } from "./container-port.js";
import { errorMessage } from "../errors.js";

// A container's probe reduced to what running it needs: the timings in milliseconds, with the
// API server's defaults (lib/manifest/defaults.ts applies them already; they are repeated here
// so that a probe built elsewhere means the same), and one action with its port resolved.

/** The kubelet's names for the probe types, as its events print them ("Readiness probe failed: …"). */
export type ProbeType = "Readiness" | "Startup" | "Liveness";

export type ProbeAction =
  | { kind: "exec"; command: string[] }
  | {
      kind: "httpGet";
      scheme: string;
      host?: string;
      port: number;
      path: string;
      headers: { name: string; value: string }[];
    }
  | { kind: "tcpSocket"; host?: string; port: number }
  | { kind: "grpc"; port: number; service?: string }
  /** The probe cannot run (a named port the container does not have): every attempt errors. */
  | { kind: "invalid"; error: string };

export interface ProbeSpec {
  type: ProbeType;
  action: ProbeAction;
  initialDelayMs: number;
  periodMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
}

export function normalizeProbe(type: ProbeType, probe: Probe, container: Pick<Container, "ports">): ProbeSpec {
  return {
    type,
    action: toAction(probe, container),
    initialDelayMs: (probe.initialDelaySeconds ?? 0) * 1000,
    periodMs: (probe.periodSeconds ?? 10) * 1000,
    timeoutMs: (probe.timeoutSeconds ?? 1) * 1000,
    successThreshold: probe.successThreshold ?? 1,
    failureThreshold: probe.failureThreshold ?? 3,
  };
}

/** The container's startup and readiness probes (liveness: lib/pod/readiness/liveness.ts). */
export function containerProbes(container: Container): { startup?: ProbeSpec; readiness?: ProbeSpec } {
  return {
    startup: container.startupProbe ? normalizeProbe("Startup", container.startupProbe, container) : undefined,
    readiness: container.readinessProbe ? normalizeProbe("Readiness", container.readinessProbe, container) : undefined,
  };
}

function toAction(probe: Probe, container: Pick<Container, "ports">): ProbeAction {
  try {
    if (probe.exec) return { kind: "exec", command: probe.exec.command ?? [] };
    if (probe.httpGet) {
      const { httpGet } = probe;
      return {
        kind: "httpGet",
        scheme: (httpGet.scheme ?? "HTTP").toLowerCase(),
        host: httpGet.host || undefined,
        port: resolveContainerPort(httpGet.port, container),
        path: httpGet.path || "/",
        headers: (httpGet.httpHeaders ?? []).map(({ name, value }) => ({ name, value })),
      };
    }
    if (probe.tcpSocket) {
      return {
        kind: "tcpSocket",
        host: probe.tcpSocket.host || undefined,
        port: resolveContainerPort(probe.tcpSocket.port, container),
      };
    }
    if (probe.grpc) return { kind: "grpc", port: probe.grpc.port, service: probe.grpc.service || undefined };
  } catch (error) {
    return { kind: "invalid", error: errorMessage(error) };
  }
  return { kind: "invalid", error: "missing probe handler" };
}

/**
 * One probe attempt, as the kubelet's prober classifies it: `warning` counts as a success (a
 * redirect to another host), `unknown` means the probe itself could not run ("probe errored").
 * `output` is the command's output, the response body, or why it failed.
 */
export interface ProbeResult {
  result: "success" | "warning" | "failure" | "unknown";
  output: string;
}
