import t from "tap";
import {
  backoffPeriod,
  nextBackoffRecord,
  remainingBackoff,
  JOB_POD_FAILURE_BACKOFF_MS,
  MAX_JOB_POD_FAILURE_BACKOFF_MS,
} from "../../lib/workloads/job-backoff.js";

// The Job controller's pod failure back-off (pure arithmetic); the controller's use of it:
// job-controller.test.ts.

t.test("10 s doubling, capped at MaxJobPodFailureBackOff", async (t) => {
  t.equal(JOB_POD_FAILURE_BACKOFF_MS, 10_000);
  t.equal(MAX_JOB_POD_FAILURE_BACKOFF_MS, 600_000);
  t.same(
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 50].map(backoffPeriod),
    [0, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 600_000, 600_000, 600_000],
  );
});

t.test("the time left runs from the last failure's finish", async (t) => {
  const record = { failuresAfterLastSuccess: 2, lastFailureTime: 1_000_000 };
  t.equal(remainingBackoff(record, 1_000_000), 20_000);
  t.equal(remainingBackoff(record, 1_015_000), 5_000);
  t.equal(remainingBackoff(record, 1_020_000), 0);
  t.equal(remainingBackoff(record, 2_000_000), 0);
  t.equal(remainingBackoff({ failuresAfterLastSuccess: 0 }, 0), 0, "no failure, no wait");
});

t.test("the record: failures add up, a success resets them to the failures after it", async (t) => {
  const empty = { failuresAfterLastSuccess: 0 };
  t.equal(nextBackoffRecord(empty, [], []), empty, "nothing finished: unchanged");
  t.same(nextBackoffRecord(empty, [], [30, 10]), { failuresAfterLastSuccess: 2, lastFailureTime: 30 });
  t.same(nextBackoffRecord({ failuresAfterLastSuccess: 2, lastFailureTime: 30 }, [], [40]), {
    failuresAfterLastSuccess: 3,
    lastFailureTime: 40,
  });
  t.same(nextBackoffRecord({ failuresAfterLastSuccess: 3, lastFailureTime: 40 }, [50], []), {
    failuresAfterLastSuccess: 0,
  });
  t.same(nextBackoffRecord({ failuresAfterLastSuccess: 3, lastFailureTime: 40 }, [50], [45, 60, 70]), {
    failuresAfterLastSuccess: 2,
    lastFailureTime: 70,
  });
  t.same(
    nextBackoffRecord({ failuresAfterLastSuccess: 1, lastFailureTime: 5 }, [50], [45, 50]),
    { failuresAfterLastSuccess: 0 },
    "a failure at the same time as the success is before it",
  );
});
