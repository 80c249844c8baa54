// Network failures in the words of Go's net package, which is what the kubelet's probes print
// (`dial tcp 10.0.0.1:5432: connect: connection refused`), so that an Unhealthy event from
// podrun reads like one from a cluster.

import { errorMessage } from "../errors.js";

/** `host:port`, with an IPv6 address in brackets (Go's net.JoinHostPort). */
export function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

const CONNECT_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  EHOSTUNREACH: "no route to host",
  ENETUNREACH: "network is unreachable",
  ETIMEDOUT: "connection timed out",
  EADDRNOTAVAIL: "cannot assign requested address",
};

/** A failed connection to `address` (`host:port`). */
export function describeDialError(error: unknown, host: string, address: string): string {
  const code = errorCode(error);
  if (code && CONNECT_ERRORS[code]) return `dial tcp ${address}: connect: ${CONNECT_ERRORS[code]}`;
  if (code === "ENOTFOUND") return `dial tcp: lookup ${host}: no such host`;
  if (code === "EAI_AGAIN") return `dial tcp: lookup ${host}: server misbehaving`;
  if (code === "ECONNRESET") return `read tcp ${address}: read: connection reset by peer`;
  if (code === "EPIPE") return `write tcp ${address}: write: broken pipe`;
  // A dial through the engine's relay failed: its line is Go's already (runtime/relay.ts).
  if (/^dial tcp /.test(errorMessage(error))) return errorMessage(error);
  return `dial tcp ${address}: ${errorMessage(error)}`;
}

/** The time limit ran out while connecting. */
export function describeDialTimeout(address: string): string {
  return `dial tcp ${address}: i/o timeout`;
}

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
