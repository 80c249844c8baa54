import t from "tap";
import { FieldPath } from "../../lib/manifest/field-path.js";

t.test("paths print as kubectl prints them", async (t) => {
  t.equal(FieldPath.root().child("spec").child("containers").index(1).child("name").display, "spec.containers[1].name");
  t.equal(FieldPath.root().child("metadata").child("labels").key("app").display, "metadata.labels[app]");
});

t.test("a line break in a map key is escaped: one line per error (found by the fuzzing test)", async (t) => {
  const path = FieldPath.root().child("data").key("a\nb\r\u2028c");
  t.equal(path.display, "data[a\\nb\\r\\u2028c]");
  t.same(path.segments, ["data", "a\nb\r\u2028c"], "the raw key still locates the field");
});
