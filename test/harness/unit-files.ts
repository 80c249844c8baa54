import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";

// Which test files are unit tests, for `npm run test:unit` (run-unit.ts) and for the one process
// `npm test` runs them in (test/unit-suite.test.ts).
//
// What is a unit test is said by its file name: `*.e2e.test.ts` needs what scripts/test-env.sh
// brings up (container engines, registries, kubectl's YAML reader); `*.cli.test.ts` runs the built
// CLI (bin/podrun.js → dist/) or npm; every other `*.test.ts` is a unit test, engine-free (the
// shared fake engine, test/harness/fake-runtime.ts, stands in for one) and build-free.

/** Whatever a file needs beyond that, it is not a unit test; the suite file only gathers them. */
const NOT_UNIT = /\.(?:e2e|cli)\.test\.ts$|^unit-suite\.test\.ts$/;

/** The unit test files under `root`/test, relative to `root`, sorted. */
export async function findUnitTests(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        // As tap's default exclude: fixtures are data, not tests.
        if (!/^fixtures?$/.test(entry.name)) await walk(path);
      } else if (entry.name.endsWith(".test.ts") && !NOT_UNIT.test(entry.name)) {
        found.push(relative(root, path));
      }
    }
  };
  await walk(join(root, "test"));
  return found.sort();
}
