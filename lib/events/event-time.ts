// Event timestamps as numbers: metav1.Time is RFC 3339 (the recorder writes it in UTC at whole
// seconds), which Date.parse reads.

/** Milliseconds since the epoch; -Infinity for a missing or unreadable time (kubectl's <unknown>). */
export function timeOf(timestamp: string | undefined): number {
  const ms = timestamp ? Date.parse(timestamp) : Number.NaN;
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}
