import { createHash } from "node:crypto";
import type { RegistryCredential } from "../credentials/types.js";
import { abortError, throwIfAborted } from "../process/abort.js";
import type { ContainerRuntime, ImageInfo } from "../runtime/types.js";
import { createSemaphore } from "../process/semaphore.js";
import { pullWithCredentials } from "./pull-with-credentials.js";

// The kubelet's pullers (pkg/kubelet/images/puller.go): serialized by default (one worker, first come first
// served), or up to `maxParallel` pulls at once. Both are one FIFO semaphore, with 1 or N slots.
// Unlike the kubelet, an image requested twice in one run with the same credentials is pulled
// once: two containers of a pod often share an image, and a second `pull` would only ask the
// registry again. With other credentials it is pulled again: a pod must not get an image through
// another pod's secret.

/**
 * How many pulls run at once unless `--parallel-pulls` says otherwise. The kubelet serializes
 * them (a node's disk is shared by every pod); `up` starts every pod of a run together, so a
 * serialized puller would make the pods of five images wait for each other's pulls. On loopback,
 * four pulls at once took 0.92× the time of four in a row on two cores (bench/RESULTS.md, goal 4):
 * the daemon's decompression competes for the cores. From a registry across a network each pull
 * waits mostly on round trips, where pulls at once overlap their waits; 3 gives that without
 * letting a large stack pull everything at once.
 */
export const DEFAULT_PARALLEL_PULLS = 3;

export interface PullResult {
  imageInfo: ImageInfo;
  /** The pull itself, in ms. */
  pullMs: number;
  /** From the request to the end, waiting for a slot included, in ms. */
  totalMs: number;
}

export interface ImagePuller {
  /**
   * Pulls `ref` (already defaulted) with `credentials` tried in order (none: the engine's own
   * login), or joins the pull of the same ref with the same credentials, under way or done.
   */
  pull(ref: string, credentials?: readonly RegistryCredential[]): Promise<PullResult>;
}

export interface ImagePullerOptions {
  runtime: Pick<ContainerRuntime, "pullImage">;
  /** 1 serializes pulls, as the kubelet's serializeImagePulls; N ≥ 2 allows N at once (default 1 here; `up`'s is DEFAULT_PARALLEL_PULLS). */
  maxParallel?: number;
  /** A monotonic clock in ms (default performance.now). */
  clock?: () => number;
  /** Aborts pulls under way and refuses queued ones (Ctrl-C). */
  signal?: AbortSignal;
}

export function createImagePuller({
  runtime,
  maxParallel = 1,
  clock = () => performance.now(),
  signal,
}: ImagePullerOptions): ImagePuller {
  if (!Number.isInteger(maxParallel) || maxParallel < 1) {
    throw new RangeError(`invalid configuration: maxParallelImagePulls ${maxParallel} must be a positive number`);
  }
  const slots = createSemaphore(maxParallel);
  const pulls = new Map<string, Promise<PullResult>>();

  const pullOnce = async (ref: string, credentials: readonly RegistryCredential[]): Promise<PullResult> => {
    const requestedAt = clock();
    const release = await slots.acquire();
    try {
      throwIfAborted(signal);
      const startedAt = clock();
      // A pull cut short by Ctrl-C fails as canceled (or, when the CLI got the SIGINT too, as a
      // pull error): either way it is an abort, which the image manager must not count as a failure.
      const imageInfo = await pullWithCredentials({ runtime, ref, credentials, signal }).catch((error: unknown) => {
        throw signal?.aborted ? abortError(signal, error) : error;
      });
      const finishedAt = clock();
      return { imageInfo, pullMs: finishedAt - startedAt, totalMs: finishedAt - requestedAt };
    } finally {
      release();
    }
  };

  return {
    pull(ref, credentials = []) {
      const key = formatPullKey(ref, credentials);
      const known = pulls.get(key);
      if (known) return known;
      const pull = pullOnce(ref, credentials);
      pulls.set(key, pull);
      // A failure is not kept: a later attempt (after back-off) must reach the registry again.
      pull.catch(() => pulls.delete(key));
      return pull;
    },
  };
}

// The ref and a digest of the credentials, in order: the key holds no password.
function formatPullKey(ref: string, credentials: readonly RegistryCredential[]): string {
  if (credentials.length === 0) return ref;
  const hash = createHash("sha256");
  for (const { registry, username, password } of credentials)
    hash.update(JSON.stringify([registry, username, password]));
  return `${ref} ${hash.digest("hex")}`;
}
