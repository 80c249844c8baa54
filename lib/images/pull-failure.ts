import { scrubSecrets } from "../credentials/scrub.js";
import { PullError, type PullReason } from "../runtime/pull-errors.js";
import { errorFirstLine, errorMessage } from "../errors.js";

// What a failed pull means for the manager: the kubelet's reason and its message. The runtime
// throws PullError, already classified as the kubelet does (pkg/kubelet/images/types.go); anything else is an
// ErrImagePull carrying its own text, as the kubelet treats errors it does not recognise.

export interface PullFailure {
  reason: PullReason;
  /** One line, without credentials. */
  message: string;
}

/** The failure's reason and first line, with every one of `secrets` (the credentials tried) scrubbed from it. */
export function describePullFailure(error: unknown, secrets: readonly string[] = []): PullFailure {
  const message = errorFirstLine(scrubSecrets(errorMessage(error), secrets).trim());
  return { reason: error instanceof PullError ? error.reason : "ErrImagePull", message };
}
