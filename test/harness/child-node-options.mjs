// Loaded into every test file's process (package.json, tap's node-arg). tap puts an import of its
// process-info hook into NODE_OPTIONS, so that every node process a test starts loads it too: for
// coverage and `--changed`, which this suite does not use. It costs each child ~0.35 s of CPU
// (`podrun ps`: 0.5 s instead of 0.15 s), and the suite starts about 900 podrun processes: a
// quarter of its CPU time (bench/RESULTS.md, "Test suite time"). The test file itself keeps the
// hook; the processes it starts do not get it.
const options = process.env.NODE_OPTIONS;
if (options !== undefined) {
  const kept = options.split(/\s+/).filter((option) => option !== "" && !option.includes("@tapjs/processinfo"));
  if (kept.length > 0) process.env.NODE_OPTIONS = kept.join(" ");
  else delete process.env.NODE_OPTIONS;
}
