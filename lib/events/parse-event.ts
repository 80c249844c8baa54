import type { KubeEvent } from "./types.js";

// One line of the event log back into an Event. Lines are checked only for what readers rely on
// (kind, a name, an involved object with a name); anything else is skipped, never fatal: a torn
// line from a crash or a full disk must not make the whole log unreadable.

/** The event on `line`, or undefined if it is not one. */
export function parseEventLine(line: string): KubeEvent | undefined {
  let value: Partial<KubeEvent> | null;
  try {
    value = JSON.parse(line) as Partial<KubeEvent> | null;
  } catch {
    // A torn line (see above): skipped.
    return undefined;
  }
  if (typeof value !== "object" || value === null || value.kind !== "Event") return undefined;
  if (typeof value.metadata?.name !== "string") return undefined;
  const object = value.involvedObject as Partial<KubeEvent["involvedObject"]> | undefined;
  if (typeof object !== "object" || object === null) return undefined;
  return value as KubeEvent;
}
