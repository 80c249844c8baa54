import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { ExitCode, ExitError, ManifestError, PodrunError, UsageError } from "./errors.js";

// This module only declares the commands: each action lazy-imports the one module that does the
// work, so `podrun --version` loads commander alone. Errors become exit codes here and nowhere else.

const readVersion = (): string =>
  (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

const EXAMPLES = `
Examples:
  $ podrun validate pod.yaml                 check a manifest as kubectl --validate=strict would
  $ podrun validate examples/*.yaml          several files: one summary line per pod
  $ podrun validate --json pod.yaml          print the objects with the API server's defaults
  $ cat pod.yaml | podrun validate -         read the manifest from standard input

Exit codes: 0 ok, 1 the pod or an operation on it failed, 2 usage or manifest error.
Environment: NO_COLOR, FORCE_COLOR; PODRUN_STATE_DIR (state directory).`;

export function buildProgram(): Command {
  const program = new Command("podrun")
    .description("Run a Kubernetes Pod manifest on this machine with docker, podman or nerdctl: no cluster needed.")
    .version(readVersion(), "-V, --version", "print the podrun version")
    .helpOption("-h, --help", "show help")
    .addHelpText("after", EXAMPLES)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });

  program
    .command("validate")
    .description("check manifests (Pod, ConfigMap, Secret) without touching any container engine")
    .argument("<file...>", "manifest files, or - for standard input")
    .option("--json", "print the defaulted objects as a JSON List instead of summary lines", false)
    .addHelpText("after", "\nExamples:\n  $ podrun validate pod.yaml\n  $ podrun validate --json pod.yaml | jq '.items[0].spec'")
    .action(async (files: string[], options: { json: boolean }) => {
      const { validate } = await import("./commands/validate.js");
      await validate({ files, json: options.json });
    });

  return program;
}

/** Runs the CLI and returns the exit code; never throws. */
export async function main(argv: readonly string[] = process.argv): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv]);
    return ExitCode.Ok;
  } catch (error) {
    return exitCodeFor(error);
  }
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // --help and --version end as "errors" under exitOverride, with their own exit code 0.
    return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  }
  if (error instanceof ExitError) return error.code;
  if (error instanceof ManifestError) {
    for (const line of error.lines) process.stderr.write(`${line}\n`);
    return ExitCode.Usage;
  }
  if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n`);
    return ExitCode.Usage;
  }
  if (error instanceof PodrunError) {
    process.stderr.write(`Error: ${error.reason}: ${error.message}\n`);
    return ExitCode.Failed;
  }
  process.stderr.write(`Unexpected error. Please report it as a bug:\n${(error as Error)?.stack ?? String(error)}\n`);
  return ExitCode.Failed;
}
