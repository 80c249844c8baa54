// podrun reads every YAML quirk in test/fixtures/yaml-quirks, the shipped examples and generated
// manifests as kubectl does: the same JSON values document by document, or both refuse the text.
// kubectl's side is scripts/k8s-yaml-reader, built by scripts/test-env.sh from Debian's
// sigs.k8s.io/yaml and go-yaml v2 sources.
import { accessSync, constants, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import t, { type Test } from "tap";
import { ManifestError } from "../../lib/errors.js";
import { parseYamlDocuments } from "../../lib/manifest/parse-yaml.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { missing, requireTestEnv } from "../harness/engine.js";

const QUIRKS = join(import.meta.dirname, "../fixtures/yaml-quirks");
const EXAMPLES = join(import.meta.dirname, "../../examples");

type Reading = { documents: unknown[] } | { error: string };

// Files where podrun knowingly reads differently from kubectl, and why.
const EXPECTED_DIVERGENCES: Record<string, { kubectl: "reads" | "refuses"; podrun: "reads" | "refuses"; why: string }> =
  {
    // kubectl keeps the last of two equal keys without a word (kubernetes/kubernetes#14791); the
    // YAML spec forbids them and go-yaml's strict mode refuses them. podrun refuses them: the
    // first value, silently dropped, is almost always a copy-and-paste mistake.
    "duplicate-keys.yaml": { kubectl: "reads", podrun: "refuses", why: "duplicate keys are refused on purpose" },
    "boolean-keys-colliding.yaml": {
      kubectl: "reads",
      podrun: "refuses",
      why: "keys that read the same are duplicates",
    },
    // libyaml breaks lines at LS and PS (U+2028, U+2029) and keeps the character in the value, so in
    // a block scalar the text after it is an unindented line. Following that would take a lexer of
    // our own for a character no manifest should hold; podrun reads it as text, as YAML 1.2 does.
    "unicode-line-break-in-block.yaml": { kubectl: "refuses", podrun: "reads", why: "LS and PS are text for podrun" },
  };

// A quoted scalar or a flow collection continued on a line indented less than YAML allows: go-yaml
// checks no indentation there and reads it; podrun refuses it in one line naming the construct
// (lib/manifest/go-yaml-continuation.ts). Every such fixture is listed here, and only those: a
// yaml release that reads one of them, or kubectl refusing one, fails the test.
const REFUSED_CONTINUATIONS = [
  "flow-continuation-mapping-column-0.yaml",
  "flow-continuation-mapping-less-indented.yaml",
  "flow-continuation-sequence-column-0.yaml",
  "flow-continuation-sequence-less-indented.yaml",
  "flow-continuation-unindented.yaml",
  "quoted-continuation-double-column-0.yaml",
  "quoted-continuation-double-less-indented.yaml",
  "quoted-continuation-nel.yaml",
  "quoted-continuation-single-column-0.yaml",
  "quoted-continuation-single-less-indented.yaml",
  "quoted-continuation-unindented.yaml",
];
const CONTINUATION_REFUSAL =
  /^quirk\.yaml:\d+:\d+: YAML syntax error: an? (double-quoted scalar|single-quoted scalar|flow sequence|flow mapping) continues on line \d+.* kubectl reads this, podrun does not; indent its continuation lines$/;

function readWithPodrun(text: string): Reading {
  try {
    const docs = parseYamlDocuments({ name: "quirk.yaml", text });
    // kubectl's StreamVisitor skips documents that decode to nothing or null.
    return { documents: docs.map((doc) => doc.value).filter((value) => value !== null) };
  } catch (error) {
    if (error instanceof ManifestError) return { error: error.lines.join("\n") };
    throw error;
  }
}

/** What kubectl reads from each text: one run of the reader for all of them. */
async function readWithKubectl(reader: string, texts: readonly string[]): Promise<Reading[]> {
  const result = await runCommand(reader, ["-batch"], { input: JSON.stringify(texts), reject: false });
  if (result.exitCode !== 0) throw new Error(`${reader} -batch failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Reading[];
}

/** The reader scripts/test-env.sh built, or undefined after ending the test (see `missing`). */
function requireYamlReader(t: Test): string | undefined {
  const env = requireTestEnv(t);
  if (!env) return undefined;
  if (!env.yamlReader) return missing(t, "yamlReader in env.json");
  try {
    accessSync(env.yamlReader, constants.X_OK);
  } catch {
    return missing(t, `kubectl's YAML reader at ${env.yamlReader}`);
  }
  return env.yamlReader;
}

t.test("podrun reads YAML quirks as kubectl does", async (t) => {
  const reader = requireYamlReader(t);
  if (!reader) return;

  const quirks = readdirSync(QUIRKS)
    .filter((name) => name.endsWith(".yaml"))
    .sort();
  t.ok(quirks.length >= 30, `${quirks.length} quirk files`);
  t.same(
    REFUSED_CONTINUATIONS.filter((name) => !quirks.includes(name)),
    [],
    "every refused continuation is a quirk file",
  );
  // The shipped examples too: real manifests, read the same way.
  const examples = readdirSync(EXAMPLES)
    .filter((name) => name.endsWith(".yaml"))
    .sort();
  const files = [...quirks.map((name) => join(QUIRKS, name)), ...examples.map((name) => join(EXAMPLES, name))];
  const texts = files.map((path) => readFileSync(path, "utf8"));
  const readings = await readWithKubectl(reader, texts);
  for (const [i, path] of files.entries()) {
    const file = basename(path);
    const kubectl = readings[i]!;
    const podrun = readWithPodrun(texts[i]!);
    const expected = EXPECTED_DIVERGENCES[file];
    const refusedContinuation = "error" in podrun && CONTINUATION_REFUSAL.test(podrun.error);
    t.equal(
      refusedContinuation,
      REFUSED_CONTINUATIONS.includes(file),
      `${file}: ${refusedContinuation ? "refused" : "not refused"} as a less indented continuation`,
      { podrun },
    );
    if (REFUSED_CONTINUATIONS.includes(file)) {
      t.notOk("error" in kubectl, `${file}: kubectl reads it`, { kubectl });
      continue;
    }
    if (expected) {
      t.equal("error" in kubectl ? "refuses" : "reads", expected.kubectl, `${file}: kubectl ${expected.kubectl} it`);
      t.equal(
        "error" in podrun ? "refuses" : "reads",
        expected.podrun,
        `${file}: podrun ${expected.podrun} it (${expected.why})`,
      );
      continue;
    }
    if ("error" in kubectl) {
      t.ok("error" in podrun, `${file}: both refuse it (kubectl: ${kubectl.error})`, { podrun });
    } else {
      t.strictSame(podrun, kubectl, `${file}: same values`);
    }
  }
});

// Manifests built at random from YAML 1.1 pieces (fixed seeds, so a failure reproduces): nesting,
// sequences, merges, anchors, block and quoted scalars across lines, comments, several documents.
const SCALARS = [
  "x",
  "'q'",
  '"d"',
  "1",
  "0644",
  "0o17",
  "yes",
  "n",
  "~",
  "",
  "[a, b, ]",
  "{k: v}",
  "|\n  block\n",
  ">-\n  fold\n  ed\n",
  "a b",
  "-1.5",
  '"multi\nline"',
  "'it''s'",
  "&a v",
  "*a",
  "!!str 5",
  "!!float 3",
  "x # c",
  '"a\\tb"',
  "2001-01-01",
  "1:2",
  ".5",
  "0x1F",
  "null",
  "1e3",
  '"\\x41"',
  "{<<: {m: 1}, m: 2}",
  "[a,\nb]",
  "{k: [1,\n2]}",
  "'x\n\ny'",
  "a:b",
  "x #y",
  "--",
];
const KEYS = ["a", "b", "'k'", '"k2"', "1", "yes", "on", "<<", "1.5"];

// JSON with sorted keys: Go's maps come out sorted, podrun's objects in written order.
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)))
      : item,
  );

function generate(seed: number, count: number): string[] {
  let state = seed;
  const pick = <T>(list: readonly T[]): T => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return list[state % list.length]!;
  };
  const scalar = (indent: string) => pick(SCALARS).replace(/\n/g, `\n${indent}  `);
  const block = (indent: string, depth: number): string => {
    let out = "";
    for (let i = pick([1, 2, 3]); i > 0; i--) {
      const kind = pick([0, 1, 2, 3, 3, 3]);
      const key = pick(KEYS);
      if (kind === 0 && depth < 3) out += `${indent}${key}:\n${block(`${indent}  `, depth + 1)}`;
      else if (kind === 1 && depth < 3)
        out += `${indent}${key}:\n${indent}- ${scalar(indent)}\n${indent}- ${scalar(indent)}\n`;
      else if (kind === 2) out += `${indent}# comment\n`;
      else out += `${indent}${key}: ${scalar(indent)}\n`;
    }
    return out;
  };
  return Array.from({ length: count }, () =>
    pick([0, 1, 2, 3]) === 0 ? `${block("", 0)}---\n${block("", 0)}` : block("", 0),
  );
}

t.test("podrun reads generated manifests as kubectl does", async (t) => {
  const reader = requireYamlReader(t);
  if (!reader) return;
  const texts = [1, 2, 3].flatMap((seed) => generate(seed, 200));
  const kubectl = await readWithKubectl(reader, texts);
  let differ = 0;
  texts.forEach((text, i) => {
    const podrun = readWithPodrun(text);
    const want = kubectl[i]!;
    // Keys that read the same are refused on purpose (see EXPECTED_DIVERGENCES).
    if ("error" in podrun && /duplicate key/.test(podrun.error) && !("error" in want)) return;
    const same =
      "error" in want || "error" in podrun
        ? "error" in want && "error" in podrun
        : canonical(podrun) === canonical(want);
    if (!same && differ++ < 5) t.fail(`generated manifest ${i} reads differently`, { text, podrun, kubectl: want });
  });
  t.equal(differ, 0, `${texts.length} generated manifests read the same`);
});
