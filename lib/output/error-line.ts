// The line a failure ends on, on standard error, for every command:
//   Error: <Reason>: <object>: <message>
// Reason is the kubelet's word (PodrunError), left out for errors that have none (an engine
// command, a state file); object is the pod (or pod/container) it is about, when one is.

/** `Error: ` and the parts the error has, joined by `: `. */
export function formatErrorLine(
  error: { readonly reason?: string | undefined; readonly message: string },
  object?: string,
): string {
  return `Error: ${[error.reason, object, error.message].filter((part) => part !== undefined).join(": ")}`;
}

/** A failure a command goes on past (a state file moved aside, an event log not written): `Warning: <message>`. */
export function formatWarningLine(message: string): string {
  return `Warning: ${message}`;
}
