import { execa } from "execa";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { findUnitTests } from "./unit-files.js";

// `npm run test:unit`: every unit test (test/harness/unit-files.ts says which), each file in a
// process of its own, as `npx tap FILE` runs one (`npm test` runs them all in one process:
// test/unit-suite.test.ts).
//
// Why not `tap` here: a tap test file is a plain script that node runs with tsx, as tap runs it
// (package.json), and tap's runner and reporter add nothing a unit file needs. Output: one line per
// file, the whole TAP output of a file that failed, a summary; exit 1 when any file failed.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** As tap's configuration: a file that runs longer has hung. */
const FILE_TIMEOUT_MS = 300_000;

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
  const files = process.argv.length > 2 ? process.argv.slice(2) : await findUnitTests(ROOT);
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
