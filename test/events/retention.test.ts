import t from "tap";
import { UsageError } from "../../lib/errors.js";
import { DEFAULT_RETENTION_MS, parseRetention, resolveRetention } from "../../lib/events/retention.js";

const HOUR = 3_600_000;

t.test("a retention is a duration; 0 and none keep events until the size limits drop them", async (t) => {
  t.equal(parseRetention("72h", "--retention"), 72 * HOUR);
  t.equal(parseRetention("7d", "--retention"), 7 * 24 * HOUR);
  t.equal(parseRetention("1h30m", "--retention"), 1.5 * HOUR);
  t.equal(parseRetention("0", "--retention"), Number.POSITIVE_INFINITY);
  t.equal(parseRetention("0s", "--retention"), Number.POSITIVE_INFINITY);
  t.equal(parseRetention("none", "--retention"), Number.POSITIVE_INFINITY);
  for (const bad of ["", "3", "-1h", "forever", "1 week"]) {
    t.throws(
      () => parseRetention(bad, "$PODRUN_EVENTS_RETENTION"),
      {
        name: "UsageError",
        message: `invalid value ${JSON.stringify(bad)} for $PODRUN_EVENTS_RETENTION: expected a duration such as 72h or 7d, or 0 or none to keep events until the size limits drop them`,
      },
      bad,
    );
  }
  t.throws(() => parseRetention("x", "--retention"), UsageError);
});

t.test("--retention, else $PODRUN_EVENTS_RETENTION, else 72h", async (t) => {
  t.equal(DEFAULT_RETENTION_MS, 72 * HOUR);
  t.equal(resolveRetention(undefined, {}), DEFAULT_RETENTION_MS);
  t.equal(resolveRetention(undefined, { PODRUN_EVENTS_RETENTION: "" }), DEFAULT_RETENTION_MS, "empty is unset");
  t.equal(resolveRetention(undefined, { PODRUN_EVENTS_RETENTION: "24h" }), 24 * HOUR);
  t.equal(resolveRetention("2h", { PODRUN_EVENTS_RETENTION: "24h" }), 2 * HOUR, "the option wins");
  t.throws(() => resolveRetention("2", {}), { message: /for --retention:/ });
  t.throws(() => resolveRetention(undefined, { PODRUN_EVENTS_RETENTION: "2" }), {
    message: /for \$PODRUN_EVENTS_RETENTION:/,
  });
});
