import t from "tap";
import type { Probe } from "kubernetes-types/core/v1.js";
import type { ProbeResult } from "../../../lib/probes/probe-spec.js";
import { createTracker, recordAttempt, type AttemptEffect } from "../../../lib/pod/readiness/readiness-tracker.js";

// What each probe result means for the container (lib/pod/readiness/readiness-tracker.ts
// recordAttempt), as timelines of results: readiness, the startup gate, and the liveness kill.

const exec = (extra: Partial<Probe> = {}): Probe => ({ exec: { command: ["x"] }, ...extra });
const r = (result: ProbeResult["result"]): ProbeResult => ({ result, output: result });

t.test("recordAttempt: each result's effect and the container's readiness after it", async (t) => {
  const cases: {
    name: string;
    probes: { startupProbe?: Probe; readinessProbe?: Probe; livenessProbe?: Probe };
    steps: [keyof typeof probeOf, ProbeResult["result"], AttemptEffect, boolean][];
  }[] = [
    {
      name: "readiness: successThreshold 2, a warning counts as a success, unknown as a failure",
      probes: { readinessProbe: exec({ successThreshold: 2 }) },
      steps: [
        ["readiness", "success", "none", false],
        ["readiness", "warning", "none", true],
        ["readiness", "unknown", "none", true],
        ["readiness", "failure", "none", true],
        ["readiness", "failure", "none", false],
      ],
    },
    {
      name: "startup gates readiness: passed, then readiness decides",
      probes: { startupProbe: exec({ failureThreshold: 2 }), readinessProbe: exec() },
      steps: [
        ["startup", "failure", "none", false],
        ["startup", "success", "startupPassed", false],
        ["readiness", "success", "none", true],
      ],
    },
    {
      name: "startup without readiness: ready once passed",
      probes: { startupProbe: exec() },
      steps: [["startup", "success", "startupPassed", true]],
    },
    {
      name: "startup fails for good after failureThreshold in a row",
      probes: { startupProbe: exec({ failureThreshold: 2 }) },
      steps: [
        ["startup", "failure", "none", false],
        ["startup", "unknown", "startupFailed", false],
      ],
    },
    {
      name: "liveness: errored attempts count neither way; the threshold kills, then counts afresh",
      probes: { livenessProbe: exec({ failureThreshold: 2 }) },
      steps: [
        ["liveness", "failure", "none", false],
        ["liveness", "unknown", "none", false],
        ["liveness", "failure", "kill", false],
        ["liveness", "failure", "none", false],
        ["liveness", "success", "none", false],
        ["liveness", "failure", "none", false],
      ],
    },
  ];
  const probeOf = { startup: "startupProbe", readiness: "readinessProbe", liveness: "livenessProbe" } as const;
  for (const c of cases) {
    const tracker = createTracker("app", "id", { name: "app", ...c.probes });
    const effects = c.steps.map(([type, result]) => {
      const effect = recordAttempt(tracker, tracker[probeOf[type]]!, r(result));
      return [type, result, effect, tracker.ready];
    });
    t.same(effects, c.steps, c.name);
  }
});
