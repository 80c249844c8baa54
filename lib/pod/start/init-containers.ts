import type { Container } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../../errors.js";
import { waitForPodReady } from "../readiness/wait-ready.js";
import { describeTerminationMessage } from "../termination-message.js";
import { resolveProbeIP } from "./sandbox.js";
import { startContainer, type ContainerStepContext } from "./start-container.js";
import type { InitStep } from "./start-plan.js";
import type { StartedContainer } from "./start-pod.js";

// The init containers of a new pod, one at a time (the kubelet's computeInitContainerActions):
// each runs to a zero exit before the next goes. A sidecar (an init container with
// `restartPolicy: Always`) is started in its place and left running; the next one goes once it
// has started and passed its startup probe, if it has one.

/** Runs the plan's init steps in order; resolves with the containers started, in that order. */
export async function runInitContainers(
  context: ContainerStepContext,
  steps: readonly InitStep[],
  options: { logTail?: number | undefined },
): Promise<StartedContainer[]> {
  const containers: StartedContainer[] = [];
  for (const { container, kind, waitForStartup } of steps) {
    const id = await startContainer(context, container, kind);
    containers.push({ name: container.name, id, kind });
    if (kind === "init") await waitForCompletion(context, container, id, options);
    // A sidecar that exits first, or fails its startup probe, fails the pod here: on a node it
    // would restart in back-off and the pod would never initialize.
    else if (waitForStartup) await waitForStartupProbe(context, container, id, options);
  }
  return containers;
}

/** An init container's exit: zero, or InitContainerFailed with its last log lines and termination message. */
async function waitForCompletion(
  context: ContainerStepContext,
  container: Container,
  id: string,
  options: { logTail?: number | undefined },
): Promise<void> {
  const { runtime } = context.deps;
  const { signal } = context;
  const exitCode = await runtime.waitContainer(id, signal ? { signal } : {});
  if (exitCode === 0) return;
  // The log only adds to the message: without it, the exit code is still the story.
  const tail = (await runtime.logs(id, { tail: options.logTail ?? 10 }).catch(() => "")).trimEnd();
  const details = tail ? `last log lines of init container ${container.name}:\n${indent(tail)}` : undefined;
  const podDir = context.mounts.sources.podDir;
  const message = await describeTerminationMessage(runtime, { podDir, container, id, exitCode, details });
  throw new PodrunError(
    "InitContainerFailed",
    `init container ${container.name} exited with code ${exitCode}${message.line}`,
    {
      details: message.details,
    },
  );
}

async function waitForStartupProbe(
  context: ContainerStepContext,
  container: Container,
  id: string,
  options: { logTail?: number | undefined },
): Promise<void> {
  const { runtime, recorder } = context.deps;
  const { pod, identity } = context.pod;
  await waitForPodReady({
    runtime,
    recorder,
    pod,
    identity,
    containers: [{ name: container.name, id, kind: "sidecar" }],
    podIP: await resolveProbeIP(context.sandbox),
    timeoutMs: Infinity,
    untilStarted: true,
    signal: context.signal,
    logTail: options.logTail,
  });
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}
