// Go's time.Duration.String for a duration already truncated to milliseconds, as the kubelet
// prints pull times (`812ms`, `3.204s`, `1m2.5s`, `1h0m0s`), so messages match a cluster's.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export function formatGoDuration(ms: number): string {
  const total = Math.trunc(ms);
  if (total === 0) return "0s";
  if (total < 0) return `-${formatGoDuration(-total)}`;
  if (total < SECOND) return `${total}ms`;
  const hours = Math.floor(total / HOUR);
  const minutes = Math.floor((total % HOUR) / MINUTE);
  const seconds = formatSeconds(total % MINUTE);
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

// Whole seconds, then the milliseconds with trailing zeros dropped: 2500 → "2.5", 3000 → "3".
function formatSeconds(ms: number): string {
  const whole = Math.floor(ms / SECOND);
  const fraction = String(ms % SECOND)
    .padStart(3, "0")
    .replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : String(whole);
}
