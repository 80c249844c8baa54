import {
  request as requestHttp,
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type RequestOptions,
} from "node:http";
import { request as requestHttps } from "node:https";
import { connect as tlsConnect } from "node:tls";
import type { Duplex } from "node:stream";
import { describeDialError, errorCode, joinHostPort } from "./dial-error.js";
import type { Dial } from "./dial.js";

// One HTTP GET as the kubelet makes it for an httpGet probe or lifecycle hook (pkg/probe/http):
// no keep-alive, no certificate check for HTTPS, a User-Agent of its own and `Accept: */*` unless
// the manifest sets them, redirects followed only to the same host (at most 10), the body read up
// to 10 KiB, and one time limit for the whole exchange. Failures carry Go's wording, e.g.
// `Get "http://10.88.0.5:8080/healthz": dial tcp 10.88.0.5:8080: connect: connection refused`.

/** The kubelet reads at most this much of a probe's response body. */
export const MAX_BODY_BYTES = 10 * 1024;
const MAX_REDIRECTS = 10;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// The kubelet's User-Agent is `kube-<purpose>/<major>.<minor>`; health endpoints often match its prefix.
const USER_AGENT_VERSION = "1.30";

export interface HttpGetRequest {
  url: URL;
  /** In order; a name given twice sends both values. A `Host` header sets the request's host. */
  headers?: readonly { name: string; value: string }[];
  timeoutMs: number;
  /** `probe` (default) or `lifecycle`: the User-Agent's purpose, unless a header sets it. */
  purpose?: "probe" | "lifecycle";
  signal?: AbortSignal;
  /** Through the engine, where this host cannot reach the pod (dial.ts); default: from this host. */
  dial?: Dial | undefined;
}

export interface HttpGetResponse {
  status: number;
  /** At most MAX_BODY_BYTES of it, as UTF-8. */
  body: string;
  /** Where the answer came from, after same-host redirects. */
  url: URL;
}

/** The request could not be made or answered; the message is one line in Go's words. */
export class HttpGetError extends Error {
  override readonly name = "HttpGetError";
  /** Node's error code (ECONNREFUSED…), "timeout", or undefined (a redirect or parse problem). */
  readonly code?: string;
  constructor(message: string, code?: string) {
    super(message);
    if (code !== undefined) this.code = code;
  }
}

/** `scheme://host:port/path` as the kubelet builds a probe's URL (formatURL). */
export function formatHandlerUrl(scheme: string, host: string, port: number, path: string): URL {
  const url = new URL(`${scheme.toLowerCase() || "http"}://${joinHostPort(host, port)}`);
  const relative = new URL(path.startsWith("/") ? path : `/${path}`, url);
  url.pathname = relative.pathname;
  url.search = relative.search;
  return url;
}

export async function httpGet(request: HttpGetRequest): Promise<HttpGetResponse> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort("timeout"), request.timeoutMs);
  const onAbort = () => deadline.abort("aborted");
  request.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const first = request.url;
    let url = first;
    let headers = buildHeaders(request.headers ?? [], request.purpose ?? "probe");
    for (let redirects = 0; ; redirects++) {
      const response = await getOnce(url, headers, deadline.signal, request.dial);
      const location = response.location;
      if (!REDIRECT_STATUSES.has(response.status) || location === undefined)
        return { status: response.status, body: response.body, url };
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new HttpGetError(`Get "${url.href}": failed to parse Location header ${JSON.stringify(location)}`);
      }
      // Another host's answer is not the pod's: the kubelet stops and judges the redirect itself.
      if (next.hostname !== first.hostname) return { status: response.status, body: response.body, url };
      if (redirects + 1 >= MAX_REDIRECTS)
        throw new HttpGetError(`Get "${next.href}": stopped after ${MAX_REDIRECTS} redirects`);
      // A Host header given for the pod does not follow an absolute redirect.
      if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(location)) headers = withoutHost(headers);
      url = next;
    }
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", onAbort);
  }
}

function buildHeaders(list: readonly { name: string; value: string }[], purpose: string): OutgoingHttpHeaders {
  const headers: Record<string, string[]> = {};
  for (const { name, value } of list) {
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
    (headers[key] ??= []).push(value);
  }
  const find = (name: string) => Object.keys(headers).find((k) => k.toLowerCase() === name);
  if (!find("user-agent")) headers["User-Agent"] = [`kube-${purpose}/${USER_AGENT_VERSION}`];
  const accept = find("accept");
  if (!accept) headers["Accept"] = ["*/*"];
  else if (headers[accept]!.every((v) => v === "")) delete headers[accept]; // set empty: the manifest removes it
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.length === 1 ? v[0]! : v]));
}

function withoutHost(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== "host"));
}

interface RawResponse {
  status: number;
  body: string;
  location?: string;
}

type Failure = { failure: string; code: string | undefined };

function getOnce(
  url: URL,
  headers: OutgoingHttpHeaders,
  deadline: AbortSignal,
  dial: Dial | undefined,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const where = `Get "${url.href}"`;
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const address = joinHostPort(host, Number(url.port) || (url.protocol === "https:" ? 443 : 80));
    let response: IncomingMessage | undefined;
    let settled = false;
    // Exactly one outcome; whatever the sockets report after it is noise.
    const settle = (outcome: RawResponse | Failure) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener("abort", onDeadline);
      if ("failure" in outcome) {
        req.destroy();
        reject(new HttpGetError(`${where}: ${outcome.failure}`, outcome.code));
      } else resolve(outcome);
    };
    const failed = (error: Error) => ({
      failure: response ? describeReadError(error, address) : describeRequestError(error, host, address),
      code: errorCode(error),
    });
    const onDeadline = () => settle(describeDeadline(deadline, response !== undefined));
    const req = sendGet(url, headers, dial && relayedConnection(dial, host, url, deadline), (res) => {
      response = res;
      readResponse(res, settle, (error) => settle(failed(error)));
    });
    req.on("error", (error) => settle(failed(error)));
    if (deadline.aborted) return onDeadline();
    deadline.addEventListener("abort", onDeadline, { once: true });
    req.end();
  });
}

type CreateConnection = NonNullable<RequestOptions["createConnection"]>;

function sendGet(
  url: URL,
  headers: OutgoingHttpHeaders,
  createConnection: CreateConnection | undefined,
  onResponse: (res: IncomingMessage) => void,
): ClientRequest {
  // A connection of its own each time: no agent (node:http takes createConnection only without one).
  const options = {
    method: "GET",
    headers,
    ...(createConnection ? { createConnection } : { agent: false as const }),
    ...(url.protocol === "https:" ? { rejectUnauthorized: false } : {}),
  };
  return (url.protocol === "https:" ? requestHttps : requestHttp)(url, options, onResponse);
}

/**
 * node:http's createConnection for a connection through the engine (dial.ts): the relayed
 * stream, under TLS for https (no certificate check, as the kubelet's). A failed dial is the
 * request's error, in the relay's words (`dial tcp …: connect: connection refused`).
 */
function relayedConnection(dial: Dial, host: string, url: URL, deadline: AbortSignal): CreateConnection {
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  return (_options, created) => {
    dial(host, port, deadline).then(
      (socket) =>
        created(
          null,
          url.protocol === "https:" ? tlsConnect({ socket, rejectUnauthorized: false, servername: host }) : socket,
        ),
      // node:http reads no socket along with an error.
      (error: Error) => created(error, undefined as unknown as Duplex),
    );
    return undefined;
  };
}

// The status, the Location header and at most MAX_BODY_BYTES of the body.
function readResponse(res: IncomingMessage, done: (response: RawResponse) => void, fail: (error: Error) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = () => {
    const location = res.headers.location;
    done({
      status: res.statusCode ?? 0,
      body: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString("utf8"),
      ...(location ? { location } : {}),
    });
    res.destroy();
  };
  res.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    // Enough read: the status decides, and the kubelet stops reading at 10 KiB too.
    if (size >= MAX_BODY_BYTES) finish();
  });
  res.on("end", finish);
  res.on("error", fail);
}

// Go's words for a request that ran out of time (or was canceled), before or after the headers.
function describeDeadline(deadline: AbortSignal, reading: boolean): Failure {
  if (deadline.reason !== "timeout") return { failure: "context canceled", code: "canceled" };
  const failure = reading
    ? "context deadline exceeded (Client.Timeout or context cancellation while reading body)"
    : "context deadline exceeded (Client.Timeout exceeded while awaiting headers)";
  return { failure, code: "timeout" };
}

function describeRequestError(error: Error, host: string, address: string): string {
  // Node's "socket hang up": the server closed the connection without an answer, Go's EOF.
  if (errorCode(error) === "ECONNRESET" && /socket hang up/i.test(error.message)) return "EOF";
  if (errorCode(error)?.startsWith("HPE_")) return `net/http: HTTP/1.x transport connection broken: ${error.message}`;
  if (
    errorCode(error)?.startsWith("ERR_TLS") ||
    errorCode(error)?.startsWith("ERR_SSL") ||
    /SSL|TLS/.test(error.message)
  )
    return `tls: ${error.message}`;
  return describeDialError(error, host, address);
}

function describeReadError(error: Error, address: string): string {
  return errorCode(error) === "ECONNRESET" ? `read tcp ${address}: read: connection reset by peer` : error.message;
}
