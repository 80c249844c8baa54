// Pure argv for a container's stdin and terminal (the kubelet hands `stdin`, `stdinOnce` and `tty`
// to the runtime as they are: pkg/kubelet/kuberuntime/kuberuntime_container.go generateContainerConfig).
import type { Container } from "kubernetes-types/core/v1.js";
import type { TerminalArgs } from "./specs.js";

/**
 * stdinOnce is not carried: it closes stdin once the first attach session ends, and podrun never
 * attaches, so a container's stdin stays open as it does on a node where no one has attached yet.
 */
export function planTerminal(container: Pick<Container, "stdin" | "tty">): TerminalArgs | undefined {
  const planned: TerminalArgs = {};
  if (container.stdin === true) planned.stdin = true;
  if (container.tty === true) planned.tty = true;
  return Object.keys(planned).length > 0 ? planned : undefined;
}

/**
 * `--interactive` and `--tty` on `create`, the same on docker, podman and nerdctl. A container
 * created with `--interactive` and started without attaching keeps its stdin open on docker and
 * podman: a `cat` waits for input instead of reading end of file.
 */
export function formatTerminalArgs(terminal: TerminalArgs | undefined): string[] {
  return [...(terminal?.stdin ? ["--interactive"] : []), ...(terminal?.tty ? ["--tty"] : [])];
}
