// Runs the built CLI the way a user does: `node bin/podrun.js …args`. bin/podrun.js imports
// dist/cli.js, which `npm test` builds first (run `npm run build` before running one test file).
import { execa } from "execa";
import { fileURLToPath } from "node:url";

export const PODRUN_BIN = fileURLToPath(new URL("../../bin/podrun.js", import.meta.url));

/** Output exactly as the CLI wrote it, final newline included. */
export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const result = await execa(process.execPath, [PODRUN_BIN, ...args], {
    reject: false,
    // No colours or spinners in captured output, whatever the parent's terminal.
    env: { NO_COLOR: "1", FORCE_COLOR: "0", ...options.env },
    ...(options.input === undefined ? { stdin: "ignore" as const } : { input: options.input }),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    timeout: options.timeoutMs ?? 120_000,
    stripFinalNewline: false,
  });
  if (result.exitCode === undefined) throw new Error(`podrun ${args.join(" ")}: ${result.shortMessage}`);
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}
