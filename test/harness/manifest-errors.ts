import { ManifestError } from "../../lib/errors.js";

/** The lines of the ManifestError that `run` throws, or [] when it succeeds; other errors rethrow. */
export function manifestErrorLines(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ManifestError) return error.lines;
    throw error;
  }
  return [];
}

/** The lines of the ManifestError that `promise` rejects with; fails when it resolves. */
export async function manifestRejectionLines(promise: Promise<unknown>): Promise<readonly string[]> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ManifestError) return error.lines;
    throw error;
  }
  throw new Error("expected a ManifestError");
}
