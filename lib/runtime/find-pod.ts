// `pod ps` on podman, for one pod by name: argv and parser (pure); CliRuntime.findPod runs them.
// `--filter name=` is a regular expression there: the exact name is matched here.
import { parseJsonObjects } from "./inspect.js";
import type { PodInfo } from "./types.js";

export function buildFindPodArgs(name: string): string[] {
  return ["pod", "ps", "--no-trunc", "--filter", `name=${name}`, "--format", "json"];
}

export function parseFindPod(stdout: string, name: string): PodInfo | undefined {
  const pod = parseJsonObjects(stdout).find((p) => p["Name"] === name && typeof p["Id"] === "string");
  if (!pod) return undefined;
  const infraId = typeof pod["InfraId"] === "string" && pod["InfraId"] !== "" ? pod["InfraId"] : undefined;
  return {
    id: pod["Id"] as string,
    name,
    ...(infraId ? { infraId } : {}),
    labels: isLabelMap(pod["Labels"]) ? pod["Labels"] : {},
  };
}

function isLabelMap(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null && Object.values(value).every((v) => typeof v === "string");
}
