// Reads the test registries' logs, to count the requests a test caused (for example how many
// manifest GETs a back-off let through). Take a mark before acting and read only what follows it:
// tests run in parallel and the logs only grow.
import { openSync, readSync, closeSync, statSync } from "node:fs";
import type { RegistryName, TestEnv } from "./env.js";

export interface RegistryRequest {
  method: string;
  /** As requested, e.g. `/v2/podrun-test/busybox/manifests/1.36`. */
  path: string;
  status: number;
  userAgent: string;
}

// The registry's access-log line (Apache combined format); its app-log lines start with `time=`.
const ACCESS_LINE = /^\S+ \S+ \S+ \[[^\]]*\] "(\S+) (\S+) [^"]*" (\d{3}) \S+ "[^"]*" "([^"]*)"$/;

/** The current end of the log: pass it as `since` to see only later requests. */
export function registryLogMark(testEnv: TestEnv, which: RegistryName): number {
  try {
    return statSync(testEnv.logs[which]).size;
  } catch {
    return 0;
  }
}

/** The requests logged after `since` (a mark), oldest first. */
export function registryRequests(testEnv: TestEnv, which: RegistryName, since = 0): RegistryRequest[] {
  const requests: RegistryRequest[] = [];
  for (const line of readFrom(testEnv.logs[which], since).split("\n")) {
    const m = ACCESS_LINE.exec(line.trim());
    if (m) requests.push({ method: m[1]!, path: m[2]!, status: Number(m[3]), userAgent: m[4]! });
  }
  return requests;
}

/**
 * How many requests after `since` match: `match` is tested against `"<METHOD> <path>"`, e.g.
 * `/^GET \/v2\/podrun-test\/busybox\/manifests\//`. Without `match`, every request counts.
 */
export function countRegistryRequests(
  testEnv: TestEnv,
  which: RegistryName,
  options: { since?: number; match?: RegExp } = {},
): number {
  const { since = 0, match } = options;
  return registryRequests(testEnv, which, since).filter((r) => !match || match.test(`${r.method} ${r.path}`)).length;
}

function readFrom(file: string, offset: number): string {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return "";
  }
  try {
    const length = Math.max(0, statSync(file).size - offset);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, offset);
    return buffer.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
