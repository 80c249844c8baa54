// kubectl's AGE column (apimachinery duration.HumanDuration): `25s`, `4m10s`, `15m`, `3h5m`,
// `2d4h`, so that podrun's tables read like `kubectl get`. Precision drops as the age grows:
// seconds only matter in the first minutes.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;

/** A duration in milliseconds as kubectl prints an age; "<invalid>" below -1 s (clock skew). */
export function formatHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  // kubectl tolerates a second of skew between machines as "now".
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) return withRest(minutes, "m", seconds % 60, "s");
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) return withRest(hours, "h", minutes % 60, "m");
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(ms / DAY);
  if (hours < 24 * 8) return withRest(days, "d", hours % 24, "h");
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(ms / YEAR);
  if (hours < 24 * 365 * 8) return withRest(years, "y", days % 365, "d");
  return `${years}y`;
}

// "4m" rather than "4m0s": a zero remainder is left out.
function withRest(value: number, unit: string, rest: number, restUnit: string): string {
  return rest === 0 ? `${value}${unit}` : `${value}${unit}${rest}${restUnit}`;
}

/** How long a run took, as `up`, `--wait` and `down` end their lines: seconds to a tenth (`0.4s`, `12.0s`). */
export function formatElapsedSeconds(seconds: number): string {
  return `${seconds.toFixed(1)}s`;
}
