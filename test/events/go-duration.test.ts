import t from "tap";
import { formatGoDuration } from "../../lib/events/go-duration.js";

t.test("durations print as Go's time.Duration.String after truncation to milliseconds", async (t) => {
  const cases: [number, string][] = [
    [0, "0s"],
    [0.9, "0s"],
    [1, "1ms"],
    [812, "812ms"],
    [812.7, "812ms"],
    [1000, "1s"],
    [1500, "1.5s"],
    [3204, "3.204s"],
    [10_050, "10.05s"],
    [60_000, "1m0s"],
    [62_500, "1m2.5s"],
    [3_599_999, "59m59.999s"],
    [3_600_000, "1h0m0s"],
    [3_723_004, "1h2m3.004s"],
    [-1500, "-1.5s"],
  ];
  for (const [ms, expected] of cases) t.equal(formatGoDuration(ms), expected, String(ms));
});
