import { readFile, stat } from "node:fs/promises";
import { errorMessage, ManifestError } from "../errors.js";

// The API server refuses request bodies over 3 MiB; a manifest podrun accepts must fit a cluster,
// and the cap keeps a huge or endless input (`podrun validate /dev/zero`) from exhausting memory.
export const MAX_MANIFEST_BYTES = 3 * 1024 * 1024;

export interface ManifestSource {
  /** The name used in messages: the path as given, or `<stdin>`. */
  name: string;
  text: string;
}

/** Reads a manifest file, or standard input for `-`, refusing empty and oversized input. */
export async function readManifestSource(
  path: string,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<ManifestSource> {
  const name = path === "-" ? "<stdin>" : path;
  const bytes = path === "-" ? await readCapped(stdin, name) : await readFileCapped(path);
  const text = bytes.toString("utf8");
  if (text.trim() === "") throw new ManifestError([`${name}: file is empty: expected a Pod manifest`]);
  return { name, text };
}

async function readFileCapped(path: string): Promise<Buffer> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new ManifestError([`${path}: is a directory, expected a YAML file`]);
    if (info.isFile() && info.size > MAX_MANIFEST_BYTES) throw tooLarge(path);
    // Not a regular file (a FIFO, /dev/stdin…): its size is unknown, so read it under the cap.
    if (!info.isFile()) {
      const { createReadStream } = await import("node:fs");
      return await readCapped(createReadStream(path), path);
    }
    return await readFile(path);
  } catch (error) {
    if (error instanceof ManifestError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : errorMessage(error);
    throw new ManifestError([`${path}: cannot read: ${why}`]);
  }
}

async function readCapped(stream: NodeJS.ReadableStream, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    total += buffer.length;
    if (total > MAX_MANIFEST_BYTES) {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      throw tooLarge(name);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(name: string): ManifestError {
  return new ManifestError([
    `${name}: manifest is larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MiB, the limit of the Kubernetes API server`,
  ]);
}
