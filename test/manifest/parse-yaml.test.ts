import t from "tap";
import { MAX_ALIAS_COUNT, parseYamlDocuments } from "../../lib/manifest/parse-yaml.js";
import { manifestErrorLines } from "../harness/manifest-errors.js";

const parse = (text: string) => parseYamlDocuments({ name: "pod.yaml", text });
const errorLines = (text: string) => manifestErrorLines(() => parse(text));

t.test("values are read as go-yaml v2 (YAML 1.1) reads them, like kubectl", async (t) => {
  const [doc] = parse("mode: 0644\nhex: 0x1F\nflag: yes\noff: off\nday: 2024-01-02\ntime: 1:20\nquoted: '0644'\nfloat: 1.5\n");
  t.same(doc!.value, { mode: 420, hex: 31, flag: true, false: false, day: "2024-01-02", time: "1:20", quoted: "0644", float: 1.5 });
});

t.test("several documents, empty ones kept as null", async (t) => {
  const docs = parse("a: 1\n---\n---\n# only a comment\n---\nb: 2\n");
  t.same(docs.map((d) => d.value), [{ a: 1 }, null, null, { b: 2 }]);
  t.equal(docs[3]!.line, 6);
});

t.test("merge keys and anchors work as in go-yaml", async (t) => {
  const [doc] = parse("base: &b {image: x, name: a}\nc:\n  <<: *b\n  name: c\n");
  t.same((doc!.value as Record<string, unknown>).c, { image: "x", name: "c" });
});

t.test("source positions of values and keys", async (t) => {
  const [doc] = parse("spec:\n  containers:\n    - name: a\n      image: x\n    - name: b\n      ports:\n        - containerPort: 70000\n");
  const map = doc!.sourceMap;
  t.same(map.locate(["spec", "containers", 1, "ports", 0, "containerPort"]), { line: 7, col: 26 });
  t.same(map.locate(["spec", "containers", 1, "ports", 0, "containerPort"], true), { line: 7, col: 11 });
  t.same(map.locate(["spec", "containers", 0, "name"]), { line: 3, col: 13 }, "value of a key in a sequence item");
  t.same(map.locate(["spec", "containers", 1]), { line: 5, col: 7 }, "a list item points at its first key");
  t.same(map.locate(["spec", "containers", 0, "missing"]), { line: 3, col: 7 }, "a missing field points at its object");
  t.same(map.subtree(["spec", "containers", 1]).locate(["name"]), { line: 5, col: 13 });
});

const cases: { name: string; text: string; lines: string[] }[] = [
  { name: "duplicate key", text: "a: 1\nb: 2\na: 3\n", lines: ["pod.yaml:3:1: YAML syntax error: duplicate key: a field may appear only once in a mapping"] },
  { name: "unclosed flow sequence", text: "a: [1, 2\n", lines: ["pod.yaml:2:1: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]"] },
  { name: "bad indentation", text: "a:\n  b: 1\n c: 2\n", lines: ["pod.yaml:3:1: YAML syntax error: All mapping items must start at the same column"] },
  { name: "tab indentation", text: "a:\n\tb: 1\n", lines: ["pod.yaml:2:1: YAML syntax error: Tabs are not allowed as indentation"] },
  { name: "unknown alias", text: "a: *nope\n", lines: ["pod.yaml:1:1: YAML error: Unresolved alias (the anchor must be set before the alias): nope"] },
];
for (const c of cases) {
  t.test(`syntax error: ${c.name} names file, line and column`, async (t) => {
    const lines = errorLines(c.text);
    t.equal(lines.length, c.lines.length, lines.join("\n"));
    t.same(lines, c.lines);
  });
}

t.test("an alias bomb is refused without expanding it", async (t) => {
  const rows = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < 9; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    rows.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(", ")}]`);
  }
  const started = process.hrtime.bigint();
  const lines = errorLines(rows.join("\n") + "\n");
  t.same(lines, [`pod.yaml:1:1: YAML aliases expand too much (over ${MAX_ALIAS_COUNT} nodes per alias): refusing a possible resource exhaustion attack`]);
  t.ok(process.hrtime.bigint() - started < 5_000_000_000n, "refused quickly");
});

t.test("a few ordinary aliases are fine", async (t) => {
  const [doc] = parse("env: &env [{name: A, value: '1'}]\nfirst: *env\nsecond: *env\n");
  t.same((doc!.value as Record<string, unknown>).second, [{ name: "A", value: "1" }]);
});
