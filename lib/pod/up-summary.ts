import type { PodPlan, RecreateCause } from "./reconcile/reconcile-plan.js";
import { formatElapsedSeconds } from "../text/human-duration.js";
import { plural } from "../text/plural.js";

// The last line of `podrun up` (pure): what happened to the pod, how long it took, on which engine.
//   pod/web: 2 containers started, 1 init container completed (0.7s, docker)
//   pod/web: 2 containers and 1 sidecar started, 1 init container completed (0.9s, docker)
//   pod/web: 1 container unchanged, 1 recreated (0.4s, docker)
//   pod/web: recreated (pod-level fields changed): 2 containers started (1.1s, podman)

const CAUSES: Record<RecreateCause, string> = {
  replace: "--replace",
  "pod-changed": "pod-level fields changed",
  "sandbox-not-running": "its sandbox was not running",
  "init-incomplete": "an init container had not completed",
};

/** What the last line of `podrun up` says about one pod. */
export interface UpSummary {
  label: string;
  /** Undefined: a new pod (no reconciliation, e.g. --dry-run). */
  plan?: PodPlan | undefined;
  /** App and init containers this run started (and sidecars, which keep running). */
  started: { appContainers: number; initContainers: number; sidecars?: number | undefined };
  seconds: number;
  runtime: string;
}

export function formatUpSummary(options: UpSummary): string {
  const { label, plan, started } = options;
  const tail = `(${formatElapsedSeconds(options.seconds)}, ${options.runtime})`;
  const sidecars = started.sidecars ? ` and ${plural(started.sidecars, "sidecar")}` : "";
  const startedText = `${plural(started.appContainers, "container")}${sidecars} started${started.initContainers > 0 ? `, ${plural(started.initContainers, "init container")} completed` : ""}`;
  if (!plan || plan.action === "create") return `${label}: ${startedText} ${tail}`;
  if (plan.action === "recreate-pod") return `${label}: recreated (${CAUSES[plan.cause!]}): ${startedText} ${tail}`;
  // The noun goes with the first number: "1 container unchanged, 1 recreated"; zeros are left out.
  const parts = [
    [plan.keep.length, "unchanged"],
    [plan.recreate.length, "recreated"],
    [plan.create.length, "created"],
    [plan.remove.length, "removed"],
  ] as const;
  const nonZero = parts.filter(([n]) => n > 0);
  const shown = nonZero.length > 0 ? nonZero : parts.slice(0, 1);
  const text = shown
    .map(([n, what], index) => (index === 0 ? `${plural(n, "container")} ${what}` : `${n} ${what}`))
    .join(", ");
  return `${label}: ${text} ${tail}`;
}
