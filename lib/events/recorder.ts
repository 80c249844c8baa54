import { hostname } from "node:os";
import { eventKey } from "./event-key.js";
import type { EventType } from "./reasons.js";
import type { InvolvedObject, KubeEvent } from "./types.js";

// client-go's event recorder (staging/src/k8s.io/client-go/tools/record) reduced to what one podrun run
// needs: build the Event, de-duplicate repeats (the "observe" step), and hand it on. The
// aggregation and spam-filter steps are left out: a run emits a few dozen events at most.

/** Receives every event, new or repeated, synchronously and in order. */
export interface EventSink {
  write(event: KubeEvent): void;
}

/** Where events are persisted (event-log.ts); appends run one after another, in order. */
export interface EventLogWriter {
  append(event: KubeEvent): Promise<void>;
}

export interface RecorderOptions {
  sinks: readonly EventSink[];
  log?: EventLogWriter;
  /** Milliseconds since the epoch (default Date.now). */
  clock?: () => number;
  /** source.host and reportingInstance (default: this machine's host name). */
  host?: string;
}

export interface EventRecorder {
  /** Records one event and returns it; a repeat returns the counted event (same name, count + 1). */
  event(object: InvolvedObject, type: EventType, reason: string, message: string): KubeEvent;
  /** Waits for the event log to be written; rejects with the first append error since the last flush. */
  flush(): Promise<void>;
}

// client-go's maxLruCacheEntries.
const MAX_CACHED_KEYS = 4096;

export function createRecorder({ sinks, log, clock = Date.now, host = hostname() }: RecorderOptions): EventRecorder {
  const seen = new Map<string, KubeEvent>();
  let lastNanos = 0n;
  let pending: Promise<void> = Promise.resolve();
  let logError: Error | undefined;

  // Event names are `<pod>.<hex unix nanos>`; a millisecond clock would repeat, so keep them increasing.
  const nextNanos = (ms: number): bigint => {
    const nanos = BigInt(Math.trunc(ms)) * 1_000_000n;
    lastNanos = nanos > lastNanos ? nanos : lastNanos + 1n;
    return lastNanos;
  };

  const event = (object: InvolvedObject, type: EventType, reason: string, message: string): KubeEvent => {
    const nowMs = clock();
    const now = toApiTime(nowMs);
    // The pod's uid: one run's repeats. Across runs, `podrun events` folds by eventKey alone.
    const key = `${object.uid} ${eventKey(object, type, reason, message)}`;
    const previous = seen.get(key);
    const recorded: KubeEvent = previous
      ? { ...previous, count: previous.count + 1, lastTimestamp: now }
      : {
          apiVersion: "v1",
          kind: "Event",
          metadata: {
            name: `${object.name}.${nextNanos(nowMs).toString(16)}`,
            namespace: object.namespace || "default",
          },
          involvedObject: { ...object },
          reason,
          message,
          type,
          source: { component: "podrun", host },
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
          reportingComponent: "podrun",
          reportingInstance: host,
        };
    remember(seen, key, recorded);
    for (const sink of sinks) sink.write(recorded);
    if (log) {
      // One chain for all appends keeps the log in recording order, hence each container's too.
      pending = pending
        .then(() => log.append(recorded))
        .catch((error: unknown) => {
          logError ??= error instanceof Error ? error : new Error(String(error));
        });
    }
    return recorded;
  };

  const flush = async (): Promise<void> => {
    await pending;
    if (logError !== undefined) {
      const error = logError;
      logError = undefined;
      throw error;
    }
  };

  return { event, flush };
}

// A small LRU: re-inserting moves a key to the end; the oldest goes first.
function remember(cache: Map<string, KubeEvent>, key: string, event: KubeEvent): void {
  cache.delete(key);
  cache.set(key, event);
  if (cache.size > MAX_CACHED_KEYS) cache.delete(cache.keys().next().value as string);
}

/** metav1.Time as the API serializes it: RFC 3339, UTC, whole seconds. */
export function toApiTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
