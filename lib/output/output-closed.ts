/**
 * Aborts when the reader of `stream` goes away (`podrun events | head -3`: EPIPE), so that a
 * command stops writing and exits quietly, as any command whose output was cut short on purpose.
 * Any other write error is thrown.
 */
export function watchOutputClosed(stream: NodeJS.WritableStream): AbortSignal {
  const closed = new AbortController();
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    closed.abort();
  });
  return closed.signal;
}
