import t from "tap";
import { up } from "../../lib/commands/up.js";
import { validate } from "../../lib/commands/validate.js";
import { ExitCode } from "../../lib/errors.js";
import { parseYamlDocuments } from "../../lib/manifest/parse-yaml.js";
import { captureStream, createCommandWorld } from "../harness/command-io.js";
import { outcomeOf } from "../harness/manifest-outcome.js";
import { manifestErrorLines } from "../harness/manifest-errors.js";

// kubectl (go-yaml v2) lets a quoted scalar or a flow collection continue on a line indented less
// than YAML allows; podrun refuses such a file with one line naming the construct, the line to
// indent and the column YAML wants. Each form, at column 0 and at a smaller indent, with the
// same text indented to that column, which reads as kubectl reads the original.

const parse = (text: string) => parseYamlDocuments({ name: "pod.yaml", text });
const errorLines = (text: string) => manifestErrorLines(() => parse(text));

const refusal = (at: string, construct: string, line: number, column: number, wanted: number) =>
  `pod.yaml:${at}: YAML syntax error: a ${construct} continues on line ${line} at column ${column}, where YAML wants ` +
  `column ${wanted} or more: kubectl reads this, podrun does not; indent its continuation lines`;

const FORMS: { name: string; text: string; error: string; indented: string; value: unknown }[] = [
  {
    name: "double-quoted, a smaller indent",
    text: 'spec:\n  command: "echo one &&\n  echo two"\n  next: 1\n',
    error: refusal("2:12", "double-quoted scalar", 3, 3, 4),
    indented: 'spec:\n  command: "echo one &&\n   echo two"\n  next: 1\n',
    value: { spec: { command: "echo one && echo two", next: 1 } },
  },
  {
    name: "double-quoted, column 0",
    text: 'spec:\n  command: "echo one &&\n\necho \\"two\\""\n',
    error: refusal("2:12", "double-quoted scalar", 4, 1, 4),
    indented: 'spec:\n  command: "echo one &&\n\n   echo \\"two\\""\n',
    value: { spec: { command: 'echo one &&\necho "two"' } },
  },
  {
    name: "single-quoted, a smaller indent",
    text: "spec:\n  containers:\n    - args: 'it''s\n  here'\n      name: a\n",
    error: refusal("3:13", "single-quoted scalar", 4, 3, 8),
    indented: "spec:\n  containers:\n    - args: 'it''s\n       here'\n      name: a\n",
    value: { spec: { containers: [{ args: "it's here", name: "a" }] } },
  },
  {
    name: "single-quoted, column 0",
    text: "spec:\n  single: 'one\ntwo'\n",
    error: refusal("2:11", "single-quoted scalar", 3, 1, 4),
    indented: "spec:\n  single: 'one\n   two'\n",
    value: { spec: { single: "one two" } },
  },
  {
    name: "flow sequence, a smaller indent",
    text: 'spec:\n  - args: ["--one",\n    "--two"]\n    next: 1\n',
    error: refusal("2:11", "flow sequence", 3, 5, 6),
    indented: 'spec:\n  - args: ["--one",\n     "--two"]\n    next: 1\n',
    value: { spec: [{ args: ["--one", "--two"], next: 1 }] },
  },
  {
    name: "flow sequence, column 0",
    text: "spec:\n  args: [a,\nb]\n",
    error: refusal("2:9", "flow sequence", 3, 1, 4),
    indented: "spec:\n  args: [a,\n   b]\n",
    value: { spec: { args: ["a", "b"] } },
  },
  {
    name: "flow mapping, a smaller indent",
    text: "spec:\n  - env: {a: 1,\n  b: 2}\n    next: 1\n",
    error: refusal("2:10", "flow mapping", 3, 3, 6),
    indented: "spec:\n  - env: {a: 1,\n     b: 2}\n    next: 1\n",
    value: { spec: [{ env: { a: 1, b: 2 }, next: 1 }] },
  },
  {
    name: "flow mapping, column 0",
    text: "metadata:\n  labels: {app: web,\ntier: db}\n",
    error: refusal("2:11", "flow mapping", 3, 1, 4),
    indented: "metadata:\n  labels: {app: web,\n   tier: db}\n",
    value: { metadata: { labels: { app: "web", tier: "db" } } },
  },
];

t.test(
  "a quoted scalar or flow collection continued on a less indented line: one line, the fix it names reads",
  async (t) => {
    for (const form of FORMS) {
      t.same(errorLines(form.text), [form.error], `${form.name}: refused in one line`);
      t.strictSame(
        parse(form.indented).map((doc) => doc.value),
        [form.value],
        `${form.name}: indented, it reads`,
      );
    }
  },
);

t.test("inside a flow collection, and after an error of its own", async (t) => {
  t.same(
    errorLines('spec:\n  args: [x, "a\nb"]\n'),
    [refusal("2:9", "flow sequence", 3, 1, 4)],
    "a quoted scalar in a flow sequence: the sequence is named",
  );
  t.same(
    errorLines("spec:\n  args: [x,\n]\n"),
    [refusal("2:9", "flow sequence", 3, 1, 4)],
    "a closing bracket alone at column 0",
  );
  t.same(
    errorLines('x: 1\nx: 2\nspec:\n  a: "b\n c"\n  d: 1\n'),
    [
      "pod.yaml:2:1: YAML syntax error: duplicate key: a field may appear only once in a mapping",
      refusal("4:6", "double-quoted scalar", 5, 2, 4),
    ],
    "an error before the construct is kept, those after it go",
  );
});

t.test("what YAML 1.2 and kubectl both read or both refuse is not this construct", async (t) => {
  const cases: { name: string; text: string; lines: string[] }[] = [
    {
      name: "a --- cuts the document before the closing quote",
      text: 'a: "one\n---\ntwo"\n',
      lines: ['pod.yaml:2:1: YAML syntax error: Missing closing "quote'],
    },
    {
      name: "a ... ends the document before the closing quote",
      text: 'a:\n  b: "one\n...\n  two"\n',
      lines: ['pod.yaml:2:10: YAML syntax error: Missing closing "quote'],
    },
    {
      name: "no closing quote at all",
      text: 'spec:\n  a: "x\n  y\n',
      lines: ['pod.yaml:4:1: YAML syntax error: Missing closing "quote'],
    },
    {
      name: "no closing bracket at all",
      text: "spec:\n  a: [x,\n  y\n",
      lines: [
        "pod.yaml:3:3: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]",
        "pod.yaml:3:3: YAML syntax error: Implicit map keys need to be followed by map values",
      ],
    },
    {
      name: "an escape go-yaml refuses in the continued scalar",
      text: 'spec:\n  a: "x\n\\q"\n',
      lines: [
        'pod.yaml:2:8: YAML syntax error: Missing closing "quote',
        "pod.yaml:3:1: YAML syntax error: Implicit map keys need to be followed by map values",
      ],
    },
    {
      name: "a key over two lines",
      text: '"a\nb": 1\n',
      lines: ["pod.yaml:1:1: YAML syntax error: Implicit keys need to be on a single line"],
    },
  ];
  for (const { name, text, lines } of cases) t.same(errorLines(text), lines, name);
  t.strictSame(
    parse('spec:\n  a: "x\n   y"\n').map((doc) => doc.value),
    [{ spec: { a: "x y" } }],
    "indented past its key, a continuation line reads",
  );
  t.strictSame(
    parse("- [a,\n b]\n- 'c\n d'\n").map((doc) => doc.value),
    [[["a", "b"], "c d"]],
    "in a top-level sequence, one space is enough",
  );
});

t.test("validate and up refuse such a file with exit 2, and up asks the engine nothing", async (t) => {
  const world = await createCommandWorld(t);
  const path = await world.manifest(
    "pod.yaml",
    'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n    - name: app\n      image: busybox:1.36\n      command: ["sh", "-c",\n    "sleep 3600"]\n',
  );
  const line = `${path}:9:16: YAML syntax error: a flow sequence continues on line 10 at column 5, where YAML wants column 8 or more: kubectl reads this, podrun does not; indent its continuation lines`;
  const checked = await outcomeOf((stderr) =>
    validate({ files: [path], json: false, stdout: captureStream(), stderr }),
  );
  t.same(checked, { code: ExitCode.Usage, stderr: [line] }, "validate");
  world.nextCommand();
  const started = await outcomeOf((stderr) =>
    up({
      files: [path],
      publishAll: false,
      parallelPulls: 1,
      keepOnFailure: false,
      dryRun: false,
      json: false,
      ...world.io,
      stderr,
    }),
  );
  t.same(started, { code: ExitCode.Usage, stderr: [line] }, "up");
  t.same(world.runtime.calls, [], "no engine call");
});
