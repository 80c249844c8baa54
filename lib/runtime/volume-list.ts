// Reading `volume ls --format json` (pure). docker and nerdctl print one object per line whose
// `Labels` is one string, `k=v,k=v` (docker's formatter, nerdctl's FormatLabels); podman prints one
// array whose `Labels` is an object (or null). podman 4.3 OR-s several `--filter label=` flags where
// docker and nerdctl AND them, so the wanted labels are checked again here.
import { parseJsonObjects } from "./inspect.js";
import type { VolumeInfo } from "./types.js";

/** The volumes in `stdout` that carry every one of `wanted` (all of them when `wanted` is empty). */
export function parseVolumeList(stdout: string, wanted: Record<string, string> = {}): VolumeInfo[] {
  const volumes: VolumeInfo[] = [];
  for (const item of parseJsonObjects(stdout)) {
    const name = item["Name"];
    if (typeof name !== "string" || name === "") continue;
    const labels = readLabels(item["Labels"]);
    if (Object.entries(wanted).every(([key, value]) => labels[key] === value)) volumes.push({ name, labels });
  }
  return volumes;
}

function readLabels(value: unknown): Record<string, string> {
  if (typeof value === "string") return parseLabelString(value);
  if (value === null || typeof value !== "object") return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/**
 * `a=1,b=2` as docker joins labels. The join is ambiguous when a value holds a comma: a piece
 * without `=` is taken as the rest of the previous value (podrun's own values never hold one).
 */
export function parseLabelString(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let last: string | undefined;
  for (const piece of text.split(",")) {
    const at = piece.indexOf("=");
    if (at > 0) {
      last = piece.slice(0, at);
      labels[last] = piece.slice(at + 1);
    } else if (last !== undefined) labels[last] += `,${piece}`;
    else if (piece !== "") labels[piece] = "";
  }
  return labels;
}
