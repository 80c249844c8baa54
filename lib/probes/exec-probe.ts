import { EngineError, errorMessage } from "../errors.js";
import type { ContainerRuntime } from "../runtime/types.js";
import type { ProbeResult } from "./probe-spec.js";

// An exec probe: the command runs inside the container through the engine (`docker exec`), and
// its exit code decides. Like the kubelet, the output (stdout then stderr) is kept, up to 10 KiB;
// a failure also names the command and its exit code, which the kubelet leaves to the output.

const MAX_OUTPUT_BYTES = 10 * 1024;

export async function runExecProbe(options: {
  runtime: Pick<ContainerRuntime, "execInContainer">;
  containerId: string;
  command: readonly string[];
  timeoutMs: number;
}): Promise<ProbeResult> {
  const { command } = options;
  try {
    const result = await options.runtime.execInContainer(options.containerId, command, {
      timeoutMs: options.timeoutMs,
    });
    const output = limit([result.stdout, result.stderr].filter(Boolean).join("\n"));
    if (result.exitCode === 0) return { result: "success", output };
    const body = output.trim();
    return {
      result: "failure",
      output: `command ${JSON.stringify(command.join(" "))} exited with ${result.exitCode}${body ? `: ${body}` : ""}`,
    };
  } catch (error) {
    // The kubelet's words for a probe that outlived timeoutSeconds (ExecProbeTimeout).
    if (error instanceof EngineError && error.kind === "timed-out")
      return { result: "failure", output: `command ${JSON.stringify(command.join(" "))} timed out` };
    return { result: "unknown", output: describeExecError(error) };
  }
}

function describeExecError(error: unknown): string {
  if (error instanceof EngineError) return error.detail;
  return errorMessage(error);
}

function limit(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  return bytes.length <= MAX_OUTPUT_BYTES ? text : bytes.subarray(0, MAX_OUTPUT_BYTES).toString("utf8");
}
