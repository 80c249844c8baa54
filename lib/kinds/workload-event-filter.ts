import { fieldText } from "../events/event-key.js";
import { createEventFilter, type EventFilter, type EventFilterOptions } from "../events/event-filter.js";
import type { KubeEvent } from "../events/types.js";
import { isPodNameOf, type WorkloadRef } from "./workload-ref.js";

// `podrun events deploy/web`: the events of the workload itself (involvedObject `Deployment web`,
// a controller's SuccessfulCreate…) and those of its pods. The log keeps events of pods long gone,
// whose labels no one can read any more, so a pod is the workload's by the name its controller
// gives (workload-ref.ts isPodNameOf), in the namespace of -n when given, as for a pod. A Service
// (`events svc/api`: its proxy image's pulls) has no pods of its own: its own events alone.

export function createWorkloadEventFilter(ref: WorkloadRef, options: Omit<EventFilterOptions, "pod">): EventFilter {
  const others = createEventFilter(options);
  // The workload's name and its pods' names all start with it, as JSON strings do with `"web`.
  const needle = JSON.stringify(ref.name).slice(0, -1);
  return {
    active: true,
    mayMatchLine: (line) => line.includes(needle) && others.mayMatchLine(line),
    matches: (event) => others.matches(event) && isAboutWorkload(ref, event),
  };
}

function isAboutWorkload(ref: WorkloadRef, event: KubeEvent): boolean {
  const object = event.involvedObject ?? {};
  const kind = fieldText(object.kind) || "Pod";
  const name = fieldText(object.name);
  return kind === ref.kind ? name === ref.name : kind === "Pod" && isPodNameOf(ref, name);
}
