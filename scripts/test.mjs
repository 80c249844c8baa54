// `npm test`: the build, then the tap suite with the type check and the lint running beside it.
// Why beside, not before: the suite leaves about a quarter of two CPUs idle (its files wait on
// containers, probe periods and grace periods), and the two checks, each one process on one CPU,
// fill that time instead of adding their own half-minute in front (figures: bench/RESULTS.md,
// "Test suite time"). The suite runs from source and from dist/, never from tsc's output, so
// neither check has to finish first. The checks' output is held and printed after tap's, so that
// it does not cut through tap's report. Arguments go to tap (`npm test -- test/x.e2e.test.ts`).
import { spawn } from "node:child_process";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Runs a command; `hold`: its output is kept and returned instead of shown. */
function run(command, args, { hold = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: hold ? ["ignore", "pipe", "pipe"] : "inherit" });
    let output = "";
    if (hold) for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => (output += chunk));
    child.on("error", (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal === "SIGINT" ? 130 : 1), output }));
  });
}

// 1. The build: the end-to-end files drive dist/.
const build = await run(npm, ["run", "--silent", "build"]);
if (build.code !== 0) process.exit(build.code); // nothing held yet: exiting at once loses no output

// 2. The checks, held, and the suite, shown.
const checks = ["typecheck", "lint"].map((script) => ({ script, done: run(npm, ["run", script], { hold: true }) }));
const suite = await run("npx", ["tap", ...process.argv.slice(2)]);

// 3. The cluster network the tests' `up`s made: `down` keeps it (docs/services.md), so the suite
// removes it once no podrun container is left on the engine, as `podrun down --all` would.
for (const engine of ["docker", "podman"]) {
  const left = await run(engine, ["ps", "-aq", "--filter", "label=io.podrun.managed=true"], { hold: true });
  // Its output holds stderr too (podman's syslog warning): a container is a line of its ID.
  const ids = left.output.split("\n").filter((line) => /^[0-9a-f]{12,64}$/.test(line.trim()));
  if (left.code === 0 && ids.length === 0) await run(engine, ["network", "rm", "podrun"], { hold: true });
}

// 4. The checks' output, then one exit code: the suite's failure first, else the first failed check.
let code = suite.code;
for (const { script, done } of checks) {
  const { code: checkCode, output } = await done;
  process.stdout.write(`\n# npm run ${script}: ${checkCode === 0 ? "ok" : `failed (exit ${checkCode})`}\n${output}`);
  if (code === 0) code = checkCode;
}
process.exitCode = code;
