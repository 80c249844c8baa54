import t from "tap";
import { hashName } from "../../lib/events/line-scan.js";
import { NAMES_KEPT, NameCounts } from "../../lib/events/name-counts.js";

t.test("raise: what a name had counted before, the highest count kept", async (t) => {
  const names = new NameCounts();
  t.equal(names.raise(hashName("web.1"), 2), 0, "a new name");
  t.equal(names.raise(hashName("web.1"), 1), 2, "a lower count changes nothing");
  t.equal(names.raise(hashName("web.1"), 5), 2);
  t.equal(names.raise(hashName("web.1"), 5), 5);
  t.equal(names.raise(hashName("web.2"), 1), 0, "another name");
  t.equal(names.size, 2);
});

t.test("a ring: past NAMES_KEPT names the oldest is forgotten, the rest kept", async (t) => {
  const names = new NameCounts();
  for (let i = 0; i < NAMES_KEPT; i++) names.raise(hashName(`web.${i}`), i + 1);
  t.equal(names.size, NAMES_KEPT);
  names.raise(hashName("web.new"), 1);
  t.equal(names.size, NAMES_KEPT, "never more");
  t.equal(names.raise(hashName("web.0"), 1), 0, "the oldest is forgotten");
  for (let i = 2; i < NAMES_KEPT; i++) t.equal(names.raise(hashName(`web.${i}`), 1), i + 1, `web.${i} kept`);
});
