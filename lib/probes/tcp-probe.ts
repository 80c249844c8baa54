import { connect } from "node:net";
import { describeDialError, describeDialTimeout, joinHostPort } from "./dial-error.js";
import type { Dial } from "./dial.js";
import type { ProbeResult } from "./probe-spec.js";

// A tcpSocket probe: success when a TCP connection opens within the time limit, made from the
// host as the kubelet makes it from the node (pkg/probe/tcp). Nothing is sent.

export function runTcpProbe(options: {
  host: string;
  port: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Through the engine, where this host cannot reach the pod (dial.ts); default: from this host. */
  dial?: Dial | undefined;
}): Promise<ProbeResult> {
  if (options.dial) return runRelayedTcpProbe({ ...options, dial: options.dial });
  const { host, port } = options;
  const address = joinHostPort(host, port);
  if (options.signal?.aborted)
    return Promise.resolve({ result: "unknown", output: `dial tcp ${address}: operation was canceled` });
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (result: ProbeResult) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      socket.destroy();
      resolve(result);
    };
    const onAbort = () => done({ result: "unknown", output: `dial tcp ${address}: operation was canceled` });
    const timer = setTimeout(
      () => done({ result: "failure", output: describeDialTimeout(address) }),
      options.timeoutMs,
    );
    options.signal?.addEventListener("abort", onAbort, { once: true });
    socket.once("connect", () => done({ result: "success", output: "" }));
    socket.once("error", (error) => done({ result: "failure", output: describeDialError(error, host, address) }));
  });
}

/** The same through the engine: success once the relay says the connection opened. */
async function runRelayedTcpProbe(options: {
  host: string;
  port: number;
  timeoutMs: number;
  signal?: AbortSignal;
  dial: Dial;
}): Promise<ProbeResult> {
  const address = joinHostPort(options.host, options.port);
  const deadline = AbortSignal.any([
    AbortSignal.timeout(options.timeoutMs),
    ...(options.signal ? [options.signal] : []),
  ]);
  try {
    const socket = await options.dial(options.host, options.port, deadline);
    socket.destroy();
    return { result: "success", output: "" };
  } catch (error) {
    if (options.signal?.aborted) return { result: "unknown", output: `dial tcp ${address}: operation was canceled` };
    if (deadline.aborted) return { result: "failure", output: describeDialTimeout(address) };
    return { result: "failure", output: (error as Error).message };
  }
}
