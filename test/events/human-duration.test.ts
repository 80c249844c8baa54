import t from "tap";
import { formatAge } from "../../lib/output/event-table.js";
import { formatHumanDuration } from "../../lib/text/human-duration.js";

// The age column of `kubectl get events` (apimachinery's util/duration HumanDuration): one
// case on each side of every boundary of the table.
const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;
const y = 365 * d;

t.test("ages print as kubectl's HumanDuration, boundary by boundary", async (t) => {
  const cases: [number, string][] = [
    [-3 * s, "<invalid>"],
    [-2 * s, "<invalid>"], // ≤ −2s: clock skew too large to call "now"
    [-1999, "0s"], // −1s: tolerated skew
    [-1 * s, "0s"],
    [0, "0s"],
    [1999, "1s"], // whole seconds, truncated
    [119 * s, "119s"],
    [119 * s + 999, "119s"],
    [120 * s, "2m"], // < 10 min: minutes and seconds, a zero remainder left out
    [5 * m + 30 * s, "5m30s"],
    [9 * m + 59 * s, "9m59s"],
    [10 * m, "10m"], // < 3 h: minutes only
    [95 * m, "95m"],
    [179 * m + 59 * s, "179m"],
    [3 * h, "3h"], // < 8 h: hours and minutes
    [3 * h + 5 * m, "3h5m"],
    [7 * h + 59 * m, "7h59m"],
    [8 * h, "8h"], // < 48 h: hours
    [30 * h, "30h"],
    [47 * h + 59 * m, "47h"],
    [48 * h, "2d"], // < 8 d: days and hours
    [3 * d + 4 * h, "3d4h"],
    [7 * d + 23 * h, "7d23h"],
    [8 * d, "8d"], // < 2 y: days
    [400 * d, "400d"],
    [2 * y - 1, "729d"],
    [2 * y, "2y"], // < 8 y: years and days
    [3 * y + 20 * d, "3y20d"],
    [8 * y - d, "7y364d"],
    [8 * y, "8y"], // else: years
    [9 * y + 100 * d, "9y"],
  ];
  for (const [ms, expected] of cases) t.equal(formatHumanDuration(ms), expected, `${ms} ms → ${expected}`);
});

t.test("the age of a timestamp; <unknown> when there is none", async (t) => {
  const now = Date.parse("2025-03-01T12:00:00Z");
  t.equal(formatAge("2025-03-01T11:54:30Z", now), "5m30s");
  t.equal(formatAge("2025-03-01T12:00:00Z", now), "0s");
  t.equal(formatAge("2025-03-01T12:00:05Z", now), "<invalid>", "from the future (another machine's clock)");
  t.equal(formatAge("2025-02-26T08:00:00Z", now), "3d4h");
  t.equal(formatAge("", now), "<unknown>");
  t.equal(formatAge(undefined, now), "<unknown>");
  t.equal(formatAge("yesterday", now), "<unknown>");
  t.equal(formatAge("0001-01-01T00:00:00Z", now), "<unknown>", "Go's zero time");
});
