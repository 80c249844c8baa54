// A registry that fails on demand, for the registry-fault tests: a Node http server on loopback
// speaking just enough of the distribution API (v2) for docker and podman to pull from it. It
// serves one real image, copied at start from the open test registry through its HTTP API (plus
// a small layer of its own, see copyImage), under any repository name, and is told per
// repository how to fail (a test picks a fresh one, so its requests, its fault and its local
// image are its own, and tests can run at once):
//   manifest-404    the manifest is unknown (MANIFEST_UNKNOWN)
//   unauthorized    the repository asks for credentials (401 with a Basic challenge)
//   server-error    the manifest answers 500
//   cut-blob        the registry stops mid-pull: half of the new layer is sent, then the
//                   connection is reset, and so is every later request for the repository
//   hang            the repository's requests are read and never answered (`/v2/` still is)
// docker treats 127.0.0.0/8 as plain HTTP; podman does for 127.0.0.1:5102 through the drop-in that
// scripts/test-env.sh writes. Only one test file may listen there.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { gzipSync } from "node:zlib";

export const FAULT_REGISTRY_PORT = 5102;
export const FAULT_REGISTRY = `127.0.0.1:${FAULT_REGISTRY_PORT}`;

export type RegistryFault = "none" | "manifest-404" | "unauthorized" | "server-error" | "cut-blob" | "hang";

export interface FaultRequest {
  method: string;
  path: string;
  /** The repository asked for (none for `/v2/`). */
  repo: string | undefined;
  /** The status sent, `cut` for a body cut short, `refused` for a connection reset, `hung` for none. */
  outcome: number | "cut" | "refused" | "hung";
  /** For a hung request: the client closed the connection (gave up waiting). */
  closed?: boolean;
}

export interface FaultRegistry {
  /** `127.0.0.1:5102`. */
  address: string;
  /** How requests for repository `repo` fail from now on; `none` serves the image. */
  setFault(repo: string, fault: RegistryFault): void;
  /** The requests so far, oldest first. */
  readonly requests: readonly FaultRequest[];
  /** How many requests for repository `repo` since `since` (a length of `requests`). */
  countRequests(repo: string, since?: number): number;
  close(): Promise<void>;
}

const MANIFEST_TYPES = [
  "application/vnd.docker.distribution.manifest.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
];

interface ServedImage {
  manifest: Buffer;
  mediaType: string;
  digest: string;
  blobs: Map<string, Buffer>;
  /** The layer made for this run: the one a mid-pull stop cuts. */
  layerDigest: string;
}

/**
 * Reads `repo:tag` (a single-platform image) from `source` (host:port, plain HTTP): manifest,
 * config and layers, and adds a layer of random bytes made for this call, so that no engine has
 * all of the image yet and a pull has to download that layer (the one a mid-pull stop cuts).
 */
export async function copyImage(source: string, repo: string, tag: string): Promise<ServedImage> {
  const get = async (path: string, accept?: string): Promise<Response> => {
    const response = await fetch(`http://${source}/v2/${repo}/${path}`, {
      headers: accept ? { accept } : {},
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`GET http://${source}/v2/${repo}/${path}: ${response.status}`);
    return response;
  };
  const manifestResponse = await get(`manifests/${tag}`, MANIFEST_TYPES.join(", "));
  const manifest = JSON.parse(await manifestResponse.text()) as {
    mediaType?: string;
    config: { mediaType: string; digest: string; size: number };
    layers: { mediaType: string; digest: string; size: number }[];
  };
  const mediaType = manifestResponse.headers.get("content-type") ?? manifest.mediaType ?? MANIFEST_TYPES[0]!;
  const blobs = new Map<string, Buffer>();
  for (const { digest } of manifest.layers)
    blobs.set(digest, Buffer.from(await (await get(`blobs/${digest}`)).arrayBuffer()));
  const config = JSON.parse(
    Buffer.from(await (await get(`blobs/${manifest.config.digest}`)).arrayBuffer()).toString(),
  ) as {
    rootfs: { diff_ids: string[] };
    history?: { created_by: string }[];
  };

  const tar = tarOfOneFile("fault-registry", randomBytes(256 * 1024));
  const layer = gzipSync(tar);
  const layerDigest = sha256(layer);
  blobs.set(layerDigest, layer);
  config.rootfs.diff_ids.push(sha256(tar));
  config.history?.push({ created_by: "test/harness/fault-registry.ts" });
  const configBlob = Buffer.from(JSON.stringify(config));
  blobs.set(sha256(configBlob), configBlob);
  const layerType = manifest.layers[0]?.mediaType ?? "application/vnd.docker.image.rootfs.diff.tar.gzip";
  const served = {
    ...manifest,
    config: { ...manifest.config, digest: sha256(configBlob), size: configBlob.length },
    layers: [...manifest.layers, { mediaType: layerType, digest: layerDigest, size: layer.length }],
  };
  const manifestBlob = Buffer.from(JSON.stringify(served));
  return { manifest: manifestBlob, mediaType, digest: sha256(manifestBlob), blobs, layerDigest };
}

const sha256 = (data: Buffer) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

// A ustar archive holding one regular file (the header's fields as POSIX gives them).
function tarOfOneFile(name: string, content: Buffer): Buffer {
  const header = Buffer.alloc(512);
  const field = (offset: number, length: number, value: string) => header.write(value, offset, length, "ascii");
  const octal = (offset: number, length: number, value: number) =>
    field(offset, length, `${value.toString(8).padStart(length - 1, "0")}\0`);
  field(0, 100, name);
  octal(100, 8, 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, content.length);
  octal(136, 12, 0);
  field(156, 1, "0");
  field(257, 6, "ustar\0");
  field(263, 2, "00");
  header.fill(" ", 148, 156); // the checksum is summed with its own field as spaces
  const sum = header.reduce((total, byte) => total + byte, 0);
  field(148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  const padding = Buffer.alloc((512 - (content.length % 512)) % 512);
  return Buffer.concat([header, content, padding, Buffer.alloc(1024)]);
}

const ROUTE = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/;

/** Starts the fault registry on 127.0.0.1:5102 serving `image` (see copyImage) under every repository, each without fault until told. */
export async function startFaultRegistry(image: ServedImage, port = FAULT_REGISTRY_PORT): Promise<FaultRegistry> {
  const faults = new Map<string, RegistryFault>();
  const stopped = new Set<string>(); // cut-blob: after the cut, the repository's registry is down
  const requests: FaultRequest[] = [];
  const sockets = new Set<Socket>();

  const errorBody = (code: string, message: string) => JSON.stringify({ errors: [{ code, message, detail: null }] });
  const send = (
    res: ServerResponse,
    record: FaultRequest,
    status: number,
    headers: Record<string, string | number>,
    body: Buffer | string = "",
  ) => {
    record.outcome = status;
    res.writeHead(status, { "docker-distribution-api-version": "registry/2.0", ...headers });
    res.end(res.req.method === "HEAD" ? undefined : body);
  };
  const json = { "content-type": "application/json" };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "").split("?")[0]!;
    const route = ROUTE.exec(path);
    const record: FaultRequest = { method: req.method ?? "", path, repo: route?.[1], outcome: "hung" };
    requests.push(record);
    if (path === "/v2/" || path === "/v2") return send(res, record, 200, json, "{}");
    if (!route || (req.method !== "GET" && req.method !== "HEAD"))
      return send(res, record, 404, json, errorBody("UNSUPPORTED", "not served by the fault registry"));
    const [, repo, kind, reference] = route as unknown as [string, string, string, string];
    const fault = faults.get(repo) ?? "none";
    if (fault === "hang") {
      // Open until the client gives up, or close().
      req.socket.once("close", () => (record.closed = true));
      return;
    }
    if (stopped.has(repo)) {
      record.outcome = "refused";
      req.socket.resetAndDestroy();
      return;
    }
    if (fault === "unauthorized") {
      return send(
        res,
        record,
        401,
        { ...json, "www-authenticate": `Basic realm="fault-registry"` },
        errorBody("UNAUTHORIZED", "authentication required"),
      );
    }
    if (kind === "manifests") {
      if (fault === "manifest-404")
        return send(res, record, 404, json, errorBody("MANIFEST_UNKNOWN", "manifest unknown"));
      if (fault === "server-error")
        return send(res, record, 500, json, errorBody("UNKNOWN", "fault registry: internal server error"));
      if (reference !== image.digest && reference.startsWith("sha256:"))
        return send(res, record, 404, json, errorBody("MANIFEST_UNKNOWN", "manifest unknown"));
      return send(
        res,
        record,
        200,
        {
          "content-type": image.mediaType,
          "content-length": image.manifest.length,
          "docker-content-digest": image.digest,
        },
        image.manifest,
      );
    }
    const blob = image.blobs.get(reference);
    if (!blob) return send(res, record, 404, json, errorBody("BLOB_UNKNOWN", "blob unknown to registry"));
    const headers = {
      "content-type": "application/octet-stream",
      "content-length": blob.length,
      "docker-content-digest": reference,
    };
    if (fault === "cut-blob" && reference === image.layerDigest && req.method === "GET") {
      record.outcome = "cut";
      res.writeHead(200, headers);
      res.write(blob.subarray(0, blob.length >> 1), () => {
        stopped.add(repo);
        req.socket.resetAndDestroy();
      });
      return;
    }
    return send(res, record, 200, headers, blob);
  };

  const server = createServer(handle);
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  // A request that never gets an answer must not be timed out by Node itself.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });

  return {
    address: `127.0.0.1:${port}`,
    setFault: (repo, fault) => void faults.set(repo, fault),
    requests,
    countRequests: (repo, since = 0) => requests.slice(since).filter((r) => r.repo === repo).length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
