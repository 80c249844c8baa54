// docker and nerdctl have no pods: the containers of a sandbox are found by the pod identity
// labels its infra container carries (the same ones on every container of the pod). That also
// finds hostNetwork containers, which share no namespace with the infra container.
import type { Dialect } from "./dialects.js";
import type { CommandResult } from "./exec.js";
import { parseJsonObjects, toContainerState } from "./inspect.js";
import { LABEL_MANAGED, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID } from "./types.js";

/** IDs of the other containers of the sandbox whose infra container is `infra` ([] if it is gone). */
export async function findSandboxMembers(
  dialect: Dialect,
  run: (args: readonly string[]) => Promise<CommandResult>,
  infra: string,
): Promise<string[]> {
  const [raw] = parseJsonObjects((await run(["container", "inspect", infra])).stdout);
  if (!raw) return [];
  const { id, labels } = toContainerState(dialect, raw).state;
  const selector = selectPod(labels);
  if (!selector) return [];
  const filters = Object.entries(selector).flatMap(([key, value]) => ["--filter", `label=${key}=${value}`]);
  const listed = (await run(["ps", "-a", "-q", "--no-trunc", ...filters])).stdout;
  return listed
    .split("\n")
    .map((line) => line.trim())
    .filter((member) => member !== "" && member !== id);
}

// The pod's UID is unique; without it, name and namespace. Only podrun's own containers count.
function selectPod(labels: Record<string, string>): Record<string, string> | undefined {
  if (labels[LABEL_MANAGED] !== "true") return undefined;
  const uid = labels[LABEL_POD_UID];
  if (uid) return { [LABEL_MANAGED]: "true", [LABEL_POD_UID]: uid };
  const name = labels[LABEL_POD_NAME];
  const namespace = labels[LABEL_POD_NAMESPACE];
  if (!name || !namespace) return undefined;
  return { [LABEL_MANAGED]: "true", [LABEL_POD_NAME]: name, [LABEL_POD_NAMESPACE]: namespace };
}
