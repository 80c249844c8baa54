import { PullError, type PullReason } from "../runtime/pull-errors.js";

// What a failed pull means for the manager: the kubelet's reason and its message. The runtime
// throws PullError, already classified as the kubelet does (kubelet.md §3); anything else is an
// ErrImagePull carrying its own text, as the kubelet treats errors it does not recognise.

export interface PullFailure {
  reason: PullReason;
  /** One line, without credentials (PullError's message guarantees that). */
  message: string;
}

export function describePullFailure(error: unknown): PullFailure {
  const message = firstLine(error instanceof Error ? error.message : String(error));
  return { reason: error instanceof PullError ? error.reason : "ErrImagePull", message };
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}
