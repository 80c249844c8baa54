import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import t from "tap";
import { PODRUN_BIN } from "../harness/cli.js";

// A reader that is gone before the output comes (`podrun … | head -0`, or a `head -1` that has its line): the command ends as it would
// have, with its own exit code, and no EPIPE stack trace on stderr.

const EXAMPLES = fileURLToPath(new URL("../../examples/", import.meta.url));

/** Runs the CLI with its stdout pipe closed at once. */
function runClosingEarly(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PODRUN_BIN, ...args], {
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.destroy();
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

for (const args of [
  ["up", "--dry-run", "--runtime", "docker", `${EXAMPLES}ci-stack`],
  ["validate", "--json", `${EXAMPLES}ci-stack`],
]) {
  t.test(`podrun ${args.slice(0, 2).join(" ")} | head: exit 0, nothing on stderr`, async (t) => {
    const { code, stderr } = await runClosingEarly(args);
    t.equal(code, 0, stderr);
    t.notMatch(stderr, /EPIPE|\n\s+at /, "no stack trace");
  });
}
