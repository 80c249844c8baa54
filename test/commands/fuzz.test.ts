import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import t from "tap";
import { up } from "../../lib/commands/up.js";
import { validate } from "../../lib/commands/validate.js";
import { ExitCode, ExitError, ManifestError, UsageError } from "../../lib/errors.js";
import { stripColor } from "../harness/ansi.js";
import { captureStream, createCommandWorld } from "../harness/command-io.js";
import { FakeRuntime } from "../harness/fake-runtime.js";
import { FUZZ_COUNT, FUZZ_ONLY, FUZZ_SEED, loadSeedManifests, makeCase, makeHugeFile, replayHint, type FuzzCase } from "../harness/manifest-fuzzer.js";

// Fuzzing `podrun validate` and `podrun up --dry-run`, in-process (the built CLI:
// fuzz.cli.test.ts). Manifests mutated from examples/ and test/fixtures/corpus/ (deleted keys,
// wrong types, huge strings, unicode, deep nesting, alias bombs, binary garbage, flow style, CRLF,
// BOM…) and one 10 MB file. For each: the command ends in exit 0 or 2 and nothing else (no other
// exception), every line it writes on standard error names the file (`file:line:col: ` or
// `file: `), none is a stack trace, and an `up` refused touches no engine: no call at all.
// Seeded (PODRUN_FUZZ_SEED), PODRUN_FUZZ_COUNT cases; a failure names its replay command.

/** How a command ended, as lib/cli.ts maps it to an exit code, and what it wrote on stderr. */
interface Outcome {
  code: number;
  stderr: string[];
  /** An exception the CLI would report as a bug ("Unexpected error"). */
  unexpected?: unknown;
}

async function outcomeOf(run: (stderr: NodeJS.WritableStream) => Promise<void>): Promise<Outcome> {
  const stderr = captureStream();
  let code: number = ExitCode.Ok;
  let unexpected: unknown;
  try {
    await run(stderr);
  } catch (error) {
    // As lib/cli.ts writes them: a ManifestError's lines, a UsageError after "error: ".
    if (error instanceof ManifestError) {
      for (const line of error.lines) stderr.write(`${line}\n`);
      code = ExitCode.Usage;
    } else if (error instanceof UsageError) {
      stderr.write(`error: ${error.message}\n`);
      code = ExitCode.Usage;
    } else if (error instanceof ExitError) {
      code = error.code;
    } else {
      unexpected = error;
      code = -1;
    }
  }
  stderr.end();
  return { code, stderr: stripColor(stderr.text).split("\n").slice(0, -1), ...(unexpected !== undefined && { unexpected }) };
}

/** What is wrong with an outcome, or [] when it keeps the properties. */
export function checkOutcome(command: string, outcome: Outcome, path: string): string[] {
  const problems: string[] = [];
  if (outcome.unexpected !== undefined) {
    const error = outcome.unexpected as Error;
    problems.push(`${command}: uncaught ${error?.name ?? typeof error}: ${String(error?.message ?? error).split("\n")[0]!.slice(0, 200)}`);
  } else if (outcome.code !== ExitCode.Ok && outcome.code !== ExitCode.Usage) {
    problems.push(`${command}: exit ${outcome.code}`);
  }
  for (const line of outcome.stderr) {
    if (/^\s+at \S/.test(line) || /Maximum call stack|Unexpected error|\bTypeError\b|\bRangeError\b/.test(line)) {
      problems.push(`${command}: stack trace or internal error on stderr: ${line.slice(0, 200)}`);
    } else if (!line.startsWith(`${path}:`) && !line.startsWith(`error: ${path}:`)) {
      problems.push(`${command}: a stderr line that names no file (one line per error): ${JSON.stringify(line.slice(0, 200))}`);
    }
  }
  if (outcome.code === ExitCode.Usage && outcome.stderr.length === 0) problems.push(`${command}: exit 2 with nothing on stderr`);
  return problems;
}

t.test(`validate and up --dry-run on mutated manifests (seed ${FUZZ_SEED})`, async (t) => {
  // The run's length follows PODRUN_FUZZ_COUNT (a test file run by node alone gets 30 s).
  t.setTimeout(Math.max(120_000, FUZZ_COUNT * 100));
  const world = await createCommandWorld(t);
  const seeds = loadSeedManifests();
  t.ok(seeds.length >= 10, `seeds: ${seeds.length} manifests from examples/ and the corpus`);
  const cases: FuzzCase[] = FUZZ_ONLY !== undefined ? [makeCase(seeds, FUZZ_ONLY)] : [makeHugeFile(), ...Array.from({ length: FUZZ_COUNT }, (_, i) => makeCase(seeds, i))];
  const failures: string[] = [];
  const tally = { cases: 0, valid: 0, invalid: 0 };
  const begun = performance.now();
  for (const fuzz of cases) {
    const path = join(world.dir, `case-${fuzz.index}.yaml`);
    await writeFile(path, fuzz.bytes);
    const checked = await outcomeOf((stderr) => validate({ files: [path], json: false, stdout: captureStream(), stderr }));
    const runtime = new FakeRuntime({ images: ["registry.k8s.io/pause:3.10"], volumeRoot: join(world.dir, "volumes") });
    const started = await outcomeOf((stderr) =>
      up({ files: [path], publishAll: false, parallelPulls: 1, keepOnFailure: false, dryRun: true, json: false, ...world.io, createRuntime: () => runtime, stdout: captureStream(), stderr }),
    );
    const problems = [...checkOutcome("validate", checked, path), ...checkOutcome("up --dry-run", started, path)];
    if (started.code !== ExitCode.Ok && runtime.calls.length > 0) problems.push(`up --dry-run: exit ${started.code} after engine calls: ${runtime.calls.slice(0, 3).join("; ")}`);
    if (checked.code === ExitCode.Usage && started.code === ExitCode.Ok) problems.push("up --dry-run ran a manifest validate refuses");
    if (problems.length > 0) failures.push(`${fuzz.label} (${replayHint(fuzz.index)}):\n  ${problems.join("\n  ")}`);
    tally.cases++;
    if (checked.code === ExitCode.Ok) tally.valid++;
    else tally.invalid++;
    await rm(path, { force: true });
  }
  const seconds = ((performance.now() - begun) / 1000).toFixed(1);
  t.comment(`${tally.cases} manifests (${tally.valid} valid, ${tally.invalid} refused) in ${seconds}s, seed ${FUZZ_SEED}`);
  t.same(failures.slice(0, 20), [], `${failures.length} of ${tally.cases} cases broke a property (seed ${FUZZ_SEED})`);
  if (FUZZ_ONLY === undefined) {
    t.ok(tally.invalid > tally.cases / 2, "most mutations make an invalid manifest");
    t.ok(tally.valid > 0, "some stay valid: the checks also hold on the exit-0 path");
  }
});
