import t from "tap";
import { Backoff, CRASH_LOOP_BACKOFF, IMAGE_PULL_BACKOFF, imagePullBackoffKey } from "../../lib/state/backoff.js";

// client-go flowcontrol.Backoff semantics with the kubelet's image-pull constants, in seconds.
const S = 1000;

t.test("image pulls: 10s doubling to a 300s cap, no jitter", async (t) => {
  const backoff = new Backoff(IMAGE_PULL_BACKOFF);
  const schedule: number[] = [];
  let now = 0;
  for (let i = 0; i < 7; i++) {
    schedule.push(backoff.next("k", now).backoffMs / S);
    now += backoff.get("k", now)!; // retry as soon as allowed
  }
  t.same(schedule, [10, 20, 40, 80, 160, 300, 300]);
});

t.test("next: a new key starts at the initial period and stamps lastUpdate", async (t) => {
  const backoff = new Backoff(IMAGE_PULL_BACKOFF);
  t.same(backoff.next("k", 5 * S), { backoffMs: 10 * S, lastUpdateMs: 5 * S });
  t.same(backoff.next("k", 6 * S), { backoffMs: 20 * S, lastUpdateMs: 6 * S }, "doubles even when called early");
  t.equal(backoff.next("other", 6 * S).backoffMs, 10 * S, "keys are independent");
});

t.test("isInBackOffSinceUpdate: now − lastUpdate < backoff", async (t) => {
  const backoff = new Backoff(IMAGE_PULL_BACKOFF);
  t.equal(backoff.isInBackOffSinceUpdate("k", 0), false, "no entry");
  backoff.next("k", 100 * S);
  t.equal(backoff.isInBackOffSinceUpdate("k", 100 * S), true);
  t.equal(backoff.isInBackOffSinceUpdate("k", 109.999 * S), true);
  t.equal(backoff.isInBackOffSinceUpdate("k", 110 * S), false, "exactly one period later: free");
});

t.test("expiry: more than 2 × max (600s) since the last update", async (t) => {
  const backoff = new Backoff(IMAGE_PULL_BACKOFF);
  backoff.next("k", 0);
  backoff.next("k", 10 * S); // 20s
  t.equal(backoff.get("k", 610 * S), 20 * S, "600s after: still known");
  t.equal(backoff.next("k", 610 * S).backoffMs, 40 * S);
  t.equal(backoff.get("k", 1210.001 * S), undefined, "just over 600s: expired");
  t.equal(backoff.isInBackOffSinceUpdate("k", 1210.001 * S), false);
  t.equal(backoff.next("k", 1210.001 * S).backoffMs, 10 * S, "an expired entry starts over");
});

t.test("an expired entry never counts as in back-off, even with a huge period", async (t) => {
  const backoff = new Backoff({ initialMs: 1000 * S, maxMs: 1000 * S, expireAfterMs: 5 * S });
  backoff.next("k", 0);
  t.equal(backoff.isInBackOffSinceUpdate("k", 5 * S), true);
  t.equal(backoff.isInBackOffSinceUpdate("k", 5.001 * S), false, "expireAfterMs overrides 2 × max");
});

t.test("gc deletes expired entries only; reset forgets one key", async (t) => {
  const backoff = new Backoff(IMAGE_PULL_BACKOFF);
  backoff.next("old", 0);
  backoff.next("new", 500 * S);
  t.same(backoff.gc(601 * S), ["old"]);
  t.same([...backoff.entries.keys()], ["new"]);
  backoff.reset("new");
  t.equal(backoff.entries.size, 0);
  t.same(backoff.gc(0), []);
});

t.test("next drops the remembered error; callers set it again", async (t) => {
  const backoff = new Backoff(IMAGE_PULL_BACKOFF);
  backoff.next("k", 0).lastError = "ErrImagePull: x";
  t.equal(backoff.entries.get("k")?.lastError, "ErrImagePull: x");
  t.equal(backoff.next("k", S).lastError, undefined);
});

t.test("image pull keys: namespace/name and the image as written, stable across runs", async (t) => {
  t.equal(imagePullBackoffKey({ namespace: "default", name: "web" }, "busybox"), "default/web_busybox");
  t.equal(imagePullBackoffKey({ namespace: "ci", name: "db" }, "127.0.0.1:5100/x:1"), "ci/db_127.0.0.1:5100/x:1");
});

t.test(
  "crash loops: isInBackOffSince counts from the container's finish; the entry expires after a fixed 600s",
  async (t) => {
    const backoff = new Backoff(CRASH_LOOP_BACKOFF);
    const cases: { step: string; finished: number; now: number; inBackOff: boolean; next?: number }[] = [
      { step: "no entry: restart at once", finished: 0, now: 1 * S, inBackOff: false, next: 10 },
      { step: "finished 5s ago, period 10s", finished: 20 * S, now: 25 * S, inBackOff: true },
      { step: "finished 10s ago: free; doubles", finished: 20 * S, now: 30 * S, inBackOff: false, next: 20 },
      { step: "finished 19.999s ago, period 20s", finished: 100 * S, now: 119.999 * S, inBackOff: true },
      {
        step: "601s after the last update: expired, starts over",
        finished: 631 * S,
        now: 631.001 * S,
        inBackOff: false,
        next: 10,
      },
    ];
    for (const c of cases) {
      t.equal(backoff.isInBackOffSince("c", c.finished, c.now), c.inBackOff, c.step);
      if (c.next !== undefined) t.equal(backoff.next("c", c.now).backoffMs, c.next * S, `${c.step}: next`);
    }
    let now = 0;
    const schedule: number[] = [];
    const fresh = new Backoff(CRASH_LOOP_BACKOFF);
    for (let i = 0; i < 7; i++) {
      schedule.push(fresh.next("c", now).backoffMs / S);
      now += fresh.get("c", now)!;
    }
    t.same(schedule, [10, 20, 40, 80, 160, 300, 300], "the kubelet's CrashLoopBackOff: 10s doubling to 300s");
  },
);
