// Picks the container engine: --runtime, else $PODRUN_RUNTIME, else the first of docker, podman
// and nerdctl whose engine answers `version`. An installed CLI whose daemon is down does not count.
import { EngineError, PodrunError, UsageError } from "../errors.js";
import { CommandError, runCommand } from "./exec.js";

export const RUNTIME_NAMES = ["docker", "podman", "nerdctl"] as const;
export type RuntimeName = (typeof RUNTIME_NAMES)[number];

export interface DetectedRuntime {
  name: RuntimeName;
  /** What to spawn: the binary is looked up on PATH. */
  binary: string;
  clientVersion: string;
  /** The engine's version: dockerd, podman itself (or its remote service), containerd for nerdctl. */
  serverVersion: string;
}

export interface DetectOptions {
  /** From `--runtime`: only this engine is tried. */
  preferred?: RuntimeName;
  /** Where $PODRUN_RUNTIME is read, and the environment the probes run with. Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

const PROBE_TIMEOUT_MS = 20_000;

/**
 * Resolves with the first engine that answers and is no older than MINIMUM_VERSIONS, or throws
 * PodrunError("RuntimeUnavailable") whose one-line message says, for each binary tried, what failed.
 * The one engine asked for (--runtime, $PODRUN_RUNTIME) answering with an older version throws
 * EngineError("unavailable") naming the version found and the minimum. A bad $PODRUN_RUNTIME is a UsageError.
 */
export async function detectRuntime(options: DetectOptions = {}): Promise<DetectedRuntime> {
  const env = options.env ?? process.env;
  const named = options.preferred ?? runtimeNamedInEnv(env);
  const candidates = named ? [named] : RUNTIME_NAMES;
  const failures: string[] = [];
  for (const name of candidates) {
    const probe = await probeRuntime(name, env);
    if ("failure" in probe) {
      failures.push(`${name}: ${probe.failure}`);
      continue;
    }
    const tooOld = checkEngineVersion(name, probe.runtime.clientVersion);
    if (tooOld === undefined) return probe.runtime;
    // The one engine asked for: its version is the whole story. Else the next engine may do.
    if (candidates.length === 1) throw new EngineError("unavailable", tooOld);
    failures.push(`${name}: ${tooOld}`);
  }
  throw new PodrunError("RuntimeUnavailable", `no container engine answered: ${failures.join("; ")}`);
}

/**
 * The oldest CLI of each engine that podrun drives, by the client's version: the CLI is what parses
 * podrun's argv (for docker, a 20.10 daemon under a newer CLI is what the tests run on).
 */
export const MINIMUM_VERSIONS: Readonly<Record<RuntimeName, string>> = {
  // `create --pull never` is the newest flag podrun's argv uses: docker CLI 20.10
  // (https://github.com/docker/cli/pull/1498). Every other flag is older.
  docker: "20.10",
  // Debian 12's podman 4.3.1 is the one the tests run on; the dialect table was checked against it.
  podman: "4.3",
  // nerdctl 1.x has no `--ipc shareable`, which the sandbox needs ("invalid ipc value, supported
  // values are 'private' or 'host'"); the dialect table follows nerdctl 2.
  nerdctl: "2.0",
};

/**
 * One line when `version` (the engine's client version) is older than MINIMUM_VERSIONS says, else
 * undefined (pure). A version podrun cannot read (a development build) is given the benefit of the doubt.
 */
export function checkEngineVersion(name: RuntimeName, version: string): string | undefined {
  const found = parseVersionNumbers(version);
  const minimum = parseVersionNumbers(MINIMUM_VERSIONS[name])!;
  if (!found || compareVersionNumbers(found, minimum) >= 0) return undefined;
  return `${name} ${version} is older than podrun supports: ${name} ${MINIMUM_VERSIONS[name]} or later is needed`;
}

/** `20.10.24+dfsg1` → [20, 10, 24], `v2.0.0-rc.1` → [2, 0, 0]; undefined when it starts with no number. */
function parseVersionNumbers(version: string): number[] | undefined {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version.trim());
  if (!match) return undefined;
  return match.slice(1).map((part) => Number(part ?? 0));
}

function compareVersionNumbers(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** The engine `$PODRUN_RUNTIME` names, if any; an unsupported value is a UsageError. */
export function runtimeNamedInEnv(env: NodeJS.ProcessEnv): RuntimeName | undefined {
  const value = env["PODRUN_RUNTIME"]?.trim();
  if (!value) return undefined;
  if (!isRuntimeName(value)) {
    throw new UsageError(`PODRUN_RUNTIME: unsupported value "${value}" (supported: ${RUNTIME_NAMES.join(", ")})`);
  }
  return value;
}

export function isRuntimeName(value: string): value is RuntimeName {
  return (RUNTIME_NAMES as readonly string[]).includes(value);
}

type Probe = { runtime: DetectedRuntime } | { failure: string };

async function probeRuntime(name: RuntimeName, env: NodeJS.ProcessEnv): Promise<Probe> {
  const binary = name;
  let result;
  try {
    result = await runCommand(binary, ["version", "--format", "{{json .}}"], {
      env: definedOnly(env),
      timeoutMs: PROBE_TIMEOUT_MS,
      reject: false,
    });
  } catch (error) {
    if (error instanceof CommandError && error.notInstalled) return { failure: "not installed" };
    if (error instanceof CommandError && error.timedOut)
      return { failure: `no answer within ${PROBE_TIMEOUT_MS / 1000}s` };
    if (error instanceof CommandError) return { failure: error.shortMessage };
    throw error;
  }
  // docker prints the client half of the JSON and exits 1 when its daemon is down: judge by both.
  const versions = parseVersionOutput(name, result.stdout);
  if (result.exitCode !== 0 || !versions.server) {
    return { failure: engineFailure(result.stderr) ?? `exit code ${result.exitCode}, no server version in the output` };
  }
  return {
    runtime: { name, binary, clientVersion: versions.client ?? "unknown", serverVersion: versions.server },
  };
}

export interface EngineVersions {
  client?: string;
  server?: string;
}

/**
 * Reads `<runtime> version --format '{{json .}}'` output (pure). Shapes:
 * - docker: `.Client.Version`, `.Server.Version`; `"Server": null` when the daemon is down.
 * - podman: `.Client.Version`; `.Server.Version` only when remote. A local podman is its own
 *   engine, so its server version is the client's.
 * - nerdctl (dockercompat): `.Client.Version`; `.Server.Components[]`, where containerd is the engine.
 */
export function parseVersionOutput(name: RuntimeName, stdout: string): EngineVersions {
  const json = parseJsonObject(stdout);
  if (!json) return {};
  const client = stringAt(json, ["Client", "Version"]);
  const serverObj = json["Server"];
  const server = isObject(serverObj) ? serverObj : undefined;
  switch (name) {
    case "docker":
      return { client, server: server && (stringAt(server, ["Version"]) ?? componentVersion(server, "Engine")) };
    case "podman":
      return { client, server: server ? stringAt(server, ["Version"]) : client };
    case "nerdctl":
      return { client, server: server && componentVersion(server, "containerd") };
  }
}

// Output may carry non-JSON lines around the object (a wrapper's warning, for instance).
function parseJsonObject(stdout: string): Record<string, unknown> | undefined {
  const trimmed = stdout.trim();
  const candidates = [trimmed, ...trimmed.split("\n").filter((line) => line.trimStart().startsWith("{"))];
  for (const text of candidates) {
    try {
      const value: unknown = JSON.parse(text);
      if (isObject(value)) return value;
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}

function componentVersion(server: Record<string, unknown>, component: string): string | undefined {
  const list = server["Components"];
  if (!Array.isArray(list)) return undefined;
  const found: unknown = list.find((c: unknown) => isObject(c) && c["Name"] === component);
  return isObject(found) ? stringAt(found, ["Version"]) : undefined;
}

function stringAt(obj: Record<string, unknown>, path: readonly string[]): string | undefined {
  let value: unknown = obj;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  return typeof value === "string" && value !== "" ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The line of stderr that says why the engine did not answer, without log decoration:
 * logrus `level=fatal msg="…"`, nerdctl's `FATA[0000] …`, podman's `Error: …`; else the last line.
 */
export function engineFailure(stderr: string): string | undefined {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  for (const line of lines) {
    const logrus = /level=(?:fatal|error) msg="((?:[^"\\]|\\.)*)"/.exec(line);
    if (logrus?.[1] !== undefined) return logrus[1].replace(/\\(.)/g, "$1");
    const short = /^(?:FATA|ERRO)\[\d+\]\s*(.*)$/.exec(line) ?? /^Error:\s*(.*)$/.exec(line);
    if (short?.[1]) return short[1];
  }
  return lines.at(-1);
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
