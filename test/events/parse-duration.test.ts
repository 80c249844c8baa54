import t from "tap";
import { parseDuration } from "../../lib/events/parse-duration.js";

t.test("Go durations (time.ParseDuration) plus days", async (t) => {
  const cases: [string, number][] = [
    ["0", 0],
    ["90s", 90_000],
    ["10m", 600_000],
    ["1h", 3_600_000],
    ["1h30m", 5_400_000],
    ["1.5h", 5_400_000],
    [".5m", 30_000],
    ["1.m", 60_000],
    ["300ms", 300],
    ["1500us", 1.5],
    ["1500µs", 1.5],
    ["2000000ns", 2],
    ["2d", 172_800_000],
    ["1d12h", 129_600_000],
    ["+5s", 5000],
    ["-5s", -5000],
    ["1h1h", 7_200_000],
  ];
  for (const [text, ms] of cases) t.equal(parseDuration(text), ms, text);
});

t.test("anything else is not a duration", async (t) => {
  for (const text of ["", "10", "5x", "m", "1 h", "h1", "1h 30m", ".s", "1.2.3s", "-", "1w", "1H", "10mm", " 10m"]) {
    t.equal(parseDuration(text), undefined, JSON.stringify(text));
  }
});
