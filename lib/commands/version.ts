import { KUBERNETES_API_VERSION, podrunVersion } from "../manifest/kubernetes-version.js";
import { CLUSTER_NETWORK_NAME } from "../pod/cluster-network.js";
import { detectRuntime, type RuntimeName } from "../runtime/detect.js";
import { createRuntime, type RuntimeFactory } from "../runtime/cli-runtime.js";
import { resolveRequestTimeout } from "../runtime/request-timeout.js";
import type { EngineLocation } from "../runtime/engine-location.js";
import { reachFiles } from "../apply/reach-files.js";
import { resolveProxyImage } from "../services/proxy-config.js";
import { resolveStateDir } from "../state/paths.js";

// `podrun version`: podrun's version, then the engine it talks to (as `kubectl version` prints the
// client's and the server's), and where that engine is, seen from this host
// (runtime/engine-location.ts): what podrun may reach at a pod's address, and whether the engine
// sees this host's files. `-o json` prints the same as one object.

export interface VersionOptions {
  runtime?: RuntimeName;
  runtimeRequestTimeout?: string;
  json: boolean;
  createRuntime?: RuntimeFactory;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream;
}

const PLACE_WORDS: Record<EngineLocation["place"], string> = {
  local: "local (this host)",
  vm: "a VM or namespace of this machine",
  remote: "another host",
};

export async function version(options: VersionOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout } = options;
  const requestTimeoutMs = resolveRequestTimeout(options.runtimeRequestTimeout, env);
  // 1. podrun's own version; 2. the engine, probed for its versions; 3. where it is.
  const { podrun } = podrunVersion();
  const detected = await detectRuntime({ ...(options.runtime ? { preferred: options.runtime } : {}), env });
  const runtime = (options.createRuntime ?? createRuntime)(detected, { requestTimeoutMs });
  // Whether it sees this host's files: asked anew, by a mount where the endpoint does not tell (reach-files.ts).
  const [place, files] = await Promise.all([
    runtime.locate(CLUSTER_NETWORK_NAME),
    reachFiles(runtime, resolveStateDir(env), resolveProxyImage(undefined, env), { fresh: true, env }),
  ]);
  const location = { ...place, sharedDisk: files.shared, files: files.reason };
  if (options.json) {
    const engine = {
      name: detected.name,
      clientVersion: detected.clientVersion,
      serverVersion: detected.serverVersion,
    };
    stdout.write(`${JSON.stringify({ podrun, kubernetesAPI: KUBERNETES_API_VERSION, engine, location }, null, 2)}\n`);
    return;
  }
  stdout.write(
    [
      `podrun: ${podrun} (Kubernetes API ${KUBERNETES_API_VERSION})`,
      `engine: ${detected.name} ${detected.serverVersion} (client ${detected.clientVersion})`,
      `endpoint: ${location.endpoint || "the CLI's default"}`,
      `place: ${PLACE_WORDS[location.place]}: ${location.reason}`,
      `pod addresses: ${location.podIPsRoutable ? "reachable from this host" : "not reachable from this host"}`,
      `files: ${files.shared ? "seen by the engine: bind-mounted" : "not seen by the engine: copied into engine volumes"}: ${files.reason}`,
    ].join("\n") + "\n",
  );
}
