import type { Event } from "kubernetes-types/core/v1.js";
import type { EventType } from "./reasons.js";

/** What an event is about: a pod (`fieldPath` names the container, if any), or a Job (lib/workloads/run-jobs.ts). */
export interface InvolvedObject {
  apiVersion: "v1" | "batch/v1";
  kind: "Pod" | "Job" | "Service";
  name: string;
  namespace: string;
  uid: string;
  /** `spec.containers{NAME}` or `spec.initContainers{NAME}` (sidecars too); undefined for the pod itself (sandbox). */
  fieldPath?: string;
}

/**
 * A core/v1 Event as the kubelet's recorder fills it (legacy fields: count and first/last
 * timestamps, no series), with the fields podrun always sets made required.
 */
export interface KubeEvent extends Event {
  apiVersion: "v1";
  kind: "Event";
  metadata: { name: string; namespace: string };
  involvedObject: InvolvedObject;
  reason: string;
  message: string;
  type: EventType;
  source: { component: "podrun"; host: string };
  /** RFC 3339 at second precision, as the API serializes metav1.Time. */
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  reportingComponent: "podrun";
  reportingInstance: string;
}

/**
 * The involved object of a pod event, or of a container's when `container` is given (by name,
 * or directly by its field path).
 */
export function toInvolvedObject(
  pod: { name: string; namespace: string; uid: string },
  container?: { name: string; init?: boolean } | { fieldPath: string },
): InvolvedObject {
  const object: InvolvedObject = {
    apiVersion: "v1",
    kind: "Pod",
    name: pod.name,
    namespace: pod.namespace,
    uid: pod.uid,
  };
  if (container && "fieldPath" in container) object.fieldPath = container.fieldPath;
  else if (container) object.fieldPath = `spec.${container.init ? "initContainers" : "containers"}{${container.name}}`;
  return object;
}

/** The container name in a field path such as `spec.containers{app}`, or undefined. */
export function containerNameOf(object: InvolvedObject): string | undefined {
  return /^spec\.(?:init|ephemeral)?[cC]ontainers\{(.+)\}$/.exec(object.fieldPath ?? "")?.[1];
}
