import type { ChalkInstance } from "chalk";
import type { PodRun } from "../apply/plan-objects.js";
import type { StalePodOutcome } from "../apply/stale-workload-pods.js";
import { formatHostPort, type HostPort } from "../workloads/host-ports.js";
import { quoteCommand } from "../runtime/quote.js";
import type { RuntimeCommand } from "../runtime/types.js";
import { formatErrorLine } from "./error-line.js";

// What `podrun up` prints beside each pod's outcome (pure): the stale workload pods removed, the
// pods left Pending for a host port, the pods left running by a Ctrl-C, and the commands of a dry run.

/** A workload pod its spec no longer names: `pod/x deleted (…)` on standard output, or why it was not. */
export function formatStalePodOutcome(
  outcome: StalePodOutcome,
  options: { color: ChalkInstance; json: boolean },
): { stdout: string[]; stderr: string[] } {
  const { name, owner, failures } = outcome;
  const stderr = failures.map((failure) =>
    options.color.red(
      formatErrorLine(
        { reason: "FailedKillPod", message: `${failure.object}: could not ${failure.step} it: ${failure.message}` },
        `pod/${name}`,
      ),
    ),
  );
  const stdout =
    failures.length > 0 || options.json
      ? []
      : [`pod/${name} deleted (${owner.kind.toLowerCase()}/${owner.name} no longer has it)`];
  return { stdout, stderr };
}

/** A pod whose host port an earlier pod of the set has: left Pending (FailedScheduling). */
export function formatUnschedulable(run: PodRun, port: HostPort): string {
  return `pod/${run.pod.metadata!.name} Pending: hostPort ${formatHostPort(port)} is taken by an earlier pod of the set (FailedScheduling)`;
}

/** A pod of a StatefulSet of OrderedReady whose predecessor did not come up: not created, as its controller holds it. */
export function formatHeld(run: PodRun, after: PodRun): string {
  const owner = run.owner ? `${run.owner.kind.toLowerCase()}/${run.owner.name}` : "its set";
  return `pod/${run.pod.metadata!.name} not created: pod/${after.pod.metadata!.name} did not come up, and ${owner} starts its pods in order (podManagementPolicy OrderedReady)`;
}

/** With several pods, the dry run's line where a pod's commands begin: its file, and its owner if any. */
export function formatPodMark(run: PodRun): string {
  const { pod, source, owner } = run;
  return `# pod/${pod.metadata!.name} (${source}${owner ? `, ${owner.kind.toLowerCase()}/${owner.name}` : ""})`;
}

/** After a Ctrl-C: the pods already up, and the `podrun down` that removes them. */
export function formatLeftRunning(done: readonly { name: string; source: string }[]): string {
  const targets = [...new Set(done.map((d) => (d.source === "<stdin>" ? d.name : d.source)))];
  const labels = done.map((d) => `pod/${d.name}`).join(", ");
  return `podrun: interrupted; left running: ${labels} (podrun down ${targets.join(" ")} removes ${done.length === 1 ? "it" : "them"})`;
}

/** `up --dry-run`'s standard output: the engine commands in order, each pod's marked where they begin. */
export function formatDryRun(
  engine: string,
  commands: readonly RuntimeCommand[],
  marks: readonly { at: number; line: string }[],
): string[] {
  const lines = [
    `# podrun up --dry-run: the ${engine} commands podrun would run, in order; none was run.`,
    `# (every image is assumed absent; environment values and registry credentials go through files, never argv)`,
  ];
  commands.forEach((command, i) => {
    for (const mark of marks) if (mark.at === i) lines.push(mark.line);
    lines.push(quoteCommand(command.binary, command.args, command.env));
  });
  for (const mark of marks) if (mark.at === commands.length) lines.push(mark.line);
  return lines;
}
