import { detectRuntime, runtimeNamedInEnv, type DetectedRuntime, type RuntimeName } from "./detect.js";

// Which engine a command talks to. With --runtime or $PODRUN_RUNTIME the engine is not probed
// first (one process less per call): the first real command tells whether it answers, and
// CliRuntime (engine-error.ts) says why not; its version is checked only when detect.ts probes it.

export async function chooseRuntime(
  preferred: RuntimeName | undefined,
  env: NodeJS.ProcessEnv,
): Promise<DetectedRuntime> {
  const chosen = preferred ?? runtimeNamedInEnv(env);
  if (chosen) return { name: chosen, binary: chosen, clientVersion: "", serverVersion: "" };
  return detectRuntime({ env });
}
