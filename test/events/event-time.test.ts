import t from "tap";
import { timeOf } from "../../lib/events/event-time.js";

t.test("recorder timestamps are read as Date.parse reads them; a missing one is -Infinity", async (t) => {
  for (const text of [
    "2025-03-01T12:00:00Z",
    "1999-12-31T23:59:59Z",
    "2024-02-29T00:00:01Z",
    "1970-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
  ]) {
    t.equal(timeOf(text), Date.parse(text), text);
  }
  t.equal(timeOf(undefined), Number.NEGATIVE_INFINITY);
});

t.test("other RFC 3339 forms go through Date.parse; unreadable times are -Infinity", async (t) => {
  t.equal(timeOf("2025-03-01T12:00:00.250Z"), Date.parse("2025-03-01T12:00:00.250Z"));
  t.equal(timeOf("2025-03-01T14:00:00+02:00"), Date.parse("2025-03-01T12:00:00Z"));
  t.equal(timeOf("0001-01-01T00:00:00Z"), Date.parse("0001-01-01T00:00:00Z"), "Go's zero time, not 1901");
  for (const bad of ["", "yesterday", "2025-03-01T12:0x:00Z", "2025-13-45T99:99:99Z"])
    t.equal(timeOf(bad), Number.NEGATIVE_INFINITY, JSON.stringify(bad));
});
