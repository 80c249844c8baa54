import { UsageError } from "../errors.js";
// Durations as Go's time.ParseDuration reads them (`90s`, `10m`, `1h30m`, `1.5h`, `300ms`), the
// syntax kubectl's flags take (`kubectl logs --since`), plus `d` for days, which Go lacks but
// which "events of the last 2d" needs. Returns milliseconds, or undefined for anything else.

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

// One "<number><unit>" segment: digits with an optional fraction (`1.`, `.5` and `1.5` are fine,
// `.` alone is not), then a unit; longer units first so that `ms` is not read as `m`.
const SEGMENT = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h|d)/;

/** Milliseconds in `text`, signed; undefined if it is not a duration. */
export function parseDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  // Go accepts a bare 0 (no unit needed when there is nothing to scale).
  if (rest === "0") return 0;
  if (rest === "") return undefined;
  let total = 0;
  while (rest !== "") {
    const match = SEGMENT.exec(rest);
    if (!match) return undefined;
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    rest = rest.slice(match[0].length);
  }
  return sign * total;
}

/** A command-line duration (`--since`, `--timeout`): positive, else a usage error naming the flag. */
export function parseDurationOption(value: string, flag: string): number {
  const ms = parseDuration(value);
  if (ms === undefined)
    throw new UsageError(
      `invalid value ${JSON.stringify(value)} for ${flag}: expected a duration such as 90s, 5m, 1m30s or 2d`,
    );
  if (ms <= 0)
    throw new UsageError(`invalid value ${JSON.stringify(value)} for ${flag}: the duration must be positive`);
  return ms;
}
