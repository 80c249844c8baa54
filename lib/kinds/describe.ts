import type { Pod } from "kubernetes-types/core/v1.js";
import { plural } from "../text/plural.js";

// `validate`'s words for what a pod runs: `2 containers, 1 init container`.

export function describePod(pod: Pod): string {
  const n = pod.spec!.containers.length;
  const parts = [n === 0 ? "" : plural(n, "container")];
  const init = pod.spec!.initContainers?.length ?? 0;
  if (init > 0) parts.push(plural(init, "init container"));
  return parts.join(", ");
}
