import type { Clock } from "../../lib/pod/readiness/wait-clock.js";

// A clock for the probe loops' tests (wait-ready, liveness): time moves only in advance(), and
// the timers due meanwhile fire in order, each followed by the work it causes.

export const T0 = Date.parse("2025-03-01T12:00:00Z");

export class FakeClock implements Clock {
  private time = T0;
  private timers: { at: number; resolve: () => void }[] = [];
  now = () => this.time;
  sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const abort = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        resolve();
      };
      const timer = {
        at: this.time + ms,
        resolve: () => {
          signal?.removeEventListener("abort", abort);
          resolve();
        },
      };
      this.timers.push(timer);
      signal?.addEventListener("abort", abort, { once: true });
    });
  /** Seconds since T0. */
  get seconds() {
    return (this.time - T0) / 1000;
  }
  async advance(ms: number) {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.time = Math.max(this.time, due.at);
      this.timers = this.timers.filter((x) => x !== due);
      due.resolve();
    }
    this.time = end;
    await settle();
  }
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Resolves `promise`'s fate after `seconds` of fake time: the value, the error, or "pending". */
export async function after<T>(clock: FakeClock, seconds: number, promise: Promise<T>): Promise<T | Error | "pending"> {
  let fate: T | Error | "pending" = "pending";
  promise.then(
    (v) => (fate = v),
    (e: Error) => (fate = e),
  );
  await clock.advance(seconds * 1000);
  return fate;
}
