import { join } from "node:path";
import { up } from "../../lib/commands/up.js";
import { validate } from "../../lib/commands/validate.js";
import { ExitCode, ExitError, ManifestError, UsageError } from "../../lib/errors.js";
import { stripColor } from "./ansi.js";
import { captureStream, type CommandWorld } from "./command-io.js";
import { FakeRuntime } from "./fake-runtime.js";

// `podrun validate` and `podrun up --dry-run` on one manifest file, in-process, ended as lib/cli.ts
// ends them, and the properties every manifest must keep whatever it holds: exit 0 or 2 and
// nothing else, every stderr line naming the file, no stack trace, no engine touched by a refused
// `up`. Shared by the fuzzing test (fuzz.test.ts) and the corpus test (corpus.test.ts).

/** How a command ended, as lib/cli.ts maps it to an exit code, and what it wrote on stderr. */
export interface Outcome {
  code: number;
  stderr: string[];
  /** An exception the CLI would report as a bug ("Unexpected error"). */
  unexpected?: unknown;
}

export async function outcomeOf(run: (stderr: NodeJS.WritableStream) => Promise<void>): Promise<Outcome> {
  const stderr = captureStream();
  let code: number = ExitCode.Ok;
  let unexpected: unknown;
  try {
    await run(stderr);
  } catch (error) {
    // As lib/cli.ts writes them: a ManifestError's lines, a UsageError after "error: ".
    if (error instanceof ManifestError) {
      for (const line of error.lines) stderr.write(`${line}\n`);
      code = ExitCode.Usage;
    } else if (error instanceof UsageError) {
      stderr.write(`error: ${error.message}\n`);
      code = ExitCode.Usage;
    } else if (error instanceof ExitError) {
      code = error.code;
    } else {
      unexpected = error;
      code = -1;
    }
  }
  stderr.end();
  return {
    code,
    stderr: stripColor(stderr.text).split("\n").slice(0, -1),
    ...(unexpected !== undefined && { unexpected }),
  };
}

/** What is wrong with an outcome, or [] when it keeps the properties. */
export function checkOutcome(command: string, outcome: Outcome, path: string): string[] {
  const problems: string[] = [];
  if (outcome.unexpected !== undefined) {
    const error = outcome.unexpected as Error;
    problems.push(
      `${command}: uncaught ${error?.name ?? typeof error}: ${String(error?.message ?? error)
        .split("\n")[0]!
        .slice(0, 200)}`,
    );
  } else if (outcome.code !== ExitCode.Ok && outcome.code !== ExitCode.Usage) {
    problems.push(`${command}: exit ${outcome.code}`);
  }
  for (const line of outcome.stderr) {
    // A hint (a ConfigMap that could be optional) follows the lines it is about, once.
    if (line.startsWith("hint: ")) continue;
    if (/^\s+at \S/.test(line) || /Maximum call stack|Unexpected error|\bTypeError\b|\bRangeError\b/.test(line)) {
      problems.push(`${command}: stack trace or internal error on stderr: ${line.slice(0, 200)}`);
    } else if (!line.startsWith(`${path}:`) && !line.startsWith(`error: ${path}:`)) {
      problems.push(
        `${command}: a stderr line that names no file (one line per error): ${JSON.stringify(line.slice(0, 200))}`,
      );
    }
  }
  if (outcome.code === ExitCode.Usage && outcome.stderr.length === 0)
    problems.push(`${command}: exit 2 with nothing on stderr`);
  return problems;
}

/** Both commands on the file at `path`, `up` with a fake engine of its own, and what broke a property. */
export async function validateAndDryRun(
  world: CommandWorld,
  path: string,
): Promise<{ checked: Outcome; started: Outcome; problems: string[] }> {
  const checked = await outcomeOf((stderr) =>
    validate({ files: [path], json: false, stdout: captureStream(), stderr }),
  );
  const runtime = new FakeRuntime({ images: ["registry.k8s.io/pause:3.10"], volumeRoot: join(world.dir, "volumes") });
  const started = await outcomeOf((stderr) =>
    up({
      files: [path],
      publishAll: false,
      parallelPulls: 1,
      keepOnFailure: false,
      dryRun: true,
      json: false,
      ...world.io,
      createRuntime: () => runtime,
      stdout: captureStream(),
      stderr,
    }),
  );
  const problems = [...checkOutcome("validate", checked, path), ...checkOutcome("up --dry-run", started, path)];
  if (started.code !== ExitCode.Ok && runtime.calls.length > 0)
    problems.push(`up --dry-run: exit ${started.code} after engine calls: ${runtime.calls.slice(0, 3).join("; ")}`);
  if (checked.code === ExitCode.Usage && started.code === ExitCode.Ok)
    problems.push("up --dry-run ran a manifest validate refuses");
  if (kubeletWarned(checked) && started.code === ExitCode.Ok)
    problems.push("up --dry-run ran a manifest with an error only a kubelet finds, which validate warned of");
  return { checked, started, problems };
}

/** Whether `validate` warned of an error only a kubelet finds, which `up` refuses (load-manifest.ts kubeletSuffix). */
export function kubeletWarned(outcome: Outcome): boolean {
  return outcome.stderr.some((line) => / Warning: .*: up refuses it\)$/.test(line));
}
