import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, stringify } from "yaml";

// Manifests mutated from the repository's examples and from real-world manifests
// (test/fixtures/corpus/: the Kubernetes documentation's examples, and podman's kube play tests in
// corpus/podman/), for the fuzzing tests (test/commands/fuzz*.test.ts). Every case is made
// from the run's seed and its own number alone: PODRUN_FUZZ_SEED=s PODRUN_FUZZ_CASE=n makes
// case n of seed s again, whatever the count.

/** The seed of a run: $PODRUN_FUZZ_SEED, else a fixed one (CI runs the same cases every time). */
export const FUZZ_SEED = Number(process.env.PODRUN_FUZZ_SEED ?? 20261201) >>> 0;
/** How many cases the in-process test makes: $PODRUN_FUZZ_COUNT (run more locally), else 500. */
export const FUZZ_COUNT = Number(process.env.PODRUN_FUZZ_COUNT ?? 500);
/** $PODRUN_FUZZ_CASE: only this case (to replay a failure). */
export const FUZZ_ONLY = process.env.PODRUN_FUZZ_CASE === undefined ? undefined : Number(process.env.PODRUN_FUZZ_CASE);

/** The command that replays a case, printed with every failure. */
export const replayHint = (index: number): string => `replay: PODRUN_FUZZ_SEED=${FUZZ_SEED} PODRUN_FUZZ_CASE=${index}`;

/** The repository, which the seeds' names are relative to. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The real-world manifests, subdirectories included (test/fixtures/corpus/README.md says whence). */
export const CORPUS_DIR = "test/fixtures/corpus";

/** A manifest to start from. */
export interface SeedManifest {
  name: string;
  text: string;
}

/** The examples (examples/ and below) and the corpus (and below), in a stable order. */
export function loadSeedManifests(): SeedManifest[] {
  const found: SeedManifest[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ya?ml|json)$/.test(entry.name))
        found.push({ name: path, text: readFileSync(join(ROOT, path), "utf8") });
    }
  };
  walk("examples");
  walk(CORPUS_DIR);
  return found;
}

/** One mutated manifest. */
export interface FuzzCase {
  index: number;
  /** Where it comes from and what was done to it, for failure messages. */
  label: string;
  /** The file's bytes. */
  bytes: Buffer;
}

/** A small, fast PRNG (mulberry32): the same seed gives the same sequence on every platform. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(items: readonly T[]) => items[int(items.length)]!, chance: (p: number) => next() < p };
}

export interface Random {
  /** In [0, 1). */
  next(): number;
  /** In [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

// Values of every YAML type and of the shapes that break careless code.
const ODD_STRINGS = [
  "",
  " ",
  "-",
  "null",
  "~",
  "0644",
  "1e400",
  "NaN",
  "$(HOME)",
  "${HOME}; rm -rf /",
  "a\nb",
  "\u0000",
  "\t",
  "ü",
  "日本語",
  "\u202eevil",
  "\u200b",
  "e\u0301",
  "😀",
  "\ud800",
  "<<",
  "__proto__",
  "constructor",
  "toString",
  "..",
  "/",
  "a".repeat(300),
];
const ODD_VALUES: unknown[] = [
  ...ODD_STRINGS,
  0,
  -1,
  1.5,
  2 ** 53 + 1,
  -(2 ** 63),
  1e308,
  true,
  false,
  null,
  [],
  {},
  [null],
  { "": "" },
  [[[]]],
  { a: { b: { c: {} } } },
  { __proto__: { polluted: true } },
];

type Mutation = { name: string; apply: (text: string, random: Random) => string };

// Whole-object mutations: the seed's first document is read, changed, and written back (block or
// flow style); what is not YAML the structural ones leave as it is.
function mutateObject(
  name: string,
  change: (root: unknown, random: Random) => void,
  format: "yaml" | "json" = "yaml",
): Mutation {
  return {
    name,
    apply: (text, random) => {
      // Input too deep, an alias bomb or an alias loop (a self-referencing value) already: left
      // unchanged, for the parser under test. So is a large text (a huge string or deep nesting
      // added before), which the yaml library would take long to read again.
      if (text.length > 100_000) return text;
      try {
        const docs = parseAllDocuments(text);
        if (!Array.isArray(docs) || docs.length === 0 || docs.some((doc) => doc.errors.length > 0)) return text;
        const values = docs.map((doc) => doc.toJS({ maxAliasCount: 100 }) as unknown);
        change(values[random.int(values.length)], random);
        if (format === "json") return values.map((value) => JSON.stringify(value)).join("\n");
        const flow = random.chance(0.15);
        return values.map((value) => stringify(value, flow ? { collectionStyle: "flow" } : undefined)).join("---\n");
      } catch {
        return text;
      }
    },
  };
}

/** Every [container, key] of a value, objects and lists, depth-first. */
function slots(root: unknown): { parent: Record<string, unknown> | unknown[]; key: string | number }[] {
  const found: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach((item, i) => (found.push({ parent: value, key: i }), walk(item)));
    else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        found.push({ parent: value as Record<string, unknown>, key });
        walk(item);
      }
    }
  };
  walk(root);
  return found;
}

const setSlot = (slot: { parent: Record<string, unknown> | unknown[]; key: string | number }, value: unknown) => {
  (slot.parent as Record<string | number, unknown>)[slot.key] = value;
};

const lines = (text: string) => text.split("\n");

const MUTATIONS: Mutation[] = [
  mutateObject("delete a key", (root, random) => {
    const all = slots(root).filter((s) => !Array.isArray(s.parent));
    if (all.length > 0) {
      const slot = random.pick(all);
      delete (slot.parent as Record<string, unknown>)[slot.key as string];
    }
  }),
  mutateObject("delete an item", (root, random) => {
    const all = slots(root).filter((s) => Array.isArray(s.parent));
    if (all.length > 0) {
      const slot = random.pick(all);
      (slot.parent as unknown[]).splice(slot.key as number, 1);
    }
  }),
  mutateObject("wrong type", (root, random) => {
    const all = slots(root);
    if (all.length > 0) setSlot(random.pick(all), structuredClone(random.pick(ODD_VALUES)));
  }),
  mutateObject("odd key", (root, random) => {
    const all = slots(root).filter((s) => !Array.isArray(s.parent));
    if (all.length > 0) {
      const slot = random.pick(all);
      (slot.parent as Record<string, unknown>)[random.pick(ODD_STRINGS) || "x"] = (
        slot.parent as Record<string, unknown>
      )[slot.key as string];
    }
  }),
  mutateObject("huge string", (root, random) => {
    const all = slots(root);
    if (all.length > 0)
      setSlot(random.pick(all), random.pick(["x", "é", "😀", "a b ", "\\"]).repeat(10_000 + random.int(300_000)));
  }),
  mutateObject("unicode", (root, random) => {
    const all = slots(root).filter((s) => typeof (s.parent as Record<string | number, unknown>)[s.key] === "string");
    const odd = () =>
      Array.from({ length: 1 + random.int(8) }, () =>
        String.fromCodePoint(
          random.pick([0x7f, 0x85, 0xa0, 0x2028, 0xfeff, 0x1f600, 0x10fffd, 0x300, 0xe9]) + random.int(3),
        ),
      ).join("");
    if (all.length > 0) {
      const slot = random.pick(all);
      const value = (slot.parent as Record<string | number, unknown>)[slot.key] as string;
      const at = random.int(value.length + 1);
      setSlot(slot, value.slice(0, at) + odd() + value.slice(at));
    }
  }),
  mutateObject("duplicate a container", (root) => {
    const containers = (root as { spec?: { containers?: unknown[] } } | null)?.spec?.containers;
    if (Array.isArray(containers) && containers.length > 0) containers.push(structuredClone(containers[0]));
  }),
  {
    name: "deep nesting",
    apply: (text, random) => {
      const depth = random.pick([50, 255, 257, 1_000, 10_000, 100_000]);
      const [open, close] = random.pick([
        ["[", "]"],
        ["{a: ", "}"],
      ] as const);
      const style = random.int(3);
      const nested =
        style === 0
          ? `${open.repeat(depth)}${close.repeat(depth)}`
          : style === 1
            ? `\n${"- ".repeat(Math.min(depth, 50_000))}x`
            : `${"[{a: ".repeat(depth >> 1)}1${"}]".repeat(depth >> 1)}`;
      const all = lines(text);
      const at = random.int(all.length + 1);
      const indent = /^\s*/.exec(all[Math.max(0, at - 1)] ?? "")![0];
      all.splice(at, 0, `${indent}fuzz: ${nested}`);
      return all.join("\n");
    },
  },
  {
    name: "alias bomb",
    apply: (text, random) => {
      const levels = 3 + random.int(8);
      const bomb = [`a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]`];
      for (let i = 1; i <= levels; i++)
        bomb.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(", ")}]`);
      const where = random.int(3);
      if (where === 0) return `${bomb.join("\n")}\n${text}`;
      if (where === 1)
        return text.replace(/^(metadata:\n)/m, `$1  annotations:\n${bomb.map((l) => `    ${l}`).join("\n")}\n`);
      return `${text}\n---\n${bomb.join("\n")}\n`;
    },
  },
  {
    name: "alias to itself and merge loops",
    apply: (text, random) =>
      random.pick([
        `${text}\nx: &x\n  <<: *x\n`,
        `${text}\nx: &x [*x]\n`,
        `${text}\nbase: &b {a: 1}\nmore: {<<: [*b, *b, *b], <<: *b}\n`,
        text.replace(/^(\s*)(- name: \S+)/m, "$1- &c\n$1  name: dup\n$1- *c\n$1$2"),
      ]),
  },
  {
    name: "binary garbage",
    apply: (text, random) => {
      const bytes = Array.from({ length: 1 + random.int(200) }, () => String.fromCharCode(random.int(256))).join("");
      const at = random.int(text.length + 1);
      return random.chance(0.3) ? bytes : text.slice(0, at) + bytes + text.slice(at);
    },
  },
  { name: "CRLF", apply: (text) => text.replace(/\r?\n/g, "\r\n") },
  { name: "lone CR", apply: (text) => text.replace(/\n/g, "\r") },
  { name: "BOM", apply: (text) => `\ufeff${text}` },
  {
    name: "BOM in the middle",
    apply: (text, random) => {
      const at = random.int(text.length + 1);
      return `${text.slice(0, at)}\ufeff${text.slice(at)}`;
    },
  },
  {
    name: "tabs",
    apply: (text, random) =>
      text.replace(/^( +)/gm, (spaces) => (random.chance(0.2) ? "\t" + spaces.slice(1) : spaces)),
  },
  { name: "truncate", apply: (text, random) => text.slice(0, random.int(text.length)) },
  {
    name: "delete a line",
    apply: (text, random) => {
      const all = lines(text);
      all.splice(random.int(all.length), 1);
      return all.join("\n");
    },
  },
  {
    name: "duplicate a line",
    apply: (text, random) => {
      const all = lines(text);
      const at = random.int(all.length);
      all.splice(at, 0, all[at]!);
      return all.join("\n");
    },
  },
  {
    name: "shift indentation",
    apply: (text, random) => {
      const all = lines(text);
      const at = random.int(all.length);
      all[at] = random.chance(0.5) ? ` ${all[at]}` : all[at]!.replace(/^ /, "");
      return all.join("\n");
    },
  },
  {
    name: "YAML punctuation",
    apply: (text, random) => {
      const at = random.int(text.length + 1);
      const insert = random.pick([
        ":",
        ": ",
        "- ",
        "&",
        "*",
        "*x",
        "!",
        "!!binary ",
        "!!str",
        "%YAML 1.1\n",
        "|",
        ">-",
        "'",
        '"',
        "{",
        "[",
        "]",
        "}",
        "#",
        "? ",
        "<<: ",
        "...\n",
        "---\n",
        "--- x\n",
        "\\",
        "\\x",
        '"\\ud800"',
        "@",
        "`",
      ]);
      return text.slice(0, at) + insert + text.slice(at);
    },
  },
  mutateObject("as JSON", () => {}, "json"),
  {
    name: "JSON with junk",
    apply: (text, random) =>
      random.pick([
        `{"kind": "Pod"} ${text}`,
        `{"a": ${"[".repeat(5_000)}`,
        "[1, 2]",
        '{"a": 1e999}',
        '{"a": 1, "a": 2}',
        `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}, "spec": {"containers": [${"{}".repeat(3)}]}}`,
      ]),
  },
];

/** A value nested `depth` deep in a valid pod: the parts of the pipeline after parsing must take it too. */
const LAST_STRAW: Mutation = {
  name: "nesting just under the limit",
  apply: (text) => text.replace(/^metadata:\n/m, `metadata:\n  annotations: ${"[".repeat(250)}${"]".repeat(250)}\n`),
};

/** Case `index` of the run: a seed manifest with one to three mutations. */
export function makeCase(seeds: readonly SeedManifest[], index: number): FuzzCase {
  const random = createRandom((FUZZ_SEED ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  const seed = random.pick(seeds);
  let text = seed.text;
  const applied: string[] = [];
  // Now and then an unchanged seed: valid manifests must still pass (exit 0) under the same checks.
  const count = random.chance(0.05) ? 0 : 1 + random.int(3);
  for (let i = 0; i < count; i++) {
    const mutation = random.chance(0.02) ? LAST_STRAW : random.pick(MUTATIONS);
    text = mutation.apply(text, random);
    applied.push(mutation.name);
  }
  // A mutation may write a lone surrogate: Buffer.from writes it as U+FFFD, as an editor would.
  return {
    index,
    label: `case ${index}: ${seed.name} + ${applied.join(" + ") || "unchanged"}`,
    bytes: Buffer.from(text, "utf8"),
  };
}

/** A YAML file of about 10 MB (a pod with thousands of labels): over the size limit, refused unread. */
export function makeHugeFile(): FuzzCase {
  const header = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: huge\n  labels:\n";
  const label = (i: number) => `    label-${i}: ${"v".repeat(40)}\n`;
  const labels = Array.from({ length: Math.ceil((10 * 1024 * 1024) / label(0).length) }, (_, i) => label(i));
  const text = `${header}${labels.join("")}spec:\n  containers:\n  - name: a\n    image: busybox\n`;
  return { index: -1, label: "a 10 MB file", bytes: Buffer.from(text, "utf8") };
}
