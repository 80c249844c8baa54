import { execa } from "execa";
import { availableParallelism } from "node:os";
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

// `npm run test:unit`: every test that needs neither the test environment nor a build, each file
// in a process of its own, as tap runs them (`npm test` runs everything through tap).
//
// What is a unit test is said by its file name: `*.e2e.test.ts` needs what scripts/test-env.sh
// brings up (container engines, registries, kubectl's YAML reader); `*.cli.test.ts` runs the built
// CLI (bin/podrun.js → dist/) or npm; every other `*.test.ts` is a unit test, engine-free (the
// shared fake engine, test/harness/fake-runtime.ts, stands in for one) and build-free.
//
// Why not `tap` here: a tap test file is a plain script that node runs with tsx, as tap runs it
// (package.json), and tap's runner and reporter add nothing a unit file needs. Output: one line per
// file, the whole TAP output of a file that failed, a summary; exit 1 when any file failed.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Whatever a file needs beyond that, it is not a unit test. */
const NOT_UNIT = /\.(?:e2e|cli)\.test\.ts$/;
/** As tap's configuration: a file that runs longer has hung. */
const FILE_TIMEOUT_MS = 300_000;

async function findUnitTests(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      // As tap's default exclude: fixtures are data, not tests.
      if (!/^fixtures?$/.test(entry.name)) found.push(...(await findUnitTests(path)));
    } else if (entry.name.endsWith(".test.ts") && !NOT_UNIT.test(entry.name)) {
      found.push(relative(ROOT, path));
    }
  }
  return found.sort();
}

interface FileResult {
  file: string;
  ok: boolean;
  seconds: number;
  output: string;
}

async function runFile(file: string): Promise<FileResult> {
  const started = performance.now();
  const result = await execa(process.execPath, ["--import", "tsx", file], {
    cwd: ROOT,
    reject: false,
    all: true,
    stdin: "ignore",
    timeout: FILE_TIMEOUT_MS,
    // As tap gives its test processes: no colour, whatever the terminal.
    env: { NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  return { file, ok: result.exitCode === 0, seconds: (performance.now() - started) / 1000, output: result.all ?? "" };
}

async function main(): Promise<void> {
  const files = process.argv.length > 2 ? process.argv.slice(2) : await findUnitTests(join(ROOT, "test"));
  const started = performance.now();
  const queue = [...files];
  const failed: FileResult[] = [];
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const result = await runFile(file);
      process.stdout.write(`${result.ok ? "ok  " : "FAIL"} ${result.seconds.toFixed(1).padStart(5)}s  ${file}\n`);
      if (!result.ok) failed.push(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), files.length) }, worker));
  for (const result of failed) process.stdout.write(`\n# ${result.file}\n${result.output}\n`);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`\n${files.length} files, ${failed.length} failed, ${seconds}s\n`);
  if (failed.length > 0) process.exitCode = 1;
}

await main();
