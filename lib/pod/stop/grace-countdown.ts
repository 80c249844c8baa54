// A pod's grace period is one budget for all of its stop: the preStop hook and the stop signal of
// each container share what is left of it, as the kubelet's killContainer subtracts the time the
// hook took (pkg/kubelet/kuberuntime/kuberuntime_container.go).

/**
 * Starts a grace period of `graceSeconds` now: the function returned gives the whole seconds left
 * of it (rounded up, so that a part of a second still counts), never below zero.
 */
export function startGraceCountdown(graceSeconds: number, clock: () => number = () => Date.now()): () => number {
  const deadline = clock() + graceSeconds * 1000;
  return () => Math.max(0, Math.ceil((deadline - clock()) / 1000));
}
