// The state directory (back-off file, event log) could not be read or written. It is a plain
// Error so that state/ does not depend on the CLI's error classes; the CLI maps it to exit 1
// (ExitCode.Failed) and prints its one-line message.

/** A state file or directory could not be used. `message` is one line naming the path. */
export class StateAccessError extends Error {
  override readonly name = "StateAccessError";
  constructor(
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "permission denied",
  EEXIST: "it exists and is not a directory",
  ENOTDIR: "a component of the path is not a directory",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  ENOENT: "no such file or directory",
};

/** A short reason for a file-system error, e.g. `permission denied (EACCES)`. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code && ERRNO_TEXT[code]) return `${ERRNO_TEXT[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}
