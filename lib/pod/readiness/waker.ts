import type { Clock } from "./wait-clock.js";

// The one pause of the prober's loops: a probe worker sleeps until its next attempt is due, or
// until something it depends on changes (a status read, a restart, the startup probe passing),
// or until the wait ends, whichever comes first.

export class Waker {
  private resolveWake: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    /** Aborts when the wait ends: every pause ends with it. */
    private readonly signal: AbortSignal,
  ) {}

  /** Resolves after `ms` (never, for Infinity), at the next wake(), or when the signal aborts. */
  async sleep(ms: number): Promise<void> {
    if (this.signal.aborted) return;
    const timer = new AbortController();
    const abortTimer = () => timer.abort();
    this.signal.addEventListener("abort", abortTimer, { once: true });
    const woken = new Promise<void>((resolve) => {
      this.resolveWake = resolve;
      timer.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await Promise.race([woken, ...(Number.isFinite(ms) ? [this.clock.sleep(ms, timer.signal)] : [])]);
    timer.abort();
    this.signal.removeEventListener("abort", abortTimer);
  }

  /** Ends the pause under way, if any (a wake with no pause is not remembered). */
  wake(): void {
    this.resolveWake?.();
  }
}
