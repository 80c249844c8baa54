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

t.test("a path read under another: a pod template's fields under spec.template", async (t) => {
  const template = FieldPath.root().child("spec").child("template");
  const label = FieldPath.root().child("metadata").child("labels").key("app").under(template);
  t.equal(label.display, "spec.template.metadata.labels[app]");
  t.same(label.segments, ["spec", "template", "metadata", "labels", "app"]);
  t.equal(FieldPath.root().under(template).display, "spec.template");
  t.equal(FieldPath.root().child("x").under(FieldPath.root()).display, "x");
});
