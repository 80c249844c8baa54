// Exponential back-off as client-go's flowcontrol.Backoff computes it (staging/src/k8s.io/client-go/util/flowcontrol/backoff.go), without
// jitter, as both kubelet back-offs are built. Pure arithmetic: time comes in as arguments (the
// injected clock), and loading and saving the entries is backoff-store.ts's job.

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** An entry untouched for longer than this is forgotten; client-go's default is 2 × max. */
  expireAfterMs?: number;
}

/** Image pulls: 10 s doubling to 300 s (imageBackOffPeriod, MaxImageBackOff), forgotten after 600 s. */
export const IMAGE_PULL_BACKOFF: BackoffPolicy = { initialMs: 10_000, maxMs: 300_000 };
/** Container restarts (CrashLoopBackOff): 10 s doubling to 300 s (MaxContainerBackOff), forgotten after a fixed 600 s. */
export const CRASH_LOOP_BACKOFF: BackoffPolicy = { initialMs: 10_000, maxMs: 300_000, expireAfterMs: 600_000 };

export interface BackoffEntry {
  /** The current period. */
  backoffMs: number;
  /** When the period was last advanced (the last failure), in ms since the epoch. */
  lastUpdateMs: number;
  /**
   * The kubelet's short error of the last failure (`ErrImagePull: …`), shown with the next
   * BackOff. Carried along for callers; the arithmetic ignores it. Never holds a secret.
   */
  lastError?: string;
}

/** A key → entry map with client-go's Next / IsInBackOffSinceUpdate / GC / Reset semantics. */
export class Backoff {
  constructor(
    readonly policy: BackoffPolicy,
    readonly entries: Map<string, BackoffEntry> = new Map(),
  ) {}

  /** The current period of a live entry, or undefined. */
  get(key: string, now: number): number | undefined {
    const entry = this.entries.get(key);
    return entry && !this.isExpired(entry, now) ? entry.backoffMs : undefined;
  }

  /** Records a failure: a new or expired entry starts at the initial period, else it doubles up to the max. */
  next(key: string, now: number): BackoffEntry {
    const previous = this.entries.get(key);
    const backoffMs =
      previous === undefined || this.isExpired(previous, now)
        ? this.policy.initialMs
        : Math.min(previous.backoffMs * 2, this.policy.maxMs);
    const entry: BackoffEntry = { backoffMs, lastUpdateMs: now };
    this.entries.set(key, entry);
    return entry;
  }

  /** True while less than the current period has passed since the last failure. */
  isInBackOffSinceUpdate(key: string, now: number): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined || this.isExpired(entry, now)) return false;
    return now - entry.lastUpdateMs < entry.backoffMs;
  }

  /** Crash loops: true while less than the current period has passed since `eventTime` (the container's finish). */
  isInBackOffSince(key: string, eventTime: number, now: number): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined || this.isExpired(entry, now)) return false;
    return now - eventTime < entry.backoffMs;
  }

  /** Deletes expired entries; returns their keys. */
  gc(now: number): string[] {
    const removed: string[] = [];
    for (const [key, entry] of this.entries) {
      if (this.isExpired(entry, now)) {
        this.entries.delete(key);
        removed.push(key);
      }
    }
    return removed;
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  // "Consider stable if it's ok for twice the maxDuration."
  isExpired(entry: BackoffEntry, now: number): boolean {
    return now - entry.lastUpdateMs > (this.policy.expireAfterMs ?? 2 * this.policy.maxMs);
  }
}

/**
 * The back-off key of an image pull. The kubelet uses `<podUID>_<image>`, but a pod read from a
 * file gets a new UID every `podrun up`, so namespace and name stand in for it: back-off then
 * carries over between runs. The image is as written (`busybox`, not `busybox:latest`).
 */
export function imagePullBackoffKey(pod: { namespace: string; name: string }, image: string): string {
  return `${pod.namespace}/${pod.name}_${image}`;
}
