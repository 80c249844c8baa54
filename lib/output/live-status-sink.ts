import type { Pod } from "kubernetes-types/core/v1.js";
import type { EventSink } from "../events/recorder.js";
import { containerNameOf } from "../events/types.js";
import type { PodProgress } from "../pod/run-pod.js";
import { isSidecar } from "../pod/spec/container-spec.js";
import { formatObjectLabel } from "./console-sink.js";
import { statusOfEvent, type LiveStatus } from "./live-status.js";

// `up --wait` on a terminal: the live status block (one line per container) follows the run,
// through its events (Pulling, Creating, Starting…) and through the flow's progress (a kept
// pod's containers, the wait's view of each container).

/**
 * Moves each container's live line along with its events. An event of an init container also
 * means the ones before it have completed; of an app container, all.
 */
export function createLiveStatusSink(live: LiveStatus, pods: readonly Pod[]): EventSink {
  return {
    write(event) {
      const container = containerNameOf(event.involvedObject);
      if (container === undefined) return;
      const status = statusOfEvent(event.reason);
      if (status) live.set(formatObjectLabel(event), status.text, status.tone);
      const pod = pods.find((p) => p.metadata!.name === event.involvedObject.name);
      // Init containers run one at a time: those before the one this event is about have completed
      // (sidecars among them keep running: their line stays as their own events and the wait set it).
      const inits = pod?.spec!.initContainers ?? [];
      const isApp = event.involvedObject.fieldPath?.startsWith("spec.containers{") === true;
      const done = isApp ? inits.length : inits.findIndex((init) => init.name === container);
      for (const init of inits.slice(0, Math.max(0, done)))
        if (!isSidecar(init)) live.set(`pod/${event.involvedObject.name}[${init.name}]`, "Completed", "done");
    },
  };
}

/** A step of the pod's flow on its live lines. */
export function showPodProgress(live: LiveStatus, pod: Pod, progress: PodProgress): void {
  const { label } = progress;
  if (progress.kind === "kept") {
    // A kept pod's init containers completed in an earlier run (its sidecars still run): no event says so now.
    for (const init of pod.spec!.initContainers ?? []) {
      if (isSidecar(init)) live.set(`${label}[${init.name}]`, "Running", "active");
      else live.set(`${label}[${init.name}]`, "Completed", "done");
    }
  } else if (progress.kind === "containers") {
    for (const c of progress.containers)
      live.set(`${label}[${c.name}]`, c.state, c.failed ? "failed" : c.ready ? "done" : "active");
  }
}
