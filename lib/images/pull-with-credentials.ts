import type { RegistryCredential } from "../credentials/types.js";
import { classifyPullError, PullError } from "../runtime/pull-errors.js";
import type { ContainerRuntime, ImageInfo } from "../runtime/types.js";

// The kubelet's PullImage over the keyring's answer (kubernetes/kubernetes
// pkg/kubelet/kuberuntime/kuberuntime_image.go): no credential, one plain pull with whatever the
// engine has of its own; otherwise each matching credential in order until one pulls.

export interface CredentialPullOptions {
  runtime: Pick<ContainerRuntime, "pullImage">;
  /** The image, its tag already defaulted. */
  ref: string;
  /** In the keyring's order (most specific key first); empty: a plain pull. */
  credentials: readonly RegistryCredential[];
  signal?: AbortSignal;
}

/**
 * Pulls `ref`, trying each credential until one succeeds. When all fail, the error is the last
 * attempt's, its hint naming every credential tried (the kubelet aggregates the errors; one line
 * with the sources says the same without repeating the registry's text).
 */
export async function pullWithCredentials({
  runtime,
  ref,
  credentials,
  signal,
}: CredentialPullOptions): Promise<ImageInfo> {
  const base = signal ? { signal } : {};
  if (credentials.length === 0) return runtime.pullImage(ref, base);
  const failures: PullError[] = [];
  for (const credential of credentials) {
    try {
      return await runtime.pullImage(ref, { ...base, credential });
    } catch (error) {
      // An abort, or an engine that does not answer, would fail the same way with every credential.
      if (signal?.aborted || !(error instanceof PullError) || error.reason === "RuntimeUnavailable") throw error;
      failures.push(error);
    }
  }
  throw combineFailures(ref, failures, credentials);
}

function combineFailures(
  ref: string,
  failures: readonly PullError[],
  credentials: readonly RegistryCredential[],
): PullError {
  const last = failures.at(-1)!;
  if (failures.length === 1 || last.stderr === "") return last;
  const credentialSources = [...new Set(credentials.map((c) => c.source))];
  const classification = classifyPullError(last.stderr, { image: ref, credentialsGiven: true, credentialSources });
  return new PullError(ref, classification, { cause: last, stderr: last.stderr });
}
