// `npm test`: the build, then the tap suite with the type check and the lint running beside it.
// Why beside, not before: the suite leaves about a quarter of two CPUs idle (its files wait on
// containers, probe periods and grace periods), and the two checks, each one process on one CPU,
// fill that time instead of adding their own half-minute in front (figures: bench/RESULTS.md,
// "Test suite time"). The suite runs from source and from dist/, never from tsc's output, so
// neither check has to finish first. The checks' output is held and printed after tap's, so that
// it does not cut through tap's report. Arguments go to tap (`npm test -- test/x.e2e.test.ts`).
//
// Beside them too, on each other Node.js major that scripts/test-env.sh installed (env.json's
// "nodes"; the suite itself runs on the node that runs this script: CI's is the newest), the unit
// suite and a smoke test of the built CLI against a real engine (OTHER_MAJOR_SMOKE), held as the
// checks are: after tap they added half a minute of their own (its files name their pods uniquely,
// so the smoke test's run of a file and tap's can meet).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** On another major: `podrun up` and `down` of manifests over several files, on docker. */
const OTHER_MAJOR_SMOKE = ["test/harness/env.e2e.test.ts", "test/commands/up-files.e2e.test.ts"];

/** Runs a command; `hold`: its output is kept and returned instead of shown; `env`: added to the environment. */
function run(command, args, { hold = false, env = {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: hold ? ["ignore", "pipe", "pipe"] : "inherit",
      env: { ...process.env, ...env },
    });
    let output = "";
    if (hold) for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => (output += chunk));
    child.on("error", (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal === "SIGINT" ? 130 : 1), output }));
  });
}

// 1. The build: the end-to-end files drive dist/.
const build = await run(npm, ["run", "--silent", "build"]);
if (build.code !== 0) process.exit(build.code); // nothing held yet: exiting at once loses no output

// 2. The checks and the other Node.js majors (none when test-env.sh has not run, or when tap was
// given files), held, and the suite, shown.
const checks = ["typecheck", "lint"].map((script) => ({ script, done: run(npm, ["run", script], { hold: true }) }));
const others = process.argv.length > 2 ? [] : otherNodes();
// The majors start once the checks are done: at the start the checks and tap's first files already
// share the two CPUs, and the unit suite's timing-bound files keep their margins better after.
const checked = Promise.all(checks.map(({ done }) => done));
const majors = others.map(([major, node]) => ({ major, done: checked.then(() => otherMajor(node)) }));
const suite = await run("npx", ["tap", ...process.argv.slice(2)]);

// 3. The cluster network the tests' `up`s made: `down` keeps it (docs/services.md), so the suite
// removes it once no podrun container is left on the engine, as `podrun down --all` would.
await Promise.all(majors.map(({ done }) => done)); // their smoke test's pods are on it too
for (const engine of ["docker", "podman"]) {
  const left = await run(engine, ["ps", "-aq", "--filter", "label=io.podrun.managed=true"], { hold: true });
  // Its output holds stderr too (podman's syslog warning): a container is a line of its ID.
  const ids = left.output.split("\n").filter((line) => /^[0-9a-f]{12,64}$/.test(line.trim()));
  if (left.code === 0 && ids.length === 0) await run(engine, ["network", "rm", "podrun"], { hold: true });
}

// 4. The other majors' and the checks' output, then one exit code: the suite's failure first,
// else the first failed other major or check.
let code = suite.code;
for (const { major, done } of majors) {
  const { code: majorCode, output } = await done;
  process.stdout.write(`\n# Node.js ${major}: ${majorCode === 0 ? "ok" : `failed (exit ${majorCode})`}\n${output}`);
  if (code === 0) code = majorCode;
}
for (const { script, done } of checks) {
  const { code: checkCode, output } = await done;
  process.stdout.write(`\n# npm run ${script}: ${checkCode === 0 ? "ok" : `failed (exit ${checkCode})`}\n${output}`);
  if (code === 0) code = checkCode;
}
process.exitCode = code;

/** The Node.js binaries of env.json (scripts/test-env.sh) of another major than this one's, as [major, path]. */
function otherNodes() {
  const home = process.env.PODRUN_TEST_HOME || "/var/lib/podrun-test";
  let nodes;
  try {
    nodes = JSON.parse(readFileSync(join(home, "env.json"), "utf8")).nodes ?? {};
  } catch {
    return []; // no env.json: test-env.sh has not run here, and the suite's own files say what is missing
  }
  const mine = process.versions.node.split(".")[0];
  return Object.entries(nodes).filter(([major]) => major !== mine);
}

/**
 * On the Node.js binary `node`: the unit suite, then the smoke test, held; one exit code. The unit
 * suite in one process (PODRUN_UNIT_WORKERS), as tap's unit-suite file runs it: beside tap its wall
 * time is hidden, and four processes each loading the modules cost about 10 CPU-s more.
 */
async function otherMajor(node) {
  const env = { PATH: `${dirname(node)}:${process.env.PATH ?? ""}` };
  const unit = await run(npm, ["run", "--silent", "test:unit"], {
    hold: true,
    env: { ...env, PODRUN_UNIT_WORKERS: "1" },
  });
  const smoke = await run("npx", ["tap", "--jobs=1", ...OTHER_MAJOR_SMOKE], { hold: true, env });
  const title = `(${node}): the unit suite, then ${OTHER_MAJOR_SMOKE.join(", ")}`;
  return { code: unit.code || smoke.code, output: `${title}\n${unit.output}${smoke.output}` };
}
