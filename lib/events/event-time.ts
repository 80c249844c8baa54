// Event timestamps as numbers. The recorder writes metav1.Time as RFC 3339 in UTC at whole
// seconds (`2025-03-01T12:00:00Z`, 20 characters); those are read digit by digit, which is
// several times cheaper than Date.parse and is done twice per logged line. Anything else goes
// through Date.parse.

// The hour of the last recorder time read in full: its first 13 characters (`2025-03-01T12`, all
// checked then) and its milliseconds. A log is in time order, so nearly every time falls in the
// hour of the one before, and only its minutes and seconds are left to read.
let hourText = "";
let hourMs = 0;

/** Milliseconds since the epoch; -Infinity for a missing or unreadable time (kubectl's <unknown>). */
export function timeOf(timestamp: string): number {
  if (hasRecorderLayout(timestamp)) {
    if (hourText !== "" && timestamp.startsWith(hourText)) {
      const minute = digitsAt(timestamp, 14, 2);
      const second = digitsAt(timestamp, 17, 2);
      // NaN (a non-digit) fails both tests: such a time goes the long way and is read as unreadable.
      if (minute <= 59 && second <= 59) return hourMs + minute * 60_000 + second * 1000;
    }
    const year = digitsAt(timestamp, 0, 4);
    const month = digitsAt(timestamp, 5, 2);
    const day = digitsAt(timestamp, 8, 2);
    const hour = digitsAt(timestamp, 11, 2);
    const minute = digitsAt(timestamp, 14, 2);
    const second = digitsAt(timestamp, 17, 2);
    // Date.UTC reads years 0-99 as 19xx (Go's zero time is year 1) and rolls over what is out of
    // range: such times, and NaN from a non-digit, are left to Date.parse.
    if (year >= 1000 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59) {
      hourMs = Date.UTC(year, month - 1, day, hour);
      // A copy: a slice of 13 characters or more is a view that would keep the whole line.
      hourText = copyString(timestamp.slice(0, 13));
      return hourMs + minute * 60_000 + second * 1000;
    }
  }
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

// `....-..-..T..:..:..Z`: the separators; the digits are checked as they are read.
function hasRecorderLayout(text: string): boolean {
  return (
    text.length === 20 &&
    text.charCodeAt(4) === 45 && // -
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 84 && // T
    text.charCodeAt(13) === 58 && // :
    text.charCodeAt(16) === 58 &&
    text.charCodeAt(19) === 90 // Z
  );
}

// The decimal number in text[from, from + count), or NaN if a character is not a digit.
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

// A copy of `text` that shares no memory with a longer string: a slice of 13 characters or more
// is a view into its string, and held in hourText it would keep a whole log line alive.
// Concatenating then slicing makes V8 copy just these characters.
function copyString(text: string): string {
  return ` ${text}`.slice(1);
}
