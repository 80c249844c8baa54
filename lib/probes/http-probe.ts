import { formatHandlerUrl, HttpGetError, httpGet } from "./http-get.js";
import type { Dial } from "./dial.js";
import type { ProbeResult } from "./probe-spec.js";
import { errorMessage } from "../errors.js";

// An httpGet probe: 200–399 is a success, as in the kubelet (pkg/probe/http); a 3xx that is left
// (a redirect to another host) is a success with a warning; anything else fails with the
// kubelet's words, `HTTP probe failed with statuscode: 503`.

export async function runHttpProbe(options: {
  scheme: string;
  host: string;
  port: number;
  path: string;
  headers: readonly { name: string; value: string }[];
  timeoutMs: number;
  signal?: AbortSignal;
  /** Through the engine, where this host cannot reach the pod (dial.ts). */
  dial?: Dial | undefined;
}): Promise<ProbeResult> {
  const url = formatHandlerUrl(options.scheme, options.host, options.port, options.path);
  try {
    const response = await httpGet({
      url,
      headers: options.headers,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      dial: options.dial,
    });
    if (response.status >= 200 && response.status < 300) return { result: "success", output: response.body };
    if (response.status >= 300 && response.status < 400)
      return { result: "warning", output: "Probe terminated redirects" };
    return { result: "failure", output: `HTTP probe failed with statuscode: ${response.status}` };
  } catch (error) {
    if (error instanceof HttpGetError) return { result: "failure", output: error.message };
    return { result: "unknown", output: errorMessage(error) };
  }
}
