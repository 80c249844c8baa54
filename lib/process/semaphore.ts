// A counting semaphore whose waiters are served in arrival order: the image puller's slots
// (lib/images/puller.ts) and the pod starts of one `up` (lib/apply/up.ts).

export interface Semaphore {
  /** Resolves with a release function once a slot is free; releasing twice frees one slot. */
  acquire(): Promise<() => void>;
  /** Runs `fn` in a slot, released however it ends. */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

export function createSemaphore(limit: number): Semaphore {
  let free = limit;
  const waiters: (() => void)[] = [];
  const release = (): void => {
    const next = waiters.shift();
    if (next) next();
    else free++;
  };
  const acquire = (): Promise<() => void> => {
    if (free > 0) {
      free--;
      return Promise.resolve(once(release));
    }
    return new Promise((resolve) => waiters.push(() => resolve(once(release))));
  };
  return {
    acquire,
    async run(fn) {
      const done = await acquire();
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
