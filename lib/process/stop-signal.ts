// What ends a command that runs until stopped (`events -w`, `logs -f`): the caller's signal,
// the output going away, SIGINT or SIGTERM. Stopping is the normal way such a command ends, so
// these signals end it quietly (exit 0) instead of killing the process.

export function stopSignal(...signals: (AbortSignal | undefined)[]): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort();
  for (const signal of signals) {
    if (signal?.aborted) stop();
    signal?.addEventListener("abort", stop, { once: true });
  }
  // `on`, not `once`: execa's exit handler re-sends a signal that no other listener is left for.
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return {
    signal: controller.signal,
    release: () => {
      for (const signal of signals) signal?.removeEventListener("abort", stop);
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    },
  };
}
