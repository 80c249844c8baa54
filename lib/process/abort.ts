// An aborted step as one kind of error, whatever aborted it: Interrupt (interrupt.ts) aborts with
// the signal's name, a bare AbortController with a DOMException, and a canceled engine command
// fails with an EngineError of kind "canceled". Code that must tell "Ctrl-C" from "it failed" (a
// pull is not a registry failure, a create is not a create error) looks for the name AbortError.

/** An Error named AbortError for `signal`, its reason kept as the cause. */
export function abortError(signal: AbortSignal, cause?: unknown): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === "AbortError" && cause === undefined) return reason;
  const why = typeof reason === "string" ? ` by ${reason}` : "";
  return Object.assign(new Error(`The operation was aborted${why}`, { cause: cause ?? reason }), {
    name: "AbortError",
  });
}

/** Throws abortError(signal) once `signal` has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}
