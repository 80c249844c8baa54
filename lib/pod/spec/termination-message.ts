import { posix } from "node:path";
import type { Container } from "kubernetes-types/core/v1.js";
import { LABEL_TERMINATION_MESSAGE_POLICY } from "../../runtime/types.js";

// terminationMessagePath and terminationMessagePolicy as the kubelet has them
// (pkg/kubelet/kuberuntime/kuberuntime_container.go): every container gets a file of its own,
// bind-mounted at the path, and what it wrote there when it ended is its status message. What is
// planned here is pure: the host file (lib/pod/volumes/termination-log.ts) and the reading
// (lib/pod/status/termination-message.ts) are elsewhere.
//
// The API server defaults the path for every container, so every container gets the mount: a
// pod's engine argv gains one `--mount`. Its spec hash does not, while the path and policy keep
// their defaults: a container made by an earlier podrun (without the file) is kept on `up`, and
// shows no message, as it has no file to read.

export const DEFAULT_TERMINATION_MESSAGE_PATH = "/dev/termination-log";
export type TerminationMessagePolicy = "File" | "FallbackToLogsOnError";

/**
 * Where the file goes in the container, or undefined when it gets none: an empty path (the kubelet
 * makes none), or a path another of its mounts already takes (an engine refuses two mounts at one
 * path; the volume is what the user asked for there).
 */
export function planTerminationLog(
  container: Pick<Container, "terminationMessagePath">,
  mountTargets: readonly string[],
): string | undefined {
  const path = container.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH;
  if (path === "") return undefined;
  const taken = mountTargets.some(
    (target) => posix.normalize(target).replace(/\/+$/, "") === posix.normalize(path).replace(/\/+$/, ""),
  );
  return taken ? undefined : path;
}

/**
 * What the spec hash counts of these fields: nothing while both keep their defaults (a pod hashes
 * as it did before podrun mounted the file); else both, so that a changed path (another mount) or
 * policy (another label) recreates the container.
 */
export function terminationMessageHashPart(
  container: Pick<Container, "terminationMessagePath" | "terminationMessagePolicy">,
): { path: string; policy: string } | undefined {
  const path = container.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH;
  const policy = container.terminationMessagePolicy ?? "File";
  return path === DEFAULT_TERMINATION_MESSAGE_PATH && policy === "File" ? undefined : { path, policy };
}

/**
 * The policy as a label when it is not the default, as the kubelet keeps it in an annotation: `ps`
 * has no manifest, and needs it to know whether an empty file means the log's last lines. The
 * default leaves the labels (and so the argv) as they were.
 */
export function terminationMessageLabels(
  container: Pick<Container, "terminationMessagePolicy">,
): Record<string, string> {
  return container.terminationMessagePolicy === "FallbackToLogsOnError"
    ? { [LABEL_TERMINATION_MESSAGE_POLICY]: "FallbackToLogsOnError" }
    : {};
}

/** The policy a container was made with, from its labels (File when the label is absent). */
export function readTerminationMessagePolicy(labels: Record<string, string>): TerminationMessagePolicy {
  return labels[LABEL_TERMINATION_MESSAGE_POLICY] === "FallbackToLogsOnError" ? "FallbackToLogsOnError" : "File";
}
