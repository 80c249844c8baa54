// Loaded into every test file's process (package.json, tap's node-arg, after tap's own imports).
// tap's process-info hook adds an import of itself to the NODE_OPTIONS of every process a test
// starts (through process-on-spawn), so that each node child loads it too: for coverage and
// `--changed`, which this suite does not use. It costs each child ~0.35 s of CPU (`podrun ps`:
// 0.5 s instead of 0.15 s), and the suite starts about 900 podrun processes: a quarter of its CPU
// time (bench/RESULTS.md, "Test suite time"). A listener added after the hook's takes the import
// out again: the test file keeps the hook, the processes it starts do not load it.
import processOnSpawn from "process-on-spawn";

const strip = (options) =>
  options
    .split(/\s+/)
    .filter((option) => option !== "" && !option.includes("@tapjs/processinfo"))
    .join(" ");

processOnSpawn.addListener((child) => {
  const options = child.env.NODE_OPTIONS;
  if (options === undefined || !options.includes("@tapjs/processinfo")) return;
  const kept = strip(options);
  const env = { ...child.env };
  if (kept === "") delete env.NODE_OPTIONS;
  else env.NODE_OPTIONS = kept;
  child.env = env;
});
