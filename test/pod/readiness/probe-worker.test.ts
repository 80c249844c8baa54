import t from "tap";
import { normalizeProbe, type ProbeType } from "../../../lib/probes/probe-spec.js";
import { mayProbe, planStep } from "../../../lib/pod/readiness/probe-worker.js";
import { createTracker, type ContainerTracker } from "../../../lib/pod/readiness/readiness-tracker.js";
import { Waker } from "../../../lib/pod/readiness/waker.js";
import { FakeClock, T0 } from "../../harness/fake-clock.js";

// A probe worker's schedule (lib/pod/readiness/probe-worker.ts) as a table: which probe may run on
// the container as it is, and when the next attempt is due. The loop itself runs in
// wait-ready.test.ts and liveness.test.ts.

const probe = (type: ProbeType, timing: { initialDelaySeconds?: number; periodSeconds?: number } = {}) =>
  normalizeProbe(type, { exec: { command: ["check"] }, ...timing }, {});

function tracker(state: Partial<ContainerTracker>): ContainerTracker {
  return { ...createTracker("app", "id-app", { name: "app" }), startedAtMs: T0, ...state };
}

t.test("mayProbe: a running container; the startup probe until it passed, the others after", async (t) => {
  const cases: [string, Partial<ContainerTracker>, ProbeType, boolean, boolean][] = [
    ["not running", { running: false, startupPassed: true }, "Readiness", false, false],
    ["running, started", { running: true, startupPassed: true }, "Readiness", false, true],
    ["running, started", { running: true, startupPassed: true }, "Liveness", false, true],
    ["running, started", { running: true, startupPassed: true }, "Startup", false, false],
    ["running, not started", { running: true, startupPassed: false }, "Startup", false, true],
    ["running, not started", { running: true, startupPassed: false }, "Readiness", false, false],
    ["running, not started", { running: true, startupPassed: false }, "Liveness", false, false],
    ["being replaced", { running: true, startupPassed: true }, "Liveness", true, false],
  ];
  for (const [name, state, type, replacing, expected] of cases)
    t.equal(mayProbe(tracker(state), probe(type), replacing), expected, `${name}: ${type}`);
});

t.test("planStep: due initialDelaySeconds after the start, then every periodSeconds", async (t) => {
  const running = { running: true, startupPassed: true };
  const cases: {
    name: string;
    type: ProbeType;
    state: Partial<ContainerTracker>;
    nextAt: number;
    now: number;
    step: unknown;
  }[] = [
    {
      name: "before the initial delay",
      type: "Readiness",
      state: running,
      nextAt: 0,
      now: T0 + 2000,
      step: { kind: "pause", ms: 3000 },
    },
    {
      name: "at the initial delay",
      type: "Readiness",
      state: running,
      nextAt: 0,
      now: T0 + 5000,
      step: { kind: "probe" },
    },
    {
      name: "before the next period",
      type: "Readiness",
      state: running,
      nextAt: T0 + 7000,
      now: T0 + 6500,
      step: { kind: "pause", ms: 500 },
    },
    {
      name: "at the next period",
      type: "Liveness",
      state: running,
      nextAt: T0 + 7000,
      now: T0 + 7000,
      step: { kind: "probe" },
    },
    {
      name: "readiness, not started: until woken",
      type: "Readiness",
      state: { running: true, startupPassed: false },
      nextAt: 0,
      now: T0,
      step: { kind: "pause", ms: Infinity },
    },
    {
      name: "liveness, not running: looks again at the poll",
      type: "Liveness",
      state: { running: false },
      nextAt: 0,
      now: T0,
      step: { kind: "pause", ms: 1000 },
    },
  ];
  for (const c of cases) {
    const w = {
      tracker: tracker(c.state),
      probe: probe(c.type, { initialDelaySeconds: 5, periodSeconds: 2 }),
      nextAt: c.nextAt,
    };
    t.same(planStep(w, c.now, { replacing: false, pollMs: 1000 }), c.step, c.name);
  }
  const slow = { tracker: tracker({ running: false }), probe: probe("Liveness", { periodSeconds: 1 }), nextAt: 0 };
  t.same(
    planStep(slow, T0, { replacing: false, pollMs: 5000 }),
    { kind: "pause", ms: 1000 },
    "the shorter of period and poll",
  );
});

t.test("Waker: the time, a wake, or the end of the wait, whichever comes first", async (t) => {
  const clock = new FakeClock();
  const stop = new AbortController();
  const waker = new Waker(clock, stop.signal);
  const ended: string[] = [];
  void waker.sleep(1000).then(() => ended.push(`timer ${clock.seconds}s`));
  await clock.advance(1000);
  void waker.sleep(Infinity).then(() => ended.push(`woken ${clock.seconds}s`));
  await clock.advance(500);
  waker.wake();
  await clock.advance(0);
  void waker.sleep(Infinity).then(() => ended.push(`aborted ${clock.seconds}s`));
  stop.abort();
  await clock.advance(0);
  await waker.sleep(1000);
  t.same(ended, ["timer 1s", "woken 1.5s", "aborted 1.5s"]);
  t.equal(clock.seconds, 1.5, "a sleep after the end returns at once");
});
