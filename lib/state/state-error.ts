import { errorMessage } from "../errors.js";

// Why a state file could not be used, in a few words. The error itself is StateAccessError
// (lib/errors.ts), which the CLI maps to exit 1 like every other error class.

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
  return errorMessage(error);
}
