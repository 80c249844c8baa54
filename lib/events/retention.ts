import { UsageError } from "../errors.js";
import { parseDuration } from "./parse-duration.js";

// How long the event log keeps an event, as the API server keeps events for --event-ttl: an
// event older than this (by its last time) is hidden from listings, and a rotated file whose
// last write is older is deleted at the next rotation. A few days: long enough to look back on
// last week's CI runs after a weekend, short enough that a listing never reads much history.

export const RETENTION_ENV = "PODRUN_EVENTS_RETENTION";
export const DEFAULT_RETENTION_MS = 72 * 3_600_000;

/**
 * A retention in milliseconds from `text` (`72h`, `7d`, `90m`); `0` or `none` keep events for as
 * long as the size limits allow (Infinity). `source` names where the text came from, for the error.
 */
export function parseRetention(text: string, source: string): number {
  if (text === "none") return Number.POSITIVE_INFINITY;
  const ms = parseDuration(text);
  if (ms === undefined || ms < 0)
    throw new UsageError(
      `invalid value ${JSON.stringify(text)} for ${source}: expected a duration such as 72h or 7d, or 0 or none to keep events until the size limits drop them`,
    );
  return ms === 0 ? Number.POSITIVE_INFINITY : ms;
}

/** The retention `option` gives, else $PODRUN_EVENTS_RETENTION, else the default (72h). */
export function resolveRetention(option: string | undefined, env: NodeJS.ProcessEnv): number {
  if (option !== undefined) return parseRetention(option, "--retention");
  const value = env[RETENTION_ENV];
  return value === undefined || value === "" ? DEFAULT_RETENTION_MS : parseRetention(value, `$${RETENTION_ENV}`);
}
