import type { PodFailurePolicy, PodFailurePolicyOnExitCodesRequirement } from "kubernetes-types/batch/v1.js";

// A Job's podFailurePolicy applied to one failed pod, as the Job controller's matchPodFailurePolicy
// does (https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/controller/job/pod_failure_policy.go).
// Only the onExitCodes rules can match here: the onPodConditions ones look at conditions
// (DisruptionTarget, …) that the API server, the scheduler and the kubelet's eviction manager set,
// and nothing on one machine does; they are skipped, and `up` warns about them (jobSpecWarnings).

/** One container of a finished pod, as the engine reports it. */
export interface ContainerExit {
  name: string;
  exitCode: number;
  /** An init container: matched after the app containers, as the controller does. */
  init?: boolean;
}

export type PodFailurePolicyAction = "FailJob" | "FailIndex" | "Ignore" | "Count";

export interface PodFailurePolicyMatch {
  /** The Job's failure message when a FailJob rule matched. */
  failJobMessage?: string;
  /** False when an Ignore rule matched: the failure does not count towards backoffLimit. */
  countFailed: boolean;
  /** The action of the rule that matched, if any. */
  action?: PodFailurePolicyAction;
}

/** Which rule, if any, a failed pod matches; the first matching rule wins. */
export function matchPodFailurePolicy(
  policy: PodFailurePolicy | undefined,
  pod: { name: string; namespace: string; containers: ContainerExit[] },
): PodFailurePolicyMatch {
  if (!policy) return { countFailed: true };
  for (const [index, rule] of policy.rules.entries()) {
    if (!rule.onExitCodes) continue;
    const container = matchOnExitCodes(pod.containers, rule.onExitCodes);
    if (!container) continue;
    switch (rule.action) {
      case "Ignore":
        return { countFailed: false, action: "Ignore" };
      case "Count":
        return { countFailed: true, action: "Count" };
      case "FailJob":
        return {
          countFailed: true,
          action: "FailJob",
          failJobMessage: `Container ${container.name} for pod ${pod.namespace}/${pod.name} failed with exit code ${container.exitCode} matching FailJob rule at index ${index}`,
        };
      // FailIndex needs backoffLimitPerIndex, which podrun does not model: the controller falls
      // through to the next rule in that case too (its feature gate off), so do the same.
    }
  }
  return { countFailed: true };
}

/** App containers first, then init containers; exit code 0 never matches. */
function matchOnExitCodes(
  containers: ContainerExit[],
  requirement: PodFailurePolicyOnExitCodesRequirement,
): ContainerExit | undefined {
  const matches = (c: ContainerExit) =>
    (requirement.containerName === undefined || requirement.containerName === c.name) &&
    c.exitCode !== 0 &&
    operatorMatches(c.exitCode, requirement);
  return containers.find((c) => !c.init && matches(c)) ?? containers.find((c) => c.init && matches(c));
}

function operatorMatches(exitCode: number, requirement: PodFailurePolicyOnExitCodesRequirement): boolean {
  if (requirement.operator === "In") return requirement.values.includes(exitCode);
  if (requirement.operator === "NotIn") return !requirement.values.includes(exitCode);
  return false;
}
