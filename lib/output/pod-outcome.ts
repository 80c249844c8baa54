import type { ChalkInstance } from "chalk";
import { PodrunError } from "../errors.js";
import type { PodOutcome, PodProgress } from "../pod/run-pod.js";
import { formatUpSummary } from "../pod/up-summary.js";
import { formatErrorLine } from "./error-line.js";
import { formatElapsedSeconds, formatHumanDuration } from "../text/human-duration.js";
import { plural } from "../text/plural.js";

// What `podrun up` prints of a pod's run (pure): its progress lines on standard output as the
// flow goes, and at the end its outcome, a summary on standard output or the lines that say
// what went wrong on standard error, ending with the error line. Events are printed by the sinks.

export interface PodOutcomeLines {
  stdout: string[];
  stderr: string[];
}

export interface PodLinesOptions {
  color: ChalkInstance;
  /** `--json`: standard output carries events only. */
  json: boolean;
}

/** The lines a pod's outcome ends on. */
export function formatPodOutcome(outcome: PodOutcome, options: PodLinesOptions): PodOutcomeLines {
  const { color, json } = options;
  switch (outcome.status) {
    case "planned":
      return { stdout: [], stderr: [] };
    case "started":
      return { stdout: json ? [] : [color.green(formatUpSummary(outcome.summary))], stderr: [] };
    case "ready": {
      const line = `${outcome.label}: ready: ${outcome.containers}/${plural(outcome.containers, "container")} (${formatElapsedSeconds(outcome.seconds)})`;
      return { stdout: json ? [] : [color.green(line)], stderr: [] };
    }
    case "failed": {
      const { error } = outcome;
      const details = error instanceof PodrunError && error.details ? [error.details] : [];
      // The last line says which pod (or container) failed and why.
      return { stdout: [], stderr: [...outcome.notes, ...details, color.red(formatErrorLine(error, outcome.label))] };
    }
    case "interrupted":
      return { stdout: [], stderr: outcome.notes };
  }
}

/**
 * The line a step of the flow prints, if any. `live`: a live status block shows the containers,
 * so the wait needs no line of its own.
 */
export function formatPodProgress(progress: PodProgress, options: PodLinesOptions & { live: boolean }): string[] {
  const { color } = options;
  if (options.json) return [];
  switch (progress.kind) {
    case "kept":
      return progress.unchanged.map((name) => color.dim(`${progress.label}[${name}] unchanged`));
    case "waiting": {
      if (options.live) return [];
      const { started } = progress;
      const sidecars = started.sidecars ? ` and ${plural(started.sidecars, "sidecar")}` : "";
      return [
        color.dim(
          `${progress.label}: ${plural(started.appContainers, "container")}${sidecars} started; waiting up to ${formatHumanDuration(progress.timeoutMs)} for readiness`,
        ),
      ];
    }
    case "containers":
    case "ending":
      return [];
  }
}
