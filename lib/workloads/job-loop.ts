import type { JobStatus } from "kubernetes-types/batch/v1.js";
import type { Clock } from "../pod/readiness/wait-clock.js";
import type { JobController, JobEvent, JobObservation, PodToCreate } from "./job-controller.js";

// The loop `up --wait` runs for a Job: sync, carry out the decision, wait for news from the engine
// or for the time the controller asked to be woken at, repeat until the Job is Complete or Failed.
// The engine side is an interface so that this loop is tested with a fake clock and fake pods;
// the real one starts pods through run-pod.ts and watches their containers.

export interface JobPodEngine {
  /** Starts the pod and returns once it is created; its start and exit come later through `watch`. */
  create(pod: PodToCreate): Promise<void>;
  /** Stops the pod (grace period, as `down` does); its end comes through `watch` ("gone" or "exited"). */
  delete(name: string): Promise<void>;
  /**
   * What happened to the Job's pods since the last call, once something has. Resolves `[]` when
   * `signal` aborts, and keeps what it saw meanwhile for the next call: nothing may be lost.
   */
  watch(signal: AbortSignal): Promise<JobObservation[]>;
}

export type JobOutcome =
  | { outcome: "Complete" | "Failed"; reason: string; message: string; status: JobStatus }
  | { outcome: "interrupted"; status: JobStatus };

export async function runJob(
  controller: JobController,
  engine: JobPodEngine,
  options: { clock: Clock; signal?: AbortSignal; onEvent?: (event: JobEvent) => void },
): Promise<JobOutcome> {
  const { clock, signal } = options;
  for (;;) {
    const decision = controller.sync(clock.now());
    for (const event of decision.events) options.onEvent?.(event);
    for (const name of decision.delete) await engine.delete(name);
    for (const pod of decision.create) await engine.create(pod);
    const finished = controller.finished;
    if (finished)
      return {
        outcome: finished.type,
        reason: finished.reason,
        message: finished.message,
        status: controller.status(),
      };
    if (signal?.aborted) return { outcome: "interrupted", status: controller.status() };

    const stop = new AbortController();
    const abort = () => stop.abort();
    signal?.addEventListener("abort", abort, { once: true });
    const watching = engine.watch(stop.signal);
    const waits: Promise<unknown>[] = [watching];
    if (decision.wakeAt !== undefined) waits.push(clock.sleep(Math.max(0, decision.wakeAt - clock.now()), stop.signal));
    await Promise.race(waits);
    stop.abort();
    signal?.removeEventListener("abort", abort);
    // Awaited even when the wake-up came first: a watch that had just resolved still hands over
    // what it saw (an aborted one resolves at once).
    for (const observation of await watching) controller.observe(observation);
  }
}
