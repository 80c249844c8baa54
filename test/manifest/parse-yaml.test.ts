import t from "tap";
import { formatGoFloat32 } from "../../lib/manifest/go-yaml-scalars.js";
import { MAX_ALIAS_COUNT, parseYamlDocuments } from "../../lib/manifest/parse-yaml.js";
import { manifestErrorLines } from "../harness/manifest-errors.js";

const parse = (text: string) => parseYamlDocuments({ name: "pod.yaml", text });
const errorLines = (text: string) => manifestErrorLines(() => parse(text));

t.test("values are read as go-yaml v2 (YAML 1.1) reads them, like kubectl", async (t) => {
  const [doc] = parse(
    "mode: 0644\nhex: 0x1F\nflag: yes\noff: off\nday: 2024-01-02\ntime: 1:20\nquoted: '0644'\nfloat: 1.5\n",
  );
  t.same(doc!.value, {
    mode: 420,
    hex: 31,
    flag: true,
    false: false,
    day: "2024-01-02",
    time: "1:20",
    quoted: "0644",
    float: 1.5,
  });
});

t.test("several documents, cut where kubectl cuts them, empty ones kept as null", async (t) => {
  // A `---` right after a separator starts the next piece: kubectl reads "---\n# only a comment\n" as one.
  const docs = parse("a: 1\n---\n---\n# only a comment\n---\nb: 2\n");
  t.same(
    docs.map((d) => d.value),
    [{ a: 1 }, null, { b: 2 }],
  );
  t.equal(docs[2]!.line, 6);
});

t.test("merge keys and anchors work as in go-yaml", async (t) => {
  const [doc] = parse("base: &b {image: x, name: a}\nc:\n  <<: *b\n  name: c\n");
  t.same((doc!.value as Record<string, unknown>).c, { image: "x", name: "c" });
});

t.test("source positions of values and keys", async (t) => {
  const [doc] = parse(
    "spec:\n  containers:\n    - name: a\n      image: x\n    - name: b\n      ports:\n        - containerPort: 70000\n",
  );
  const map = doc!.sourceMap;
  t.same(map.locate(["spec", "containers", 1, "ports", 0, "containerPort"]), { line: 7, col: 26 });
  t.same(map.locate(["spec", "containers", 1, "ports", 0, "containerPort"], true), { line: 7, col: 11 });
  t.same(map.locate(["spec", "containers", 0, "name"]), { line: 3, col: 13 }, "value of a key in a sequence item");
  t.same(map.locate(["spec", "containers", 1]), { line: 5, col: 7 }, "a list item points at its first key");
  t.same(map.locate(["spec", "containers", 0, "missing"]), { line: 3, col: 7 }, "a missing field points at its object");
  t.same(map.subtree(["spec", "containers", 1]).locate(["name"]), { line: 5, col: 13 });
});

const cases: { name: string; text: string; lines: string[] }[] = [
  {
    name: "duplicate key",
    text: "a: 1\nb: 2\na: 3\n",
    lines: ["pod.yaml:3:1: YAML syntax error: duplicate key: a field may appear only once in a mapping"],
  },
  {
    name: "unclosed flow sequence",
    text: "a: [1, 2\n",
    lines: [
      "pod.yaml:2:1: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]",
    ],
  },
  {
    name: "bad indentation",
    text: "a:\n  b: 1\n c: 2\n",
    lines: ["pod.yaml:3:1: YAML syntax error: All mapping items must start at the same column"],
  },
  {
    name: "tab indentation",
    text: "a:\n\tb: 1\n",
    lines: ["pod.yaml:2:1: YAML syntax error: Tabs are not allowed as indentation"],
  },
  {
    name: "unknown alias",
    text: "a: *nope\n",
    lines: ["pod.yaml:1:1: YAML error: Unresolved alias (the anchor must be set before the alias): nope"],
  },
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
  t.same(lines, [
    `pod.yaml:1:1: YAML aliases expand too much (over ${MAX_ALIAS_COUNT} nodes per alias): refusing a possible resource exhaustion attack`,
  ]);
  t.ok(process.hrtime.bigint() - started < 5_000_000_000n, "refused quickly");
});

t.test("a few ordinary aliases are fine", async (t) => {
  const [doc] = parse("env: &env [{name: A, value: '1'}]\nfirst: *env\nsecond: *env\n");
  t.same((doc!.value as Record<string, unknown>).second, [{ name: "A", value: "1" }]);
});

t.test("double-quoted escapes as go-yaml v2 reads them", async (t) => {
  const [doc] = parse(`a: "it\\'s"\nb: "a\\\\'b"\nc: "\\x41\\u00e9\\U0001F600"\nd: "\\N\\_\\L\\P"\ne: "x\\ty\\	z"\n`);
  t.strictSame(doc!.value, { a: "it's", b: "a\\'b", c: "Aé😀", d: "\u0085\u00a0\u2028\u2029", e: "x\ty\tz" });
  const [name] = parse(`spec:\n  name: "it\\'s"\n  image: x\n`);
  t.same(name!.sourceMap.locate(["spec", "image"]), { line: 3, col: 10 }, "positions after a \\' stay right");
});

const escapeErrors: { name: string; text: string; lines: string[] }[] = [
  {
    name: "\\/ (YAML 1.2 only)",
    text: 'a: 1\n---\nb: "x\\/y"\n',
    lines: ["pod.yaml:3:6: YAML syntax error: Invalid escape sequence \\/"],
  },
  {
    name: "a UTF-16 surrogate",
    text: 'a: 1\nb: "\\uD83D"\n',
    lines: ["pod.yaml:2:5: YAML syntax error: Invalid escape sequence \\uD83D: a UTF-16 surrogate is not a character"],
  },
  {
    name: "an unknown escape",
    text: 'a: "\\q"\n',
    lines: ["pod.yaml:1:5: YAML syntax error: Invalid escape sequence \\q"],
  },
];
for (const c of escapeErrors) {
  t.test(`escape refused as kubectl refuses it: ${c.name}`, async (t) => {
    t.same(errorLines(c.text), c.lines);
  });
}

t.test("numbers as go-yaml v2 resolves them", async (t) => {
  const [doc] = parse(
    "a: 0o644\nb: 0X1F\nc: !!float 1\nd: 1e3\ne: 1_000\nf: 08\ng: 0o8\nh: 1e400\ni: 0xFFFFFFFFFFFFFFFFFF\nj: -012\nk: .5\nl: 1:30\n",
  );
  t.strictSame(doc!.value, {
    a: 420,
    b: 31,
    c: 1,
    d: 1000,
    e: 1000,
    f: 8,
    g: "0o8",
    h: "1e400",
    i: "0xFFFFFFFFFFFFFFFFFF",
    j: -10,
    k: 0.5,
    l: "1:30",
  });
});

t.test("documents are cut where kubectl cuts them", async (t) => {
  t.same(
    parse("a: 1\n...\nb: 2\n").map((d) => d.value),
    [{ a: 1 }],
    "go-yaml reads one document per piece: after ... nothing counts",
  );
  t.same(
    parse("a: 1\n...\nb: [\n").map((d) => d.value),
    [{ a: 1 }],
    "nor do its errors",
  );
  const docs = parse("a: 1\n--- # next\n\nb: 2\n");
  t.same(
    docs.map((d) => [d.value, d.line]),
    [
      [{ a: 1 }, 1],
      [{ b: 2 }, 4],
    ],
    "lines count in the whole file",
  );
});

const kubectlRefuses: { name: string; text: string; lines: string[] }[] = [
  {
    name: "content after ---",
    text: "a: 1\n--- !!map\nb: 2\n",
    lines: [
      'pod.yaml:2:1: YAML syntax error: invalid document separator "--- !!map": kubectl allows only a comment after ---',
    ],
  },
  {
    name: "... with no document",
    text: "# c\n...\na: 1\n",
    lines: ["pod.yaml:2:1: YAML syntax error: a document end marker (...) with no document before it"],
  },
  {
    name: "a directive",
    text: "%YAML 1.1\n---\na: 1\n",
    lines: [
      "pod.yaml:1:1: YAML syntax error: a %YAML or %TAG directive: kubectl cuts it off from the document after its ---",
    ],
  },
  {
    name: ".inf",
    text: "x: 1\n---\nlimit: -.inf\n",
    lines: ["pod.yaml:3:8: YAML error: -.inf is not a JSON number (kubectl refuses .inf and .nan)"],
  },
  {
    name: ".nan",
    text: "ratio: .NaN\n",
    lines: ["pod.yaml:1:8: YAML error: .NaN is not a JSON number (kubectl refuses .inf and .nan)"],
  },
  {
    name: "a null key",
    text: "a:\n  ~: 1\n",
    lines: ["pod.yaml:2:3: YAML error: a mapping key is null (~, null or empty): JSON keys are strings"],
  },
  {
    name: "a list as key",
    text: "? [a, b]\n: 1\n",
    lines: ["pod.yaml:1:3: YAML error: a mapping key is a list or mapping: JSON keys are strings"],
  },
];
for (const c of kubectlRefuses) {
  t.test(`refused as kubectl refuses it: ${c.name}`, async (t) => {
    t.same(errorLines(c.text), c.lines);
  });
}

t.test("input starting with { is read as JSON, as kubectl does", async (t) => {
  t.same(
    parse('{"a": "x\\/y", "n": 1e3}\n').map((d) => d.value),
    [{ a: "x/y", n: 1000 }],
    "\\/ is a JSON escape",
  );
  t.same(
    errorLines("{a: 1}\n"),
    ["pod.yaml:1:2: JSON syntax error: Expected property name or '}'"],
    "flow YAML is not JSON",
  );
  t.same(errorLines('{"a": 1, "a": 2}\n'), [
    "pod.yaml:1:10: JSON syntax error: duplicate key: a field may appear only once in a mapping",
  ]);
  const [doc] = parse('{\n  "spec": {\n    "image": "x"\n  }\n}\n');
  t.same(doc!.sourceMap.locate(["spec", "image"]), { line: 3, col: 14 });
  t.same(
    parse('\ufeff{"a": 1}\n').map((d) => d.value),
    [{ a: 1 }],
    "kubectl drops a byte-order mark first",
  );
  t.same(errorLines("\ufeff{a: 1}\n"), ["pod.yaml:1:3: JSON syntax error: Expected property name or '}'"]);
});

t.test("a JSON stream is read value after value, as kubectl's json.Decoder does", async (t) => {
  const docs = parse('{"kind": "ConfigMap"}\n\n{"kind": "Pod",\n "spec": {"x": "}{"}}{"kind": "Secret"}\n');
  t.same(
    docs.map((d) => [d.value, d.line]),
    [
      [{ kind: "ConfigMap" }, 1],
      [{ kind: "Pod", spec: { x: "}{" } }, 3],
      [{ kind: "Secret" }, 4],
    ],
  );
  t.same(docs[1]!.sourceMap.locate(["spec", "x"]), { line: 4, col: 16 });
  t.same(errorLines('{"a": 1}\n{"b": 2,}\n'), [
    "pod.yaml:2:9: JSON syntax error: Expected double-quoted property name",
  ]);
  t.same(errorLines('{"a": 1}\nb: 2\n'), [
    "pod.yaml:2:1: JSON syntax error: Unexpected token 'b', \"b:\" is not valid JSON",
  ]);
  t.same(errorLines('{"a": 1e400}\n'), ["pod.yaml:1:1: JSON error: a number is out of the range of a 64-bit float"]);
});

t.test("explicit tags must fit what go-yaml reads, and !!binary is decoded", async (t) => {
  const [doc] = parse(
    'a: !!int "0x10"\nb: !!float 12\nc: !!bool "off"\nd: !!null ~\ne: !!str 1e3\nf: !!binary |\n  aGVsbG8g\n  d29ybGQ=\n',
  );
  t.strictSame(doc!.value, { a: 16, b: 12, c: false, d: null, e: "1e3", f: "hello world" });
  t.same(errorLines("a: 1\nb: !!int 1.5\n"), ["pod.yaml:2:4: YAML syntax error: cannot decode `1.5` as a !!int"]);
  t.same(errorLines("a: !!bool 1\n"), ["pod.yaml:1:4: YAML syntax error: cannot decode `1` as a !!bool"]);
  t.same(errorLines("a: !!binary aGVsbG8\n"), [
    "pod.yaml:1:4: YAML syntax error: !!binary value contains invalid base64 data",
  ]);
});

t.test("number keys become the strings sigs.k8s.io/yaml makes of them", async (t) => {
  const [doc] = parse("1: a\n0x10: b\n1.5: c\n3.14159265358979: d\n1e6: e\n.inf: f\n");
  t.strictSame(Object.keys(doc!.value as object).sort(), ["1", "1.5", "16", "3.1415927", ".inf", "1e+06"].sort());
});

t.test("Go's FormatFloat(x, 'g', -1, 32)", async (t) => {
  const cases: [number, string][] = [
    [1.5, "1.5"],
    [3.14159265358979, "3.1415927"],
    [1e6, "1e+06"],
    [123456, "123456"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [-2.5e-7, "-2.5e-07"],
    [100.25, "100.25"],
    [0.1, "0.1"],
    [1e21, "1e+21"],
    [0, "0"],
    [16777217, "1.6777216e+07"],
    [5e-324, "0"],
    [Number.MAX_VALUE, ".inf"],
    [Infinity, ".inf"],
    [-Infinity, "-.inf"],
    [NaN, ".nan"],
  ];
  for (const [value, text] of cases) t.equal(formatGoFloat32(value), text, String(value));
});

// kubectl (libyaml) reads these; YAML 1.2 does not, and podrun says so in one line (each form:
// go-yaml-continuation.test.ts).
t.test("a quoted scalar continued on a less indented line is refused in one line", async (t) => {
  t.same(errorLines("spec:\n  command: \"echo one &&\n  echo two\"\n  single: 'a\nb'\n  next: 1\n"), [
    "pod.yaml:2:12: YAML syntax error: a double-quoted scalar continues on line 3 at column 3, where YAML wants column 4 or more: kubectl reads this, podrun does not; indent its continuation lines",
  ]);
  t.same(
    errorLines('a: "one\n---\ntwo"\n')[0],
    'pod.yaml:2:1: YAML syntax error: Missing closing "quote',
    "but not past a document marker",
  );
});

t.test("NEL breaks a line as in YAML 1.1", async (t) => {
  const [doc] = parse('a: "x\u0085 y"\nb: one\u0085  two\n');
  t.strictSame(doc!.value, { a: "x y", b: "one two" });
  t.same(
    errorLines('a: "x\u0085y"\n'),
    [
      "pod.yaml:1:4: YAML syntax error: a double-quoted scalar continues on line 1, after a NEL (U+0085) line break, at column 1, where YAML wants column 2 or more: kubectl reads this, podrun does not; indent its continuation lines",
    ],
    "so a quoted scalar continued at column 0 after it is refused, as after a line feed",
  );
});

t.test("a merge key applies where it stands, as go-yaml v2 applies it", async (t) => {
  const [doc] = parse(
    "base: &base {image: busybox, name: base, port: 1}\nother: &other {name: other}\nchild:\n  name: child\n  <<: *base\n  port: 2\ntwice:\n  <<: *base\n  <<: *other\n",
  );
  const value = doc!.value as Record<string, unknown>;
  t.strictSame(
    value.child,
    { image: "busybox", name: "base", port: 2 },
    "a key written before << is replaced, one after it stays",
  );
  t.strictSame(value.twice, { image: "busybox", name: "other", port: 1 }, "the later of two merge keys wins");
  t.same(
    errorLines("<<:\n  k:\n    <<: 5\n  <<: {k: 1}\n"),
    ["pod.yaml:1:1: YAML error: Merge sources must be maps or map aliases"],
    "a replaced value is still read",
  );
});

t.test("a flow collection continued on a less indented line is refused in one line", async (t) => {
  t.same(errorLines('spec:\n  - args: ["--one",\n    "--two"]\n    env: {a: 1,\n  b: 2}\n    next: 1\n'), [
    "pod.yaml:2:11: YAML syntax error: a flow sequence continues on line 3 at column 5, where YAML wants column 6 or more: kubectl reads this, podrun does not; indent its continuation lines",
  ]);
});

t.test("a JSON syntax error is one line, and the first one ends the reading (found by the fuzzing test)", async (t) => {
  const lines = errorLines('{"a": 1}\n{"b": x\n}\nc\nd\n');
  t.same(lines, ['pod.yaml:2:1: JSON syntax error: Unexpected token \'x\', "{"b": x\\n}" is not valid JSON']);
});
