import { chooseRuntime } from "../runtime/choose-runtime.js";
import { createRuntime, type RuntimeFactory } from "../runtime/cli-runtime.js";
import type { RuntimeName } from "../runtime/detect.js";
import { resolveRequestTimeout } from "../runtime/request-timeout.js";
import type { ContainerRuntime } from "../runtime/types.js";

// What the kubectl verbs that act on running pods (exec, wait, rollout status, cp) take alike:
// the engine, the namespace, the state directory, and the streams a test replaces.

export interface EngineCommandOptions {
  /** The engine to talk to; a fake in engine-free tests. Default: the container CLI. */
  createRuntime?: RuntimeFactory;
  /** The pods' namespace (default "default"). */
  namespace?: string;
  runtime?: RuntimeName;
  /** `--runtime-request-timeout`: each engine command's deadline (default $PODRUN_RUNTIME_REQUEST_TIMEOUT, else 2m). */
  runtimeRequestTimeout?: string;
  /** podrun's state directory: the pods' records, the event log (default: resolveStateDir). */
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** Ends the command (default: SIGINT or SIGTERM). */
  signal?: AbortSignal;
}

/** The engine the options name (--runtime, else $PODRUN_RUNTIME, else the first that answers). */
export async function openEngine(options: EngineCommandOptions, env: NodeJS.ProcessEnv): Promise<ContainerRuntime> {
  return (options.createRuntime ?? createRuntime)(await chooseRuntime(options.runtime, env), {
    requestTimeoutMs: resolveRequestTimeout(options.runtimeRequestTimeout, env),
  });
}
