import type { InvolvedObject, KubeEvent } from "./types.js";

// What makes two events "the same event", written down once: the recorder counts a repeat under
// this key (with the pod's uid: one run), and `podrun events` folds lines under it (without the
// uid: every `podrun up` gives the pod a new one, and the listing folds the runs together).
// client-go's getEventKey (tools/record/events_cache.go) has the same fields, plus the source,
// which is always this podrun here, and the object's apiVersion, always v1.

/** The key of an event about `object`: kind, namespace, name and field path, type, reason, message. */
export function eventKey(
  object: Pick<InvolvedObject, "kind" | "namespace" | "name" | "fieldPath">,
  type: string,
  reason: string,
  message: string,
): string {
  return JSON.stringify([object.kind, object.namespace, object.name, object.fieldPath ?? "", type, reason, message]);
}

/**
 * The key of a logged event, read as leniently as the log is: a line written by hand or by
 * another version may lack fields, or leave the object's namespace to the event's.
 */
export function eventKeyOf(event: KubeEvent): string {
  const object: Partial<InvolvedObject> = event.involvedObject ?? {};
  const namespace = object.namespace || event.metadata.namespace || "default";
  return eventKey(
    { kind: object.kind!, namespace, name: object.name!, fieldPath: object.fieldPath },
    event.type,
    event.reason,
    event.message,
  );
}

/** A field of a logged event as text: "" if missing, JSON if not a string (a foreign line). */
export function fieldText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}
