// Who holds a name: before `up` creates anything, it asks the engine which containers (and, on
// podman, which pod) already use the names it is about to take, so that a container podrun did
// not create is reported instead of being replaced, and nothing is half made when it is.
// Pure argv builders and parsers; CliRuntime.findNamed runs them.
//
// `--filter name=` differs: docker and podman match a regular expression, nerdctl a substring
// (pkg/cmd/container/list_util.go). Unanchored, a plain name matches as a substring everywhere
// (a `.` of a pod name matches itself among others), so every CLI returns a superset, and the
// exact match is made here. Several name filters are OR-ed by all three.
import type { Dialect } from "./dialects.js";
import { parseJsonObjects } from "./inspect.js";

/** An engine object that holds one of the names asked about. */
export interface NamedObject {
  kind: "container" | "pod";
  id: string;
  name: string;
  /** podman pods: the ID of the pod's infra container. */
  infraId?: string;
  /** podman pods: the pod's labels (a pod without an infra container has no other). */
  labels?: Record<string, string>;
}

export interface FindNamedRequest {
  /** Exact container names. */
  containers: readonly string[];
  /** The sandbox's name: on podman a pod holds it; docker and nerdctl have only the infra container. */
  sandbox?: string;
}

/** `ps` (and, on podman, `pod ps`) arguments; undefined where there is nothing to ask. */
export function buildFindNamedArgs(dialect: Dialect, request: FindNamedRequest): { containers?: string[]; pods?: string[] } {
  const out: { containers?: string[]; pods?: string[] } = {};
  if (request.containers.length > 0) {
    const filters = [...new Set(request.containers)].flatMap((name) => ["--filter", `name=${name}`]);
    out.containers = ["ps", "-a", "--no-trunc", ...filters, "--format", "{{.ID}}\t{{.Names}}"];
  }
  if (request.sandbox !== undefined && dialect.sandbox === "pod") {
    out.pods = ["pod", "ps", "--no-trunc", "--filter", `name=${request.sandbox}`, "--format", "json"];
  }
  return out;
}

/** Containers of `ps --format '{{.ID}}\t{{.Names}}'` output named exactly one of `names`. */
export function parseNamedContainers(stdout: string, names: readonly string[]): NamedObject[] {
  const wanted = new Set(names);
  const found: NamedObject[] = [];
  for (const line of stdout.split("\n")) {
    const [id = "", list = ""] = line.trim().split("\t");
    // docker lists a container's other names (legacy links) after commas.
    const name = list.split(",").map((n) => n.replace(/^\//, "")).find((n) => wanted.has(n));
    if (id !== "" && name !== undefined) found.push({ kind: "container", id, name });
  }
  return found;
}

/** Pods of `pod ps --format json` output named exactly `name`. */
export function parseNamedPods(stdout: string, name: string): NamedObject[] {
  return parseJsonObjects(stdout)
    .filter((pod) => pod["Name"] === name && typeof pod["Id"] === "string")
    .map((pod) => ({
      kind: "pod" as const,
      id: pod["Id"] as string,
      name,
      ...(typeof pod["InfraId"] === "string" && pod["InfraId"] !== "" ? { infraId: pod["InfraId"] } : {}),
      ...(isLabelMap(pod["Labels"]) ? { labels: pod["Labels"] } : {}),
    }));
}

function isLabelMap(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null && Object.values(value).every((v) => typeof v === "string");
}
