import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runCli } from "../harness/cli.js";
import {
  FUZZ_SEED,
  loadSeedManifests,
  makeCase,
  makeHugeFile,
  replayHint,
  type FuzzCase,
} from "../harness/manifest-fuzzer.js";

// The built CLI (`node bin/podrun.js`, after `npm run build`) on a few of the fuzzing test's
// manifests (fuzz.test.ts runs many more in-process): what reaches the terminal is one line per
// error naming the file, never a stack trace, and the exit code is 0 or 2. `up --dry-run
// --runtime docker` runs no engine command, so no engine is needed.

/** Cases chosen for what the in-process test cannot show: the process's own stack and streams. */
const PICKS = [
  "deep nesting",
  "alias bomb",
  "binary garbage",
  "huge string",
  "unicode",
  "BOM",
  "CRLF",
  "as JSON",
  "wrong type",
];
const RUNS_PER_COMMAND = 10;

function pickCases(): FuzzCase[] {
  const seeds = loadSeedManifests();
  const picked: FuzzCase[] = [makeHugeFile()];
  // The first cases of the run that applied each mutation of PICKS, then the cases that follow.
  const has = (name: string) => picked.some((p) => p.label.includes(`+ ${name}`));
  for (let index = 0; picked.length < RUNS_PER_COMMAND && index < 10_000; index++) {
    const fuzz = makeCase(seeds, index);
    if (PICKS.every(has) || PICKS.some((name) => fuzz.label.includes(`+ ${name}`) && !has(name))) picked.push(fuzz);
  }
  return picked;
}

t.test(
  `the CLI on mutated manifests: exit 0 or 2, one line per error, no stack trace (seed ${FUZZ_SEED})`,
  async (t) => {
    t.setTimeout(120_000);
    const dir = await mkdtemp(join(tmpdir(), "podrun-fuzz-cli-"));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const env = { PODRUN_STATE_DIR: join(dir, "state"), PATH: process.env.PATH ?? "" };
    for (const fuzz of pickCases()) {
      const path = join(dir, `case-${fuzz.index}.yaml`);
      await writeFile(path, fuzz.bytes);
      // The two commands at once: each process is mostly Node starting up.
      const commands = [
        ["validate", path],
        ["up", "--dry-run", "--runtime", "docker", path],
      ];
      const results = await Promise.all(commands.map((args) => runCli(args, { env, timeoutMs: 60_000 })));
      for (const [i, args] of commands.entries()) {
        const result = results[i]!;
        const where = `${fuzz.label}, podrun ${args[0]} (${replayHint(fuzz.index)})`;
        t.ok(result.exitCode === 0 || result.exitCode === 2, `${where}: exit ${result.exitCode}`);
        const lines = result.stderr.split("\n").slice(0, -1);
        const bad = lines.filter(
          (line) =>
            /^\s+at \S|Unexpected error|Maximum call stack/.test(line) ||
            !(line.startsWith(`${path}:`) || line.startsWith(`error: ${path}:`)),
        );
        t.same(
          bad.map((line) => line.slice(0, 200)),
          [],
          `${where}: every stderr line names the file, none is a stack trace`,
        );
        if (result.exitCode === 2) t.ok(lines.length > 0, `${where}: exit 2 says why`);
      }
      await rm(path, { force: true });
    }
  },
);
