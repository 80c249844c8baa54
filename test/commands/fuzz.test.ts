import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import t from "tap";
import { ExitCode } from "../../lib/errors.js";
import { createCommandWorld } from "../harness/command-io.js";
import {
  CORPUS_DIR,
  FUZZ_COUNT,
  FUZZ_ONLY,
  FUZZ_SEED,
  loadSeedManifests,
  makeCase,
  makeHugeFile,
  replayHint,
  type FuzzCase,
} from "../harness/manifest-fuzzer.js";
import { validateAndDryRun } from "../harness/manifest-outcome.js";

// Fuzzing `podrun validate` and `podrun up --dry-run`, in-process (the built CLI:
// fuzz.cli.test.ts). Manifests mutated from examples/ and from test/fixtures/corpus/ (real-world
// ones: the Kubernetes documentation's examples, podman's kube play tests; corpus.test.ts takes
// them unmutated): deleted keys, wrong types, huge strings, unicode, deep nesting, alias bombs,
// binary garbage, flow style, CRLF, BOM…, and one 10 MB file. For each: the command ends in exit 0
// or 2 and nothing else (no other exception), every line it writes on standard error names the
// file (`file:line:col: ` or `file: `), none is a stack trace, and an `up` refused touches no
// engine: no call at all (test/harness/manifest-outcome.ts).
// Seeded (PODRUN_FUZZ_SEED), PODRUN_FUZZ_COUNT cases; a failure names its replay command.

// The run's length follows PODRUN_FUZZ_COUNT. Set on the file's root test: a file run by node alone
// (npm run test:unit) otherwise ends at tap's default 30 s, whatever its subtests ask, and a
// machine busy with other work reaches that.
t.setTimeout(Math.max(120_000, FUZZ_COUNT * 100));

t.test(`validate and up --dry-run on mutated manifests (seed ${FUZZ_SEED})`, async (t) => {
  const world = await createCommandWorld(t);
  const seeds = loadSeedManifests();
  t.ok(seeds.length >= 10, `seeds: ${seeds.length} manifests from examples/ and the corpus`);
  t.ok(
    seeds.filter((seed) => seed.name.startsWith(join(CORPUS_DIR, "podman/"))).length >= 10,
    "podman's kube play manifests among the seeds",
  );
  const cases: FuzzCase[] =
    FUZZ_ONLY !== undefined
      ? [makeCase(seeds, FUZZ_ONLY)]
      : [makeHugeFile(), ...Array.from({ length: FUZZ_COUNT }, (_, i) => makeCase(seeds, i))];
  const failures: string[] = [];
  const tally = { cases: 0, valid: 0, invalid: 0 };
  const begun = performance.now();
  for (const fuzz of cases) {
    const path = join(world.dir, `case-${fuzz.index}.yaml`);
    await writeFile(path, fuzz.bytes);
    const { checked, problems } = await validateAndDryRun(world, path);
    if (problems.length > 0) failures.push(`${fuzz.label} (${replayHint(fuzz.index)}):\n  ${problems.join("\n  ")}`);
    tally.cases++;
    if (checked.code === ExitCode.Ok) tally.valid++;
    else tally.invalid++;
    await rm(path, { force: true });
  }
  const seconds = ((performance.now() - begun) / 1000).toFixed(1);
  t.comment(
    `${tally.cases} manifests (${tally.valid} valid, ${tally.invalid} refused) in ${seconds}s, seed ${FUZZ_SEED}`,
  );
  t.same(failures.slice(0, 20), [], `${failures.length} of ${tally.cases} cases broke a property (seed ${FUZZ_SEED})`);
  if (FUZZ_ONLY === undefined) {
    t.ok(tally.invalid > tally.cases / 2, "most mutations make an invalid manifest");
    t.ok(tally.valid > 0, "some stay valid: the checks also hold on the exit-0 path");
  }
});
