import type { PodrunError } from "../../errors.js";
import type { ContainerTracker } from "./readiness-tracker.js";

// The shapes the prober shares with its loops and its callers (the pod's start and `up --wait`).

/** A container the start made, as the prober needs it (init containers have completed and are skipped). */
export interface StartedContainer {
  name: string;
  id: string;
  kind: "init" | "sidecar" | "app";
}

export interface ContainerProgress {
  name: string;
  /** A short phrase for a status line: "Waiting for readiness (1/3)", "Ready", "Restarting (…)". */
  state: string;
  ready: boolean;
  failed: boolean;
}

/** How a wait ends: the prober settles once with the first of these. */
export type Outcome =
  | { kind: "ready" }
  | { kind: "timeout" }
  | { kind: "interrupted" }
  | { kind: "failed"; error: PodrunError; logsOf?: ContainerTracker };
