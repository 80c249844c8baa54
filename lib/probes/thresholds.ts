import type { ProbeSpec, ProbeType } from "./probe-spec.js";

// The kubelet's probe worker arithmetic (pkg/kubelet/prober/worker.go): a probe's verdict changes
// only after `successThreshold` successes, or `failureThreshold` failures, in a row. Until then
// it keeps its previous verdict, which starts as Failure for readiness (not ready until proven),
// Unknown for startup, and Success for liveness.

export type ProbeVerdict = "success" | "failure" | "unknown";

export interface ThresholdState {
  verdict: ProbeVerdict;
  /** The last attempt's outcome and how many in a row had it (0 before the first attempt). */
  last?: "success" | "failure";
  run: number;
}

export function initialThresholdState(type: ProbeType): ThresholdState {
  return { verdict: type === "Readiness" ? "failure" : type === "Startup" ? "unknown" : "success", run: 0 };
}

/** The state after one more attempt with `outcome` (a warning counts as a success). */
export function countProbeResult(
  state: ThresholdState,
  outcome: "success" | "failure",
  spec: Pick<ProbeSpec, "successThreshold" | "failureThreshold">,
): ThresholdState {
  const run = state.last === outcome ? state.run + 1 : 1;
  const threshold = outcome === "success" ? spec.successThreshold : spec.failureThreshold;
  return { verdict: run >= threshold ? outcome : state.verdict, last: outcome, run };
}
