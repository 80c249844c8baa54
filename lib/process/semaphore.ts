// A counting semaphore: the image puller's slots (lib/images/puller.ts) and the pod starts of
// one `up` (lib/apply/up.ts). Its waiters are served by priority, highest first, and in arrival
// order among equals: `up` gives a pod that others wait for (the first pods of a StatefulSet of
// OrderedReady) a free slot before those nobody waits for; the puller asks at one priority.

export interface Semaphore {
  /** Resolves with a release function once a slot is free; releasing twice frees one slot. */
  acquire(priority?: number): Promise<() => void>;
  /** Runs `fn` in a slot, released however it ends. */
  run<T>(fn: () => Promise<T>, priority?: number): Promise<T>;
}

export function createSemaphore(limit: number): Semaphore {
  let free = limit;
  let dispatching = false;
  const waiters: { priority: number; wake: () => void }[] = [];
  // Free slots go out once the current turn of the event loop has ended, so that the requests
  // made together (every pod of a run asks at once) are served by priority, not by which of them
  // reached its request first.
  const dispatch = (): void => {
    dispatching = false;
    while (free > 0 && waiters.length > 0) {
      free--;
      waiters.shift()!.wake();
    }
  };
  const release = (): void => {
    const next = waiters.shift();
    if (next) next.wake();
    else free++;
  };
  const acquire = (priority = 0): Promise<() => void> =>
    new Promise((resolve) => {
      // After every waiter of this priority or a higher one: arrival order among equals.
      const at = waiters.findIndex((w) => w.priority < priority);
      const waiter = { priority, wake: () => resolve(once(release)) };
      if (at === -1) waiters.push(waiter);
      else waiters.splice(at, 0, waiter);
      if (free > 0 && !dispatching) {
        dispatching = true;
        setImmediate(dispatch);
      }
    });
  return {
    acquire,
    async run(fn, priority) {
      const done = await acquire(priority);
      try {
        return await fn();
      } finally {
        done();
      }
    },
  };
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn();
    }
  };
}
