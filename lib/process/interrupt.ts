// Ctrl-C (SIGINT) and SIGTERM as an AbortSignal, so that long steps (pulls, waits) can stop and
// clean up what they started instead of dying half-way. A second Ctrl-C means "now": podrun exits
// at once with 130, leaving whatever the first one was cleaning up (as docker compose does).

export interface Interrupt {
  /** Aborted on the first SIGINT or SIGTERM; `reason` is the signal's name. */
  readonly signal: AbortSignal;
  /** Stops listening (the default handlers come back). */
  dispose(): void;
}

export function watchInterrupt(options: { onForce?: () => void } = {}): Interrupt {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      options.onForce?.();
      process.exit(130);
    }
    controller.abort(name);
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return {
    signal: controller.signal,
    dispose() {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    },
  };
}
