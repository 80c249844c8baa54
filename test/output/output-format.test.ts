import t from "tap";
import { UsageError } from "../../lib/errors.js";
import { parseOutputFormat } from "../../lib/output/output-format.js";

// `-o` as kubectl's get reads it: each format, and kubectl's errors (exit 2 here).

t.test("the formats", async (t) => {
  const cases: [string | undefined, unknown][] = [
    [undefined, { kind: "table", wide: false }],
    ["wide", { kind: "table", wide: true }],
    ["json", { kind: "json" }],
    ["yaml", { kind: "yaml" }],
    ["name", { kind: "name" }],
    ["jsonpath={.items[*].metadata.name}", { kind: "jsonpath", template: "{.items[*].metadata.name}", asJson: false }],
    ["jsonpath-as-json={.a}", { kind: "jsonpath", template: "{.a}", asJson: true }],
    ["jsonpath={.a=b}", { kind: "jsonpath", template: "{.a=b}", asJson: false }],
    ["jsonpath-file=t.txt", { kind: "jsonpath-file", file: "t.txt" }],
    ["custom-columns=NAME:.metadata.name", { kind: "custom-columns", spec: "NAME:.metadata.name" }],
    ["custom-columns-file=c.txt", { kind: "custom-columns-file", file: "c.txt" }],
    ["JSON", { kind: "json" }],
  ];
  for (const [text, want] of cases) t.same(parseOutputFormat(text), want, String(text));
});

t.test("kubectl's errors", async (t) => {
  const cases: [string, RegExp][] = [
    ["xml", /^unable to match a printer suitable for the output format "xml", allowed formats are: custom-columns, /],
    ["json=x", /unable to match a printer suitable for the output format "json=x"/],
    ["jsonpath=", /^template format specified but no template given$/],
    ["jsonpath", /^template format specified but no template given$/],
    ["custom-columns=", /^custom-columns format specified but no custom-columns given$/],
    ["go-template={{.metadata.name}}", /podrun does not run Go templates; -o jsonpath takes the same queries/],
  ];
  for (const [text, message] of cases)
    t.throws(() => parseOutputFormat(text), { constructor: UsageError, message }, text);
});
