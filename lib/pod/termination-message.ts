import { open } from "node:fs/promises";
import { join, posix } from "node:path";
import type { Container, ContainerStateTerminated } from "kubernetes-types/core/v1.js";
import { LABEL_TERMINATION_MESSAGE_POLICY, type ContainerRuntime, type ContainerState } from "../runtime/types.js";
import { kubeContainerName } from "./status/find-pods.js";
import type { PodSummary } from "./status/pod-status.js";
import { errorFirstLine, errorMessage } from "../errors.js";
import { filesVolumeOfPodDir, readFromEngine, wasCopied } from "./volumes/engine-files.js";

// terminationMessagePath and terminationMessagePolicy as the kubelet has them
// (pkg/kubelet/kuberuntime/kuberuntime_container.go): every container gets a file of its own,
// bind-mounted at the path, and what it wrote there when it ended is its status message. Here:
// the plan (the mount's target, the hash, the label), where the host file is, and the message
// read back; making the host file is lib/pod/volumes/termination-log.ts's.
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

/** `<podDir>/containers/<container>/termination-log`: the host file of a container's message. */
export function terminationLogFile(podDir: string, container: string): string {
  return join(podDir, "containers", container, "termination-log");
}

// A terminated container's message is read as the kubelet reads it (kuberuntime_container.go
// getTerminationMessage, readLastStringFromContainerLogs): the end of the file it wrote at its
// terminationMessagePath, at most 4096 bytes; under FallbackToLogsOnError, a container that failed
// and left the file empty (or has none) gets the end of its log instead: its last 80 lines, at
// most 2048 bytes of them.

/** kubecontainer.MaxContainerTerminationMessageLength. */
export const MAX_TERMINATION_MESSAGE_BYTES = 4096;
/** kubecontainer.MaxContainerTerminationMessageLogLines and …LogLength. */
export const MAX_TERMINATION_LOG_LINES = 80;
export const MAX_TERMINATION_LOG_BYTES = 2048;

/** What reading a message needs of the engine: logs, and the files helper where it holds the file. */
type TerminationRuntime = Pick<ContainerRuntime, "logs"> & Partial<Pick<ContainerRuntime, "files" | "runFilesHelper">>;

export interface TerminationMessage {
  text: string;
  /** Where it came from: the container's file, or its log (FallbackToLogsOnError). */
  from: "file" | "logs";
}

/** The message of a container that ended with `exitCode`; "" (from the file) when there is none. */
export async function readTerminationMessage(options: {
  /** The container's termination file on the host (termination-log.ts), if it has one. */
  file?: string;
  /** Reads the file's copy through the engine instead (an engine that does not see this host's files); undefined: none. */
  readCopy?: () => Promise<Buffer | undefined>;
  policy: TerminationMessagePolicy;
  exitCode: number;
  /** The container's last `tail` log lines, stdout and stderr merged. */
  logs: (tail: number) => Promise<string>;
}): Promise<TerminationMessage> {
  const fallback = options.policy === "FallbackToLogsOnError" && options.exitCode !== 0;
  let text = "";
  if (options.file !== undefined) {
    try {
      if (options.readCopy) {
        const copy = (await options.readCopy()) ?? Buffer.alloc(0);
        text = copy.subarray(Math.max(0, copy.length - MAX_TERMINATION_MESSAGE_BYTES)).toString();
      } else text = await readTail(options.file, MAX_TERMINATION_MESSAGE_BYTES);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        return { text: `Error on reading termination log ${options.file}: ${errorMessage(error)}`, from: "file" };
    }
  }
  if (text !== "" || !fallback) return { text, from: "file" };
  try {
    const logs = Buffer.from(await options.logs(MAX_TERMINATION_LOG_LINES));
    return { text: logs.subarray(Math.max(0, logs.length - MAX_TERMINATION_LOG_BYTES)).toString(), from: "logs" };
  } catch (error) {
    return {
      text: `Error on reading termination message from logs: ${errorFirstLine(error)}`,
      from: "logs",
    };
  }
}

/** The message of one container podrun made, from its pod directory and its labels. */
export async function readContainerTerminationMessage(
  runtime: TerminationRuntime,
  options: { podDir?: string; container: string; id: string; policy: TerminationMessagePolicy; exitCode: number },
): Promise<TerminationMessage> {
  const { podDir } = options;
  const relative = `containers/${options.container}/termination-log`;
  // A pod whose files were copied to the engine: the container wrote it in that copy, on the engine's host.
  const helper =
    runtime.files && runtime.runFilesHelper ? (runtime as Pick<ContainerRuntime, "runFilesHelper">) : undefined;
  const copiedDir = helper && podDir !== undefined && (await wasCopied(podDir)) ? podDir : undefined;
  return readTerminationMessage({
    file: podDir === undefined ? undefined : terminationLogFile(podDir, options.container),
    ...(helper && copiedDir !== undefined
      ? {
          readCopy: async () =>
            (await readFromEngine(helper, filesVolumeOfPodDir(copiedDir), [relative])).get(relative),
        }
      : {}),
    policy: options.policy,
    exitCode: options.exitCode,
    logs: (tail) => runtime.logs(options.id, { tail }),
  });
}

/**
 * A failed container's message for `up`'s error: one line from its file ends the error line
 * (`…exited with code 1: <message>`); several lines go with the details, under the log's last
 * lines. A message taken from the log adds nothing: the details show the log's last lines already.
 */
export async function describeTerminationMessage(
  runtime: TerminationRuntime,
  options: {
    podDir?: string;
    container: Pick<Container, "name" | "terminationMessagePolicy">;
    id: string;
    exitCode: number;
    details?: string;
  },
): Promise<{ line: string; details?: string }> {
  const policy: TerminationMessagePolicy =
    options.container.terminationMessagePolicy === "FallbackToLogsOnError" ? "FallbackToLogsOnError" : "File";
  const message = await readContainerTerminationMessage(runtime, {
    podDir: options.podDir,
    container: options.container.name,
    id: options.id,
    policy,
    exitCode: options.exitCode,
  });
  const text = message.from === "file" ? message.text.trim() : "";
  if (text === "") return { line: "", details: options.details };
  if (!text.includes("\n")) return { line: `: ${text}`, details: options.details };
  const indented = text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
  return {
    line: "",
    details: [options.details, `termination message of container ${options.container.name}:\n${indented}`]
      .filter(Boolean)
      .join("\n"),
  };
}

/**
 * Sets `message` on each terminated state of the pod's statuses (the current one, or the last one
 * of a container in CrashLoopBackOff) that has a message, as the kubelet's status shows it.
 */
export async function addTerminationMessages(
  pod: PodSummary,
  runtime: TerminationRuntime,
  podDir: string,
): Promise<void> {
  const pairs = [
    ...pod.initContainerStatuses.map((status, i) => [status, pod.initContainers[i]] as const),
    ...pod.containerStatuses.map((status, i) => [status, pod.appContainers[i]] as const),
  ];
  await Promise.all(
    pairs.map(async ([status, state]) => {
      const terminated = status.state?.terminated ?? status.lastState?.terminated;
      if (!terminated || !state) return;
      const message = await readMessageOf(runtime, podDir, state, terminated);
      if (message !== "") terminated.message = message;
    }),
  );
}

function readMessageOf(
  runtime: TerminationRuntime,
  podDir: string,
  state: ContainerState,
  terminated: ContainerStateTerminated,
): Promise<string> {
  const policy = readTerminationMessagePolicy(state.labels);
  return readContainerTerminationMessage(runtime, {
    podDir,
    container: kubeContainerName(state),
    id: state.id,
    policy,
    exitCode: terminated.exitCode,
  }).then((m) => m.text);
}

// The last `max` bytes of a file, read without reading the rest (tail.ReadAtMost).
async function readTail(path: string, max: number): Promise<string> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, max);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, size - length);
    return buffer.subarray(0, bytesRead).toString();
  } finally {
    await handle.close();
  }
}
