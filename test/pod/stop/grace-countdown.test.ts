import t from "tap";
import { startGraceCountdown } from "../../../lib/pod/stop/grace-countdown.js";

t.test("the seconds left of a grace period, rounded up, never below zero", async (t) => {
  // [grace period in s, ms passed since it started, seconds left]
  const cases: [number, number, number][] = [
    [30, 0, 30],
    [30, 1, 30],
    [30, 999, 30],
    [30, 1000, 29],
    [30, 1001, 29],
    [30, 29_001, 1],
    [30, 30_000, 0],
    [30, 45_000, 0],
    [0, 0, 0],
    [0, 5, 0],
    [2, 500, 2],
  ];
  for (const [grace, passed, left] of cases) {
    let now = 1_000_000;
    const remaining = startGraceCountdown(grace, () => now);
    now += passed;
    t.equal(remaining(), left, `${grace} s, ${passed} ms later`);
  }
});

t.test("each call reads the clock again", async (t) => {
  let now = 0;
  const remaining = startGraceCountdown(10, () => now);
  const seen: number[] = [];
  for (const step of [0, 2500, 2500, 5000]) {
    now += step;
    seen.push(remaining());
  }
  t.same(seen, [10, 8, 5, 0]);
});
