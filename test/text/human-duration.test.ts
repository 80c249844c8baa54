import t from "tap";
import { formatElapsedSeconds, formatHumanDuration } from "../../lib/text/human-duration.js";

// Cases from apimachinery's duration_test.go (TestHumanDuration), in milliseconds.
t.test("formatHumanDuration prints ages as kubectl does", async (t) => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  const cases: [number, string][] = [
    [-2 * s, "<invalid>"],
    [-1 * s, "0s"],
    [0, "0s"],
    [999, "0s"],
    [s, "1s"],
    [25 * s, "25s"],
    [119 * s, "119s"],
    [2 * m, "2m"],
    [4 * m + 10 * s, "4m10s"],
    [9 * m + 59 * s, "9m59s"],
    [10 * m + 30 * s, "10m"],
    [179 * m, "179m"],
    [3 * h, "3h"],
    [3 * h + 5 * m, "3h5m"],
    [7 * h + 59 * m, "7h59m"],
    [8 * h, "8h"],
    [47 * h + 59 * m, "47h"],
    [48 * h, "2d"],
    [2 * d + 4 * h, "2d4h"],
    [8 * d, "8d"],
    [729 * d, "729d"],
    [730 * d, "2y"],
    [3 * 365 * d + 10 * d, "3y10d"],
    [8 * 365 * d, "8y"],
  ];
  for (const [ms, expected] of cases) t.equal(formatHumanDuration(ms), expected, `${ms} ms`);
});

t.test("formatElapsedSeconds prints a run's wall time to a tenth of a second", async (t) => {
  const cases: [number, string][] = [
    [0, "0.0s"],
    [0.04, "0.0s"],
    [0.05, "0.1s"],
    [0.42, "0.4s"],
    [0.96, "1.0s"],
    [12, "12.0s"],
    [61.25, "61.3s"],
    [3600, "3600.0s"],
  ];
  for (const [seconds, expected] of cases) t.equal(formatElapsedSeconds(seconds), expected, `${seconds} s`);
});
