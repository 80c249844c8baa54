import t from "tap";
import { formatHumanDuration } from "../../lib/output/human-duration.js";

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
