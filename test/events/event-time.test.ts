import t from "tap";
import { timeOf } from "../../lib/events/event-time.js";

t.test("recorder timestamps are read as Date.parse reads them", async (t) => {
  for (const text of ["2025-03-01T12:00:00Z", "1999-12-31T23:59:59Z", "2024-02-29T00:00:01Z", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]) {
    t.equal(timeOf(text), Date.parse(text), text);
  }
});

t.test("other RFC 3339 forms go through Date.parse; unreadable times are -Infinity", async (t) => {
  t.equal(timeOf("2025-03-01T12:00:00.250Z"), Date.parse("2025-03-01T12:00:00.250Z"));
  t.equal(timeOf("2025-03-01T14:00:00+02:00"), Date.parse("2025-03-01T12:00:00Z"));
  t.equal(timeOf("0001-01-01T00:00:00Z"), Date.parse("0001-01-01T00:00:00Z"), "Go's zero time, not 1901");
  for (const bad of ["", "yesterday", "2025-03-01T12:0x:00Z", "2025-13-45T99:99:99Z"]) t.equal(timeOf(bad), Number.NEGATIVE_INFINITY, JSON.stringify(bad));
});

t.test("times in the hour of the one before are read from their minutes and seconds, the same way", async (t) => {
  // In log order: within an hour, across hours and days, then back; malformed times in a known hour.
  const times = ["2025-03-01T12:00:00Z", "2025-03-01T12:00:01Z", "2025-03-01T12:59:59Z", "2025-03-01T13:00:00Z", "2025-03-01T13:30:07Z", "2025-03-02T13:30:07Z", "2025-03-01T13:00:05Z", "2024-02-29T23:59:59Z"];
  for (const text of times) t.equal(timeOf(text), Date.parse(text), text);
  t.equal(timeOf("2025-03-01T13:00:00Z"), Date.parse("2025-03-01T13:00:00Z"));
  for (const bad of ["2025-03-01T13:60:00Z", "2025-03-01T13:00:60Z", "2025-03-01T13:0x:00Z", "2025-03-01T13:00:-1Z"]) {
    t.equal(timeOf(bad), Number.NEGATIVE_INFINITY, bad);
  }
  t.equal(timeOf("2025-03-01T13:00:00.250Z"), Date.parse("2025-03-01T13:00:00.250Z"), "another layout in the same hour");
  t.equal(timeOf("2025-03-01T13:59:59Z"), Date.parse("2025-03-01T13:59:59Z"), "the hour is still known after them");
});
