import t from "tap";
import { countProbeResult, initialThresholdState, type ThresholdState } from "../../lib/probes/thresholds.js";

// worker.go's arithmetic: the verdict changes only after a threshold of equal outcomes in a row.

const run = (state: ThresholdState, outcomes: string, spec: { successThreshold: number; failureThreshold: number }) =>
  [...outcomes].map((o) => (state = countProbeResult(state, o === "+" ? "success" : "failure", spec)).verdict);

t.test("initial verdicts: readiness failure, startup unknown, liveness success", async (t) => {
  t.same(
    [
      initialThresholdState("Readiness").verdict,
      initialThresholdState("Startup").verdict,
      initialThresholdState("Liveness").verdict,
    ],
    ["failure", "unknown", "success"],
  );
});

t.test("readiness with successThreshold 3, failureThreshold 2", async (t) => {
  const spec = { successThreshold: 3, failureThreshold: 2 };
  t.same(run(initialThresholdState("Readiness"), "++-+++-+--", spec), [
    "failure",
    "failure",
    "failure", // +, + then - breaks the run
    "failure",
    "failure",
    "success", // three in a row
    "success",
    "success", // one failure, then a success: still ready
    "success",
    "failure", // two failures in a row
  ]);
});

t.test("startup: unknown until one success, or failureThreshold failures", async (t) => {
  t.same(run(initialThresholdState("Startup"), "--+", { successThreshold: 1, failureThreshold: 3 }), [
    "unknown",
    "unknown",
    "success",
  ]);
  t.same(run(initialThresholdState("Startup"), "---", { successThreshold: 1, failureThreshold: 3 }), [
    "unknown",
    "unknown",
    "failure",
  ]);
});
